/**
 * The store at scale: the bytes each finished run keeps, boot time, ListExecutions pages, DescribeExecution
 * and GetExecutionHistory with 1,000, 10,000 and 100,000 closed seven-step runs in the store. Every run is
 * a real run of the workload through the engine (durable, as shipped), so the bytes are what a finished
 * run costs; growing the store to 100,000 runs is most of this part's time (printed beside the table).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '@autosave/engine';
import { benchEngine, mustSucceed, ROLE } from './autosave-engine';
import {
  javascriptFunctionsModule,
  measureRestart,
  type RestartFigures,
  type RestartTimings,
  whatTheStartLoads,
} from './restart';
import { median, QUICK, runWithConcurrency, secondsSince, sevenStepDefinition } from './workload';

/** Closed runs in the store at each measurement (--quick: the 100,000 the restart goal names only). */
export const SCALE_SIZES = QUICK ? [100_000] : [1_000, 10_000, 100_000];
/**
 * What the closed runs are: the seven-step workload, or with --quick a one-Pass-state run (two transitions:
 * the store grows in about a minute instead of several; each run's bytes are then a one-state run's).
 */
export const SCALE_RUN = QUICK ? 'one Pass state' : 'seven-step';
/** Runs in flight while the store is grown (only the growing: the timed calls run one at a time). */
const GROW_IN_FLIGHT = 200;
/** Restarts of the largest store, the medians reported (--quick: one): one restart moved by a fifth between runs. */
const RESTART_REPEATS = QUICK ? 1 : 3;

/** One row of the scale table. */
export interface ScaleRow {
  readonly runs: number;
  readonly bytesPerRun: number;
  readonly bootMs: number;
  readonly listFirstPageMs: number;
  readonly listTenthPageMs: number;
  /** A ListExecutions of the machine's FAILED runs (it has none): what a list with a status filter reads. */
  readonly listFailedMs: number;
  readonly describeMs: number;
  readonly historyMs: number;
}

/** What the scale part reports. */
export interface ScaleFigures {
  readonly rows: ScaleRow[];
  /** What the closed runs are ({@link SCALE_RUN}). */
  readonly run: string;
  /** Seconds the whole part took (growing the store included). */
  readonly seconds: number;
  /** `autosave local` killed and restarted on the largest store (bench/restart.ts). */
  readonly restart: RestartFigures;
}

/** Milliseconds of `fn`, median of `times`. */
async function timed(times: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const t = performance.now();
    await fn(i);
    samples.push(secondsSince(t) * 1000);
  }
  return median(samples);
}

const liveBytes = (engine: Engine) => {
  const s = engine.storageStats;
  return (s.pages - s.freePages) * s.pageSize;
};

export async function measureScale(sizes: readonly number[] = SCALE_SIZES): Promise<ScaleFigures> {
  const started = performance.now();
  const dir = await mkdtemp(join(tmpdir(), 'autosave-bench-scale-'));
  try {
    // The layout of `autosave local --data <dir>`: the largest store is then restarted as a process.
    const engineDir = join(dir, 'engine');
    let b = benchEngine(engineDir, []);
    await b.engine.start();
    const definition = QUICK
      ? { StartAt: 'Done', States: { Done: { Type: 'Pass', End: true } } }
      : sevenStepDefinition();
    const { stateMachineArn } = (await b.engine.handle('CreateStateMachine', {
      name: 'seven',
      definition: JSON.stringify(definition),
      roleArn: ROLE,
    })) as { stateMachineArn: string };
    const arnOf = (n: number) => `${stateMachineArn.replace(':stateMachine:', ':execution:')}:c-${n}`;
    const emptyBytes = liveBytes(b.engine);
    const rows: ScaleRow[] = [];
    let have = 0;
    for (const size of sizes) {
      const from = have;
      await runWithConcurrency(size - from, GROW_IN_FLIGHT, async (i) =>
        mustSucceed(await b.run(stateMachineArn, `c-${from + i}`)),
      );
      have = size;
      await b.engine.whenIdle();
      const bytesPerRun = (liveBytes(b.engine) - emptyBytes) / size;
      await b.engine.stop();
      b = benchEngine(engineDir, []);
      const engine = b.engine;
      const t = performance.now();
      await engine.start();
      const bootMs = secondsSince(t) * 1000;
      const page = (token?: string) =>
        engine.handle('ListExecutions', {
          stateMachineArn,
          maxResults: 100,
          ...(token ? { nextToken: token } : {}),
        }) as Promise<{ nextToken?: string }>;
      const listFirstPageMs = await timed(20, () => page());
      let token: string | undefined;
      for (let p = 0; p < 9; p += 1) token = (await page(token)).nextToken;
      const listTenthPageMs = await timed(20, () => page(token));
      const listFailedMs = await timed(20, () =>
        engine.handle('ListExecutions', { stateMachineArn, statusFilter: 'FAILED', maxResults: 100 }),
      );
      // Spread over the whole store (7919 is prime: every run is as likely).
      const describeMs = await timed(200, (i) =>
        engine.handle('DescribeExecution', { executionArn: arnOf((i * 7919) % size) }),
      );
      const historyMs = await timed(50, (i) =>
        engine.handle('GetExecutionHistory', { executionArn: arnOf((i * 7919) % size), maxResults: 1000 }),
      );
      rows.push({
        runs: size,
        bytesPerRun,
        bootMs,
        listFirstPageMs,
        listTenthPageMs,
        listFailedMs,
        describeMs,
        historyMs,
      });
    }
    await b.engine.stop();
    const functionsModule = await javascriptFunctionsModule(dir);
    const restarts: RestartTimings[] = [];
    for (let repeat = 0; repeat < RESTART_REPEATS; repeat += 1)
      restarts.push(await measureRestart({ dataDir: dir, functionsModule, cwd: dir, repeat }));
    const restart: RestartFigures = {
      ...(await whatTheStartLoads({ dataDir: dir, functionsModule, cwd: dir })),
      runsCaught: restarts[0].runsCaught,
      apiSeconds: median(restarts.map((r) => r.apiSeconds)),
      doneSeconds: median(restarts.map((r) => r.doneSeconds)),
      samples: restarts.map(({ apiSeconds, doneSeconds }) => ({ apiSeconds, doneSeconds })),
    };
    return { rows, run: SCALE_RUN, seconds: secondsSince(started), restart };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
