/**
 * Our engine as users run it: `autosave local` in its own process, driven through the Step Functions API
 * by `@aws-sdk/client-sfn` — StartExecution, then DescribeExecution polled until the run closes. Also the
 * engine process's own RSS (from /proc: the driver is not counted) at its peak under load and with 10,000
 * runs paused on task tokens, and a heap snapshot of the paused engine broken down (bench/heap-snapshot.ts). The
 * engine runs in a directory of its own, without a project config: its functions are the bench's.
 */
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
  StartSyncExecutionCommand,
} from '@aws-sdk/client-sfn';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnEngine, type EngineProcess } from '../scripts/engine-process';
import { waitForRunToClose } from '../packages/local/src/api/wait-for-run';
import {
  CPU_ACCOUNTING_ENV,
  CPU_ACCOUNTING_ROUTE,
  type CpuAccountingReport,
  type GcKind,
} from '../packages/local/src/api/cpu-accounting';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { startHttpFloorServer } from './http-floor';
import { describeHeap, heapBreakdown, heapSnapshotOf, processRss, rssBreakdown } from './heap-snapshot';
import { ENGINE_BIN } from './engine-bin';
import { javascriptFunctionsModule, waitForLines } from './restart';
import {
  CONCURRENT_RUNS,
  IN_FLIGHT,
  measureWorkload,
  median,
  PAUSED_RUNS,
  pausedDefinition,
  peakRssBytes,
  runWithConcurrency,
  secondsSince,
  sevenStepDefinition,
  type WorkloadFigures,
  type WorkloadPart,
} from './workload';

