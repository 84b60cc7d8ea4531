/**
 * An engine started by a program for itself (the rehearsal, the crash demo, the benchmarks, the tests) stops
 * when that program dies. A program that ends normally stops its engine, but one SIGKILLed or timed out
 * cannot, and its engine would run on with no one to stop it, holding a port, its data directory's lock
 * and a core. Node has no parent-death signal, so the engine looks for its parent once a second.
 */

/** Set to `1` in the environment of an `autosave local` that should stop when the process that started it dies. */
export const STOP_WITH_PARENT_ENV = 'AUTOSAVE_STOP_WITH_PARENT';

/** How often the engine looks for its parent. */
const CHECK_MILLIS = 1_000;

/**
 * Resolves once the process that started this one is gone, when {@link STOP_WITH_PARENT_ENV} asks for it
 * (undefined otherwise: a user's `autosave local` outlives the shell that started it, as a server does).
 * Gone: this process was handed to another parent (Linux, macOS), or the parent's pid answers no more.
 */
export function parentGone(env: NodeJS.ProcessEnv = process.env): Promise<void> | undefined {
  if (env[STOP_WITH_PARENT_ENV] !== '1') return undefined;
  const parent = process.ppid;
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (process.ppid === parent && answers(parent)) return;
      clearInterval(timer);
      resolve();
    }, CHECK_MILLIS);
    // The engine's server keeps the process alive; this check must not.
    timer.unref();
  });
}

function answers(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, but another user's (a pid reused after the parent died would be, too: rare, and harmless).
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
