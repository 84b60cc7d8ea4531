/**
 * The benchmark workload: seven sequential Tasks whose function returns a ~200-byte object, in JSONPath so
 * the very same definition runs on aws-local-stepfunctions (which ignores JSONata).
 */

/** Steps per run. */
export const STEPS = 7;
/** Runs one after another. */
export const SEQUENTIAL_RUNS = 200;
/** Runs with {@link IN_FLIGHT} at a time. */
export const CONCURRENT_RUNS = 1_000;
export const IN_FLIGHT = 50;
/** Runs left paused on a task token for the memory and restart figures. */
export const PAUSED_RUNS = 10_000;

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
export const stepFunction = async (event: { step?: number }): Promise<Record<string, unknown>> => stepResult(Number(event?.step ?? 0));

/** Seven sequential Tasks on the step function; each keeps only the last result (state stays small). */
export function sevenStepDefinition(): Record<string, unknown> {
  const states: Record<string, unknown> = {};
  for (let i = 1; i <= STEPS; i += 1) {
    states[`Step${i}`] = {
      Type: 'Task',
      Resource: STEP_FUNCTION_ARN,
      Parameters: { 'step': i, 'runId.$': '$.runId' },
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
export async function runWithConcurrency(count: number, inFlight: number, job: (i: number) => Promise<unknown>): Promise<void> {
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

/** Figures one engine reports for the workload. */
export interface WorkloadFigures {
  readonly sequential: { runs: number; seconds: number };
  readonly concurrent: { runs: number; inFlight: number; seconds: number };
  /** Peak resident set size of the process, bytes. */
  readonly peakRssBytes: number;
  readonly paused?: { runs: number; rssBytes: number; restartSeconds: number; resumeAllSeconds: number };
  readonly notes?: string[];
}

/** Peak RSS of this process so far, bytes. */
export const peakRssBytes = (): number => process.resourceUsage().maxRSS * 1024;

/** Seconds since `start` (from performance.now()). */
export const secondsSince = (start: number): number => (performance.now() - start) / 1000;
