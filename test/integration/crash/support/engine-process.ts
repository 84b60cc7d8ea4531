/**
 * Runs `autosave local` as a child process, as a user would (`node bin/autosave.js local`), for tests
 * that must kill it for real.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { STOP_WITH_PARENT_ENV } from '../../../../packages/local/src/cli/parent-watch';

const PROJECT_ROOT = resolve(fileURLToPath(new URL('./', import.meta.url)), '../../../..');
const LISTENING = /listening on (http:\/\/127\.0\.0\.1:(\d+))/;

/** A running engine child. */
export interface EngineProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly pid: number;
  /** Everything it printed so far. */
  output(): string;
  /** SIGKILL, and resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGTERM (a clean stop), resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Options of {@link startEngineProcess}. */
export interface EngineProcessOptions {
  readonly dataDir: string;
  readonly functionsModule?: string;
  /** More flags of `autosave local` (e.g. `--app <cdk.out>`). */
  readonly extraArgs?: readonly string[];
  readonly env?: Record<string, string>;
  /** @default 60_000 */
  readonly startTimeoutMillis?: number;
  /** @default 0 (a free port) */
  readonly port?: number;
  /** Run with `--virtual-clock`. @default false */
  readonly virtualClock?: boolean;
  /** The folder it runs in, where its autosave.config.ts is looked for. @default the repository root (the example app) */
  readonly cwd?: string;
}

/** Starts `autosave local --port 0` and resolves once it says where it listens. */
export async function startEngineProcess(options: EngineProcessOptions): Promise<EngineProcess> {
  const args = [
    resolve(PROJECT_ROOT, 'bin/autosave.js'),
    'local',
    '--port',
    String(options.port ?? 0),
    '--data',
    options.dataDir,
  ];
  if (options.virtualClock) args.push('--virtual-clock');
  if (options.functionsModule) args.push('--functions', options.functionsModule);
  if (options.extraArgs) args.push(...options.extraArgs);
  const child = spawn(process.execPath, args, {
    cwd: options.cwd ?? PROJECT_ROOT,
    // A test that times out or is killed leaves no engine behind.
    env: {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      [STOP_WITH_PARENT_ENV]: '1',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`engine did not start in time:\n${out}`)),
      options.startTimeoutMillis ?? 60_000,
    );
    const check = () => {
      const m = LISTENING.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolveUrl(m[1]);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`engine exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    child,
    url,
    pid: child.pid!,
    output: () => out,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const [code] = await exited;
      return code as number | null;
    },
  };
}
