/**
 * `npm run bench -- --quick` sizes the workload from its command line. `bench/run.ts` set BENCH_QUICK from
 * its arguments in its body, but its static imports (the restart module, through it the workload) had read the
 * sizes before that line ran: the bench printed the full workload in its header under `--quick`.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../../scripts/repository-root';

/** The workload's sizes as a process with these arguments (and no BENCH_QUICK) sees them at its first import. */
function sizesWith(...args: string[]): { quick: boolean; sequential: number; repeats: number } {
  const { BENCH_QUICK: _ignored, ...env } = process.env;
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const w = await import(${JSON.stringify(join(REPOSITORY_ROOT, 'bench', 'workload.ts'))});` +
        'console.log(JSON.stringify({ quick: w.QUICK, sequential: w.SEQUENTIAL_RUNS, repeats: w.REPEATS }));',
      '--',
      ...args,
    ],
    { cwd: REPOSITORY_ROOT, encoding: 'utf8', env, timeout: 60_000 },
  );
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as { quick: boolean; sequential: number; repeats: number };
}

describe('the bench workload', () => {
  it('is the quick one when --quick is on the command line, before anything sets BENCH_QUICK', () => {
    expect(sizesWith('--quick')).toEqual({ quick: true, sequential: 50, repeats: 1 });
  }, 60_000);

  it('is the full one otherwise', () => {
    expect(sizesWith()).toEqual({ quick: false, sequential: 200, repeats: 3 });
  }, 60_000);
});
