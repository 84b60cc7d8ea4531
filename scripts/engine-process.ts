import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { STOP_WITH_PARENT_ENV } from '../packages/local/src/cli/parent-watch';

/** The `autosave` executable (bin/autosave.js), run with the current Node. */
export const AUTOSAVE_BIN = fileURLToPath(new URL('../bin/autosave.js', import.meta.url));

/** How long an engine may take to start listening. @default 60 s */
export const DEFAULT_ENGINE_START_TIMEOUT_MILLIS = 60_000;

/** Options of {@link spawnEngine}. */
export interface SpawnEngineOptions {
  readonly dataDir: string;
  /** 0 picks a free port. @default 0 */
  readonly port?: number;
  readonly virtualClock?: boolean;
  /** The project's config file (`autosave local --config`). @default the one found from the current directory */
  readonly configFile?: string;
  /** A module of more Lambda functions (`autosave local --functions`). @default none */
  readonly functionsModule?: string;
  /** The child's working directory (where it looks for autosave.config.ts). @default this process's */
  readonly cwd?: string;
  /** Extra environment for the child (e.g. a crash point). */
  readonly env?: Readonly<Record<string, string>>;
  /** Receives the child's output lines. @default dropped */
  readonly onOutput?: (line: string) => void;
  /** Boot from a cloud assembly (`autosave local --app <dir>`, with `--enforce-iam` when asked). @default the registry path */
  readonly stack?: { readonly assemblyDir: string; readonly enforceIam?: boolean };
  /** How long it may take to start listening. @default {@link DEFAULT_ENGINE_START_TIMEOUT_MILLIS} */
  readonly startTimeoutMillis?: number;
  /** Node flags for the child, before the script (e.g. `--perf-basic-prof`, which NODE_OPTIONS refuses). @default none */
  readonly nodeFlags?: readonly string[];
  /** The `autosave` executable to run: another checkout's, to compare two builds. @default {@link AUTOSAVE_BIN} */
  readonly bin?: string;
}

/** How a child process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** `autosave local` running as a child process. */
export interface EngineProcess {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Resolves when the process has ended, however it ended. */
  readonly exited: Promise<ProcessExit>;
  /** Stops it with SIGTERM (a clean stop) and waits for the exit. */
  stop(): Promise<ProcessExit>;
  /** The highest resident set size it has had so far (Linux's VmHWM), or undefined where /proc does not say (or once it has exited). */
  peakRssBytes(): number | undefined;
}

/** The peak resident set size of a live process, from /proc/<pid>/status (Linux), in bytes; undefined elsewhere. */
export function peakRssOfProcess(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:(\d+))/;

/**
 * Starts `autosave local` as a child process (its own process, so it can be SIGKILLed without taking the
 * caller down) and resolves once it listens, with the URL it printed.
 */
export function spawnEngine(options: SpawnEngineOptions): Promise<EngineProcess> {
  const args = [options.bin ?? AUTOSAVE_BIN, 'local', '--port', String(options.port ?? 0), '--data', options.dataDir];
  if (options.virtualClock) args.push('--virtual-clock');
  if (options.configFile) args.push('--config', options.configFile);
  if (options.functionsModule) args.push('--functions', options.functionsModule);
  if (options.stack)
    args.push('--app', options.stack.assemblyDir, ...(options.stack.enforceIam ? ['--enforce-iam'] : []));
  const startTimeout = options.startTimeoutMillis ?? DEFAULT_ENGINE_START_TIMEOUT_MILLIS;
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeFlags ?? []), ...args], {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: { ...process.env, [STOP_WITH_PARENT_ENV]: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<ProcessExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the engine did not start within ${startTimeout / 1000}s:\n${output.slice(-2000)}`));
    }, startTimeout);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      for (const line of text.split('\n')) if (line.trim()) options.onOutput?.(line);
      const match = LISTENING.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.on('data', (c: Buffer) =>
          c
            .toString()
            .split('\n')
            .filter((l) => l.trim())
            .forEach((l) => options.onOutput?.(l)),
        );
        resolve({
          url: match[1],
          port: Number(match[2]),
          pid: child.pid!,
          exited,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            return exited;
          },
          peakRssBytes: () =>
            child.exitCode === null && child.signalCode === null ? peakRssOfProcess(child.pid!) : undefined,
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => {
      output += c.toString();
      c.toString()
        .split('\n')
        .filter((l) => l.trim())
        .forEach((l) => options.onOutput?.(l));
    });
    void exited.then((exit) => {
      clearTimeout(timer);
      reject(
        new Error(
          `the engine exited before listening (code ${exit.code}, signal ${exit.signal}):\n${output.slice(-2000)}`,
        ),
      );
    });
  });
}
