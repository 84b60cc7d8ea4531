/**
 * The benchmark workload: seven sequential Tasks whose function returns a ~200-byte object, in JSONPath so
 * the very same definition runs on aws-local-stepfunctions (which ignores JSONata).
 */

/**
 * `npm run bench -- --quick` (BENCH_QUICK=1 in every part's process): fewer runs, one repeat, so the whole
 * bench takes a few minutes; the paused and killed runs, which the goals name, stay as they are. Read from
 * the command line as well as the environment: whichever module imports this one first, before any code of
 * the bench's own runs.
 */
export const QUICK = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');

/** Steps per run. */
export const STEPS = 7;
/** Runs one after another. */
export const SEQUENTIAL_RUNS = QUICK ? 50 : 200;
/** Runs with {@link IN_FLIGHT} at a time. */
export const CONCURRENT_RUNS = QUICK ? 300 : 1_000;
export const IN_FLIGHT = 50;
/** Runs left paused on a task token for the memory and restart figures. */
export const PAUSED_RUNS = 10_000;
/** Runs before the measured ones (JIT, caches, file growth). */
export const WARMUP_RUNS = QUICK ? 30 : 100;
/** Measured repetitions of each workload; the median is reported. */
export const REPEATS = QUICK ? 1 : 3;
/** Runs caught in flight by a SIGKILL in the restart figures. */
export const KILLED_IN_FLIGHT_RUNS = 200;

/** Name of the step function in every engine. */
export const STEP_FUNCTION_NAME = 'bench-step';
export const STEP_FUNCTION_ARN = `arn:aws:lambda:us-east-1:123456789012:function:${STEP_FUNCTION_NAME}`;

/** What each step returns: about 200 bytes of JSON. */
export function stepResult(step: number): Record<string, unknown> {
  return {
    step,
    status: 'ok',
    recordId: `rec-${step}-0123456789abcdef`,
    note: 'a step result of about two hundred bytes, like a small tool answer'.padEnd(120, '.'),
  };
}

/** The step function: answers at once, so the figures measure the engine. */
export const stepFunction = async (event: { step?: number }): Promise<Record<string, unknown>> =>
  stepResult(Number(event?.step ?? 0));

/** Seven sequential Tasks on the step function; each keeps only the last result (state stays small). */
export function sevenStepDefinition(functionArn: string = STEP_FUNCTION_ARN): Record<string, unknown> {
  const states: Record<string, unknown> = {};
  for (let i = 1; i <= STEPS; i += 1) {
    states[`Step${i}`] = {
      Type: 'Task',
      Resource: functionArn,
      Parameters: { step: i, 'runId.$': '$.runId' },
      ResultPath: '$.last',
      ...(i < STEPS ? { Next: `Step${i + 1}` } : { End: true }),
    };
  }
  return { Comment: 'benchmark: seven sequential tasks', StartAt: 'Step1', States: states };
}

/** One Task waiting on a task token: the shape of a run paused on an approval. */
export function pausedDefinition(): Record<string, unknown> {
  return {
    StartAt: 'Approval',
    States: {
      Approval: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
        Parameters: { FunctionName: STEP_FUNCTION_ARN, Payload: { 'token.$': '$$.Task.Token', step: 0 } },
        End: true,
      },
    },
  };
}

/** Runs `count` jobs with at most `inFlight` at once. */
export async function runWithConcurrency(
  count: number,
  inFlight: number,
  job: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next;
      next += 1;
      await job(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, worker));
}

/** The median of some numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The parts of the shared measurement, in the order it runs them (the last two {@link REPEATS} times). */
export type WorkloadPart = 'warm-up' | 'one at a time' | 'in flight';

/**
 * The shared measurement: {@link WARMUP_RUNS} runs, then {@link REPEATS} times the sequential and the
 * concurrent workload, each figure the median of its repeats. `run(r)` runs run number `r` (never reused)
 * to its end. `partDone`, when given, is awaited after each part with its runs (before the next part's clock starts).
 */