const ROLE = 'arn:aws:iam::123456789012:role/bench';
const fnArn = (name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`;
/** Between two DescribeExecution polls of one run. */
export const POLL_INTERVAL_MILLIS = 1;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;
/** CPU seconds (user + system) another process has used so far. */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
}
const ownCpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
/** DescribeExecution calls of one closed run whose engine CPU is averaged. */
const DESCRIBE_COST_CALLS = 2_000;
/** Rounds the user-driven part splits {@link DESCRIBE_COST_CALLS} into (the median round is its figure). */
const DESCRIBE_ROUNDS = 5;

/** Waits between the DescribeExecution polls of one run, by poll number (0 for the first wait). */
export type PollDelay = (poll: number) => number;

/** The user-driven part's polling: 1 ms, doubling up to 20 ms (the outside harness's, issue 34). */
export const backoffPollDelay: PollDelay = (poll) => Math.min(20, 2 ** poll);

/**
 * Runs of the seven-step machine through the SDK, as a user's code runs them: StartExecution, then
 * DescribeExecution until the run has closed, waiting `delay(poll)` between polls. Counts runs and polls,
 * and how long each run was closed (its stopDate) before a poll saw it.
 */
export function apiRunDriver(sfn: SFNClient, stateMachineArn: string, delay: PollDelay) {
  const driver = {
    runs: 0,
    polls: 0,
    /** Sum over runs of (when a poll saw the run closed) - (its stopDate), milliseconds. */
    closedUnseenMillis: 0,
    lastArn: '',
    runToEnd: async (r: number): Promise<void> => {
      const { executionArn } = await sfn.send(
        new StartExecutionCommand({ stateMachineArn, name: `run-${r}`, input: JSON.stringify({ runId: `run-${r}` }) }),
      );
      driver.runs += 1;
      driver.lastArn = executionArn!;
      for (let poll = 0; ; poll += 1) {
        driver.polls += 1;
        const { status, stopDate } = await sfn.send(new DescribeExecutionCommand({ executionArn }));
        if (status === 'SUCCEEDED') {
          driver.closedUnseenMillis += Date.now() - stopDate!.getTime();
          return;
        }
        if (status !== 'RUNNING') throw new Error(`a benchmark run ended ${status}`);
        await sleep(delay(poll));
      }
    },
  };
  return driver;
}

/**
 * Creates the seven-step machine (on the bench's step function) through `sfn` and drives its runs as a user's
 * code does ({@link apiRunDriver}, polls backing off from 1 ms to 20 ms): the user-driven parts' set-up.
 */
export async function userDrivenRuns(
  sfn: SFNClient,
): Promise<{ stateMachineArn: string; driver: ReturnType<typeof apiRunDriver> }> {
  const { stateMachineArn } = await sfn.send(
    new CreateStateMachineCommand({
      name: 'bench-seven',
      definition: JSON.stringify(sevenStepDefinition(fnArn('bench-step'))),
      roleArn: ROLE,
    }),
  );
  return { stateMachineArn: stateMachineArn!, driver: apiRunDriver(sfn, stateMachineArn!, backoffPollDelay) };
}

/** Options of {@link measureApi}. */
export interface ApiOptions {
  /** Only the memory figures: {@link CONCURRENT_RUNS} runs {@link IN_FLIGHT} in flight, then the paused runs. @default false */
  readonly memoryOnly?: boolean;
}

export async function measureApi(options: ApiOptions = {}): Promise<WorkloadFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'autosave-bench-api-'));
  const signalFile = join(dir, 'signals.txt');
  let engine: EngineProcess | undefined;
  try {
    const functionsModule = await javascriptFunctionsModule(dir);
    engine = await spawnEngine({
      bin: ENGINE_BIN,
      dataDir: join(dir, 'data'),
      functionsModule,
      cwd: dir,
      env: {
        BENCH_SIGNAL_FILE: signalFile,
        NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 ${process.env.BENCH_ENGINE_NODE_OPTIONS ?? ''}`,
      },
    });
    // disableHostPrefix: the SDK sends StartSyncExecution to `sync-<host>` otherwise.
    const sfn = new SFNClient({
      endpoint: engine.url,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      disableHostPrefix: true,
    });
    const create = async (name: string, definition: object, type: 'STANDARD' | 'EXPRESS' = 'STANDARD') =>
      (
        await sfn.send(
          new CreateStateMachineCommand({ name, definition: JSON.stringify(definition), roleArn: ROLE, type }),
        )
      ).stateMachineArn!;
    const seven = await create('bench-seven', sevenStepDefinition(fnArn('bench-step')));
    const paused = await create('bench-paused', pausedDefinition());

    const driver = apiRunDriver(sfn, seven, () => POLL_INTERVAL_MILLIS);
    const runToEnd = driver.runToEnd;
    const once = async () => {
      const t = performance.now();
      await runWithConcurrency(CONCURRENT_RUNS, IN_FLIGHT, runToEnd);
      return {
        sequential: { runs: 0, seconds: Number.NaN },
        concurrent: { runs: CONCURRENT_RUNS, inFlight: IN_FLIGHT, seconds: secondsSince(t) },
      };
    };
    const [engineCpu, driverCpu] = [processCpuSeconds(engine.pid), ownCpuSeconds()];
    const figures = options.memoryOnly ? await once() : await measureWorkload(runToEnd);
    const underLoad = processRss(engine.pid).peak;
    const perRunMs = (cpuSeconds: number) => (cpuSeconds * 1000) / driver.runs;
    const costs = {
      engineCpuPerRunMs: perRunMs(processCpuSeconds(engine.pid) - engineCpu),
      driverCpuPerRunMs: perRunMs(ownCpuSeconds() - driverCpu),
      pollsPerRun: driver.polls / driver.runs,
    };
    const describeFrom = processCpuSeconds(engine.pid);
    for (let i = 0; i < DESCRIBE_COST_CALLS; i += 1)
      await sfn.send(new DescribeExecutionCommand({ executionArn: driver.lastArn }));
    const apiCosts = {
      ...costs,
      describeCpuMs: ((processCpuSeconds(engine.pid) - describeFrom) * 1000) / DESCRIBE_COST_CALLS,
    };

    let expressSync: WorkloadFigures['expressSync'];
    if (!options.memoryOnly) {
      const express = await create('bench-seven-express', sevenStepDefinition(fnArn('bench-step')), 'EXPRESS');
      expressSync = await measureWorkload(async (r) => {
        const { status } = await sfn.send(
          new StartSyncExecutionCommand({
            stateMachineArn: express,
            name: `x-${r}`,
            input: JSON.stringify({ runId: `x-${r}` }),
          }),
        );
        if (status !== 'SUCCEEDED') throw new Error(`an express benchmark run ended ${status}`);
      });
    }

    await runWithConcurrency(PAUSED_RUNS, IN_FLIGHT, (r) =>
      sfn.send(new StartExecutionCommand({ stateMachineArn: paused, name: `p-${r}`, input: '{}' })),
    );
    await waitForLines(signalFile, PAUSED_RUNS);
    await sleep(500); // let the last commits land and the heap settle
    const pausedRss = processRss(engine.pid);
    const byMapping = rssBreakdown(engine.pid);
    const heap = describeHeap(heapBreakdown(await heapSnapshotOf(engine.pid, dir)), byMapping);
    sfn.destroy();
    return {
      ...figures,
      ...(expressSync ? { expressSync } : {}),
      peakRssBytes: underLoad,
      apiCosts,
      paused: { runs: PAUSED_RUNS, rssBytes: pausedRss.rss },
      heap,
      notes: [
        'engine started as `autosave local --functions <bench functions as JavaScript>` in a directory without a project config',
        `driver process peak RSS ${(peakRssBytes() / 2 ** 20).toFixed(0)} MiB (not counted)`,
      ],
    };
  } finally {
    if (engine) await engine.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Rounds of {@link describeBesideFloor}, each {@link DESCRIBE_COST_CALLS} calls to either side. */
const FLOOR_ROUNDS = 3;

/**
 * DescribeExecution of a closed run beside the floor of any answer through Node's HTTP server
 * (bench/http-floor.ts): the same SDK client settings, the CPU of either process from /proc, rounds interleaved so
 * that the machine's moods fall on both; the fastest round of each.
 */
async function describeBesideFloor(
  sfn: SFNClient,
  enginePid: number,
  executionArn: string,
): Promise<{ engineProcessMs: number; floorProcessMs: number }> {
  const floor = await startHttpFloorServer();
  const floorClient = new SFNClient({ endpoint: floor.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const perCall = async (client: SFNClient, pid: number) => {
    const from = processCpuSeconds(pid);
    for (let i = 0; i < DESCRIBE_COST_CALLS; i += 1) await client.send(new DescribeExecutionCommand({ executionArn }));
    return ((processCpuSeconds(pid) - from) * 1000) / DESCRIBE_COST_CALLS;
  };
  try {
    await perCall(floorClient, floor.pid); // its warm-up: the engine's calls are warm already
    let [engineProcessMs, floorProcessMs] = [Infinity, Infinity];
    for (let round = 0; round < FLOOR_ROUNDS; round += 1) {
      engineProcessMs = Math.min(engineProcessMs, await perCall(sfn, enginePid));
      floorProcessMs = Math.min(floorProcessMs, await perCall(floorClient, floor.pid));
    }
    return { engineProcessMs, floorProcessMs };
  } finally {
    floorClient.destroy();
    await floor.stop();
  }
}

/** Runs one at a time after the workload, for where a lone run's time goes (commits, the poll's lag). */
const ONE_AT_A_TIME_SAMPLE_RUNS = 50;

/** The example app's folder: where `npm start` runs `autosave local` (its autosave.config.ts). */
export const EXAMPLE_APP_DIR = fileURLToPath(new URL('..', import.meta.url));

/** What the engine's CPU accounting answers (packages/local/src/api/cpu-accounting.ts). */
async function engineCpu(url: string): Promise<CpuAccountingReport> {
  return (await fetch(`${url}${CPU_ACCOUNTING_ROUTE}`)).json() as Promise<CpuAccountingReport>;
}

/** The collector's pauses of the engine's thread between two reports. */
interface GcFigures {
  /** Every kind's pauses, ms. */
  pauseMillis: number;
  scavenges: number;
  /** Full mark-compacts. */
  fullCollections: number;
}

function gcBetween(before: CpuAccountingReport, after: CpuAccountingReport): GcFigures {
  const [from, to] = [before.gc, after.gc];
  // An engine built before the accounting reported its collections (BENCH_ENGINE_BIN): nothing to say.
  if (!from || !to) return { pauseMillis: Number.NaN, scavenges: Number.NaN, fullCollections: Number.NaN };
  const kinds = Object.keys(to) as GcKind[];
  return {
    pauseMillis: kinds.reduce((sum, kind) => sum + to[kind].millis - from[kind].millis, 0),
    scavenges: to.minor.count - from.minor.count,
    fullCollections: to.major.count - from.major.count,
  };
}

/** CPU milliseconds per alone call of an operation between two reports. */
function perCallMs(before: CpuAccountingReport, after: CpuAccountingReport, operation: string): number {
  const a = after.operations[operation];
  const b = before.operations[operation] ?? { aloneCalls: 0, cpuMicros: 0 };
  return a ? (a.cpuMicros - b.cpuMicros) / 1000 / (a.aloneCalls - b.aloneCalls) : Number.NaN;
}

/**
 * The API path as users drive it (issue 34): `autosave local` started in the example app's folder as
 * `npm start` starts it (its autosave.config.ts found from there, its workflows, functions and model
 * script loaded; `--functions` adds the bench's step, `--data` a directory of the bench's own), driven by
 * `@aws-sdk/client-sfn` with DescribeExecution polled 1 ms doubling to 20 ms. Engine CPU comes from the
 * engine itself (AUTOSAVE_CPU_ACCOUNTING=1: process.cpuUsage, every thread, read at GET /_autosave/cpu):
 * per run over every measured run, per operation over the calls alone in flight (one at a time), and one
 * DescribeExecution of a closed run from 2,000 calls in a row.
 */
export async function measureUserApi(): Promise<WorkloadFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'autosave-bench-api-user-'));
  let engine: EngineProcess | undefined;
  try {
    engine = await spawnEngine({
      bin: ENGINE_BIN,
      dataDir: join(dir, 'data'),
      functionsModule: await javascriptFunctionsModule(dir),
      cwd: EXAMPLE_APP_DIR,
      env: { [CPU_ACCOUNTING_ENV]: '1' },
    });
    const sfn = new SFNClient({ endpoint: engine.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const { stateMachineArn, driver } = await userDrivenRuns(sfn);
    const [before, driverCpu] = [await engineCpu(engine.url), ownCpuSeconds()];
    // Each part's CPU, read between parts: the per-run figure is their weighted mean, and the parts differ by more.
    const parts = new Map<WorkloadPart, { runs: number; cpuMicros: number; gc: GcFigures }>();
    let partFrom = before;
    const figures = await measureWorkload(driver.runToEnd, async (part, runs) => {
      const now = await engineCpu(engine!.url);
      const sum = parts.get(part) ?? {
        runs: 0,
        cpuMicros: 0,
        gc: { pauseMillis: 0, scavenges: 0, fullCollections: 0 },
      };
      const gc = gcBetween(partFrom, now);
      parts.set(part, {
        runs: sum.runs + runs,
        cpuMicros: sum.cpuMicros + now.processCpuMicros - partFrom.processCpuMicros,
        gc: {
          pauseMillis: sum.gc.pauseMillis + gc.pauseMillis,
          scavenges: sum.gc.scavenges + gc.scavenges,
          fullCollections: sum.gc.fullCollections + gc.fullCollections,
        },
      });
      partFrom = now;
    });
    const after = await engineCpu(engine.url);
    const driverCpuPerRunMs = ((ownCpuSeconds() - driverCpu) * 1000) / driver.runs;
    // Where one run's time goes when it is alone: its commits in series and the wait for the poll that sees it closed.
    const [alone, unseenBefore, runsBefore, pollsBefore] = [
      after,
      driver.closedUnseenMillis,
      driver.runs,
      driver.polls,
    ];
    for (let i = 0; i < ONE_AT_A_TIME_SAMPLE_RUNS; i += 1) await driver.runToEnd(1_000_000 + i);
    const aloneAfter = await engineCpu(engine.url);
    const commitsPerRun = (aloneAfter.commits!.commits - alone.commits!.commits) / ONE_AT_A_TIME_SAMPLE_RUNS;
    const msPerCommit =
      (aloneAfter.commits!.flushMillis - alone.commits!.flushMillis) /
      (aloneAfter.commits!.commits - alone.commits!.commits);
    const closedUnseenMs = (driver.closedUnseenMillis - unseenBefore) / (driver.runs - runsBefore);
    // Rounds, the median reported: the process's CPU is every thread's, so a round also carries whatever the
    // collector's and the compiler's threads do meanwhile, and this machine's speed moves by half within minutes.
    const describeRoundsMs: number[] = [];
    for (let round = 0; round < DESCRIBE_ROUNDS; round += 1) {
      const from = await engineCpu(engine.url);
      for (let i = 0; i < DESCRIBE_COST_CALLS / DESCRIBE_ROUNDS; i += 1)
        await sfn.send(new DescribeExecutionCommand({ executionArn: driver.lastArn }));
      describeRoundsMs.push(perCallMs(from, await engineCpu(engine.url), 'DescribeExecution'));
    }
    const describeFloor = await describeBesideFloor(sfn, engine.pid, driver.lastArn);
    // The same runs waited for with the engine's wait (GET /_autosave/wait) instead of polling, their CPU
    // counted from here: the floor's comparison above calls the engine too.
    const beforeWaited = await engineCpu(engine.url);
    let waitedRuns = 0;
    const waited = await measureWorkload(async (r) => {
      const { executionArn } = await sfn.send(
        new StartExecutionCommand({ stateMachineArn, name: `w-${r}`, input: JSON.stringify({ runId: `w-${r}` }) }),
      );
      waitedRuns += 1;
      const status = await waitForRunToClose(engine!.url, executionArn!, 60_000);
      if (status !== 'SUCCEEDED') throw new Error(`a benchmark run ended ${status}`);
    });
    const afterWaited = await engineCpu(engine.url);
    sfn.destroy();
    return {
      ...figures,
      peakRssBytes: engine.peakRssBytes() ?? 0,
      apiCosts: {
        engineCpuPerRunMs: (after.processCpuMicros - before.processCpuMicros) / 1000 / runsBefore,
        driverCpuPerRunMs,
        pollsPerRun: pollsBefore / runsBefore,
        byPart: [...parts].map(([part, { runs, cpuMicros, gc }]) => ({
          part,
          runs,
          engineCpuPerRunMs: cpuMicros / 1000 / runs,
          gcPausePerRunMs: gc.pauseMillis / runs,
          scavengesPerRun: gc.scavenges / runs,
          fullCollections: gc.fullCollections,
        })),
        describeCpuMs: median(describeRoundsMs),
        describeRoundsMs,
        startCpuMs: perCallMs(before, after, 'StartExecution'),
        describeRunningCpuMs: perCallMs(before, after, 'DescribeExecution'),
        closedUnseenMs,
        commitsPerRun,
        msPerCommit,
        describeFloor,
      },
      waited: {
        ...waited,
        engineCpuPerRunMs: (afterWaited.processCpuMicros - beforeWaited.processCpuMicros) / 1000 / waitedRuns,
      },
      notes: [
        "engine started as `npm start` starts it, in the example app's folder (its autosave.config.ts), with --functions <bench functions> and --data <a directory of its own>; DescribeExecution polled 1 ms doubling to 20 ms",
      ],
    };
  } finally {
    if (engine) await engine.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
