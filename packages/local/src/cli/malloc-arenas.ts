import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/**
 * glibc malloc arenas `autosave rehearse` runs with. Every Lambda sandbox is a worker thread and glibc gives
 * each thread an arena of its own (up to 8 per core), each keeping what it freed. npm run rehearse (2 Dec
 * 2026): --runs 10000 peak RSS 445 MiB uncapped -> 415 MiB at two arenas; --runs 2000 387 MiB at two ->
 * 360 MiB at one, CPU the same (183 and 186 s user): the V8 heaps are not malloc's, so one lock is enough.
 */
export const MALLOC_ARENAS = '1';

/** The commands that run with the cap: `autosave local` is left alone (a restart answers first: no second start). */
const CAPPED_COMMANDS: ReadonlySet<string> = new Set(['rehearse']);

/** Runs `command args` with `env`, its output this process's, and resolves to its exit code. */
export type Relaunch = (command: string, args: string[], env: NodeJS.ProcessEnv) => Promise<number>;

/** Options of {@link relaunchWithMallocArenaCap}: this process's, replaceable by tests. */
export interface RelaunchOptions {
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** @default process.platform */
  readonly platform?: NodeJS.Platform;
  /** @default process.execPath */
  readonly execPath?: string;
  /** @default process.execArgv */
  readonly execArgv?: readonly string[];
  /** The entry script (bin/autosave.js or the package's dist/bin.js). @default process.argv[1] */
  readonly script?: string;
  /** @default a child process sharing this one's stdio, this process's SIGINT/SIGTERM/SIGHUP passed on */
  readonly relaunch?: Relaunch;
}

const spawnInherited: Relaunch = (command, args, env) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: 'inherit' });
    // Ctrl-C reaches the child from the terminal itself (one process group): this process waits for its exit.
    // A SIGTERM or SIGHUP sent to this process alone is passed on.
    const pass = (signal: NodeJS.Signals) => void (signal === 'SIGINT' || child.kill(signal));
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    for (const s of signals) process.on(s, pass);
    const done = () => signals.forEach((s) => process.off(s, pass));
    child.once('error', (err) => (done(), reject(err)));
    child.once('exit', (code, signal) => (done(), resolve(code ?? 128 + (signal ? constants.signals[signal] : 0))));
  });

/**
 * glibc reads MALLOC_ARENA_MAX once, when the process starts, so a command cannot cap its own arenas: for a
 * command in {@link CAPPED_COMMANDS} run without the variable, the same command is run again as a child with
 * it set to {@link MALLOC_ARENAS}. Resolves to the child's exit code, or undefined when this process is to run
 * the command itself (the variable set, by the user or because this is the child; another command; `--help`;
 * not Linux).
 */
export async function relaunchWithMallocArenaCap(argv: readonly string[], options: RelaunchOptions = {}): Promise<number | undefined> {
  const env = options.env ?? process.env;
  if ((options.platform ?? process.platform) !== 'linux') return undefined;
  if (!CAPPED_COMMANDS.has(argv[0] ?? '') || argv.includes('--help') || argv.includes('-h')) return undefined;
  if (env.MALLOC_ARENA_MAX !== undefined) return undefined;
  const args = [...(options.execArgv ?? process.execArgv), options.script ?? process.argv[1], ...argv];
  return (options.relaunch ?? spawnInherited)(options.execPath ?? process.execPath, args, { ...env, MALLOC_ARENA_MAX: MALLOC_ARENAS });
}
