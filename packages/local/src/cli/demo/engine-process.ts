import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The `autosave` executable (bin/autosave.js), run with the current Node. */
export const AUTOSAVE_BIN = fileURLToPath(new URL('../../../../../bin/autosave.js', import.meta.url));

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
}

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:(\d+))/;

/**
 * Starts `autosave local` as a child process (its own process, so it can be SIGKILLed without taking the
 * caller down) and resolves once it listens, with the URL it printed.
 */
export function spawnEngine(options: SpawnEngineOptions): Promise<EngineProcess> {
  const args = [AUTOSAVE_BIN, 'local', '--port', String(options.port ?? 0), '--data', options.dataDir];
  if (options.virtualClock) args.push('--virtual-clock');
  if (options.configFile) args.push('--config', options.configFile);
  if (options.functionsModule) args.push('--functions', options.functionsModule);
  const child: ChildProcess = spawn(process.execPath, args, {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<ProcessExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the engine did not start within ${DEFAULT_ENGINE_START_TIMEOUT_MILLIS / 1000}s:\n${output.slice(-2000)}`));
    }, DEFAULT_ENGINE_START_TIMEOUT_MILLIS);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      for (const line of text.split('\n')) if (line.trim()) options.onOutput?.(line);
      const match = LISTENING.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.on('data', (c: Buffer) => c.toString().split('\n').filter((l) => l.trim()).forEach((l) => options.onOutput?.(l)));
        resolve({
          url: match[1],
          port: Number(match[2]),
          pid: child.pid!,
          exited,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => {
      output += c.toString();
      c.toString().split('\n').filter((l) => l.trim()).forEach((l) => options.onOutput?.(l));
    });
    void exited.then((exit) => {
      clearTimeout(timer);
      reject(new Error(`the engine exited before listening (code ${exit.code}, signal ${exit.signal}):\n${output.slice(-2000)}`));
    });
  });
}