export async function measureWorkload(
  run: (r: number) => Promise<unknown>,
  partDone: (part: WorkloadPart, runs: number) => Promise<void> = async () => undefined,
): Promise<Pick<WorkloadFigures, 'sequential' | 'concurrent'>> {
  let next = 0;
  for (let w = 0; w < WARMUP_RUNS; w += 1) await run(next++);
  await partDone('warm-up', WARMUP_RUNS);
  const sequential: number[] = [];
  const concurrent: number[] = [];
  for (let rep = 0; rep < REPEATS; rep += 1) {
    let t = performance.now();
    for (let r = 0; r < SEQUENTIAL_RUNS; r += 1) await run(next++);
    sequential.push(secondsSince(t));
    await partDone('one at a time', SEQUENTIAL_RUNS);
    const base = next;
    next += CONCURRENT_RUNS;
    t = performance.now();
    await runWithConcurrency(CONCURRENT_RUNS, IN_FLIGHT, (r) => run(base + r));
    concurrent.push(secondsSince(t));
    await partDone('in flight', CONCURRENT_RUNS);
  }
  return {
    sequential: { runs: SEQUENTIAL_RUNS, seconds: median(sequential) },
    concurrent: { runs: CONCURRENT_RUNS, inFlight: IN_FLIGHT, seconds: median(concurrent) },
  };
}

/** Figures one engine reports for the workload. */
export interface WorkloadFigures {
  readonly sequential: { runs: number; seconds: number };
  readonly concurrent: { runs: number; inFlight: number; seconds: number };
  /** Peak resident set size of the process, bytes. */
  readonly peakRssBytes: number;
  readonly paused?: { runs: number; rssBytes: number; restartSeconds?: number; resumeAllSeconds?: number };
  /** A heap snapshot's breakdown of the engine process with the runs paused (API part). */
  readonly heap?: string;
  /** The same workload as an EXPRESS machine through StartSyncExecution (API part only). */
  readonly expressSync?: Pick<WorkloadFigures, 'sequential' | 'concurrent'>;
  /**
   * Pages (WAL frames) written per step, one run at a time and {@link IN_FLIGHT} in flight: what each
   * fsync'd commit writes (its cost grows with them).
   */
  readonly pagesPerStep?: { sequential: number; concurrent: number };
  /**
   * What the API part's calls cost, as CPU of the engine process (/proc) and of the driver (the SDK client),
   * over every run of the part; and one DescribeExecution's engine CPU (API part only).
   */
  readonly apiCosts?: {
    describeCpuMs: number;
    engineCpuPerRunMs: number;
    driverCpuPerRunMs: number;
    pollsPerRun: number;
    /**
     * Engine CPU per run in each part of the workload, summed over its repeats: the warm-up, one at a time and
     * {@link IN_FLIGHT} in flight (user-driven part; their runs' weighted mean is {@link engineCpuPerRunMs}).
     */
    byPart?: {
      part: WorkloadPart;
      runs: number;
      engineCpuPerRunMs: number;
      /** The collector's pauses of the engine's thread per run, ms (every kind; its helper threads are in the CPU only). */
      gcPausePerRunMs: number;
      /** Young-generation collections per run. */
      scavengesPerRun: number;
      /** Full mark-compacts in the part. */
      fullCollections: number;
    }[];
    /** Engine CPU of a StartExecution alone in flight, ms (user-driven part). */
    startCpuMs?: number;
    /** Engine CPU per DescribeExecution of a closed run in each round of calls, ms (user-driven part: its figure is the median). */
    describeRoundsMs?: number[];
    /** Engine CPU of a DescribeExecution alone in flight while its run steps, ms (user-driven part). */
    describeRunningCpuMs?: number;
    /** How long a run alone in flight had been closed (its stopDate) before a poll saw it, mean ms (user-driven part). */
    closedUnseenMs?: number;
    /** Transactions committed per run, runs one at a time (user-driven part). */
    commitsPerRun?: number;
    /** Wall-clock ms the engine's thread spent on each commit, statements and fsync, runs one at a time (user-driven part). */
    msPerCommit?: number;
    /**
     * One DescribeExecution of a closed run, as CPU of the engine's process (/proc), beside the same call answered by
     * a bare Node HTTP server (bench/http-floor.ts): the floor under any engine (user-driven part).
     */
    describeFloor?: { engineProcessMs: number; floorProcessMs: number };
  };
  /** The same runs waited for with the engine's wait (GET /_autosave/wait) instead of polling (user-driven part). */
  readonly waited?: Pick<WorkloadFigures, 'sequential' | 'concurrent'> & { engineCpuPerRunMs: number };
  readonly notes?: string[];
}

/** Runs measured for the pages-per-step figure, one at a time. */
export const PAGE_SAMPLE_RUNS = 50;

/** Peak RSS of this process so far, bytes. */
export const peakRssBytes = (): number => process.resourceUsage().maxRSS * 1024;

/** Seconds since `start` (from performance.now()). */
export const secondsSince = (start: number): number => (performance.now() - start) / 1000;
