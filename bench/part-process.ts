/**
 * One part of `npm run bench` in a process of its own (so its RSS is its own, with `--expose-gc`): the child
 * runs `bench/run.ts --part <part>` and prints its figures on one line after {@link RESULT_PREFIX}.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { QUICK } from './workload';

/** What starts the line a part's process prints its figures on (JSON after it). */
export const RESULT_PREFIX = 'BENCH_RESULT ';

const RUN_SCRIPT = fileURLToPath(new URL('./run.ts', import.meta.url));

/**
 * Runs `part` in a child process and resolves with the figures it printed.
 * @param env more environment for the child (e.g. `BENCH_ENGINE_BIN`), over this process's
 */
export function runPartProcess<T>(part: string, env: NodeJS.ProcessEnv = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', RUN_SCRIPT, '--part', part], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        ...(QUICK ? { BENCH_QUICK: '1' } : {}),
        ...env,
      },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (code !== 0 || !line) reject(new Error(`bench part ${part} failed (exit ${code}):\n${out}`));
      else resolve(JSON.parse(line.slice(RESULT_PREFIX.length)) as T);
    });
  });
}
