/**
 * TEST SEAM. Environment variable naming a crash point; when a process reaches the point of that name
 * it kills itself with SIGKILL (no cleanup, no flush: exactly what a Lambda timeout or an engine crash
 * looks like to the rest of the system). Never set in production; unset, a crash point is a string compare.
 */
export const CRASH_POINT_ENV = 'AUTOSAVE_CRASH_POINT';

/** The crash points the runtime has. */
export const CrashPoint = {
  /** The tool's provider has acted, its result is not yet recorded as COMPLETED. */
  AfterActBeforeComplete: 'after-act-before-complete',
  /** The model has answered, its output is not yet recorded. */
  AfterModelBeforeRecord: 'after-model-before-record',
} as const;

/** Kills the current process if {@link CRASH_POINT_ENV} names this point. See {@link CRASH_POINT_ENV}. */
export function crashPoint(name: (typeof CrashPoint)[keyof typeof CrashPoint]): void {
  if (process.env[CRASH_POINT_ENV] === name) process.kill(process.pid, 'SIGKILL');
}
