/**
 * Our engine on the workload, in process (no HTTP: the figures are the engine's), durable as shipped:
 * every transition committed to SQLite with synchronous=FULL before it takes effect, concurrent runs
 * sharing commits (group commit).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, type ExecutionStatusChangeEvent } from '@autosave/engine';
import { InProcessLambdaRunner } from '../packages/local/src/services/lambda/lambda-runner';
import {
  CONCURRENT_RUNS,
  IN_FLIGHT,
  measureWorkload,
  PAGE_SAMPLE_RUNS,
  PAUSED_RUNS,
  STEP_FUNCTION_NAME,
  STEPS,
  pausedDefinition,
  peakRssBytes,
  runWithConcurrency,
  secondsSince,
  sevenStepDefinition,
  stepFunction,
  type WorkloadFigures,
} from './workload';

/** The role every benchmark state machine names. */
export const ROLE = 'arn:aws:iam::123456789012:role/bench';
const CLOSED = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'];

/** An engine whose closed runs resolve promises: completion is an event, not a poll. */
export function benchEngine(dataDir: string, tokens: string[]) {
  const waiting = new Map<string, (status: string) => void>();
  const lambdas = new InProcessLambdaRunner({
    functions: [
      {
        name: STEP_FUNCTION_NAME,
        load: () => async (event: { token?: string; step?: number }) => {
          if (event.token) tokens.push(event.token);
          return stepFunction(event);
        },
        timeoutSeconds: 30,
      },
    ],
  });
  const engine = new Engine({
    dataDir,
    invokeLambda: lambdas.invoke,
    closedStatuses: CLOSED,
    onExecutionClosed: async (event: ExecutionStatusChangeEvent) => {
      const arn = event.detail.executionArn;
      waiting.get(arn)?.(event.detail.status);
      waiting.delete(arn);
    },
  });
  /** Starts a run and resolves with its final status. */
  const run = async (stateMachineArn: string, name: string): Promise<string> => {
    const arn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const closed = new Promise<string>((resolve) => waiting.set(arn, resolve));
    await engine.handle('StartExecution', { stateMachineArn, name, input: JSON.stringify({ runId: name }) });
    return closed;
  };
  const watch = (executionArn: string) => new Promise<string>((resolve) => waiting.set(executionArn, resolve));
  return { engine, run, watch };
}

/** Throws unless a benchmark run ended SUCCEEDED. */
export const mustSucceed = (status: string) => {
  if (status !== 'SUCCEEDED') throw new Error(`a benchmark run ended ${status}`);
};

export async function measureAutosave(): Promise<WorkloadFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'autosave-bench-engine-'));
  const tokens: string[] = [];
  try {
    let b = benchEngine(dir, tokens);
    await b.engine.start();
    const { stateMachineArn } = (await b.engine.handle('CreateStateMachine', {
      name: 'seven',
      definition: JSON.stringify(sevenStepDefinition()),
      roleArn: ROLE,
    })) as { stateMachineArn: string };

    const { sequential, concurrent } = await measureWorkload(async (r) =>
      mustSucceed(await b.run(stateMachineArn, `run-${r}`)),
    );
    const sequentialPages = await b.engine.walFramesDuring(async () => {
      for (let r = 0; r < PAGE_SAMPLE_RUNS; r += 1) mustSucceed(await b.run(stateMachineArn, `paged-${r}`));
    });
    const commitsBefore = b.engine.commitStats;
    const concurrentPages = await b.engine.walFramesDuring(() =>
      runWithConcurrency(CONCURRENT_RUNS, IN_FLIGHT, async (r) =>
        mustSucceed(await b.run(stateMachineArn, `counted-${r}`)),
      ),
    );
    const commitsAfter = b.engine.commitStats;
    const commits = commitsAfter.commits - commitsBefore.commits;
    const writes = commitsAfter.writes - commitsBefore.writes;
    const peakAfterWorkload = peakRssBytes();

    // 10,000 runs paused on task tokens (the shape of runs waiting on approvals).
    const { stateMachineArn: pausedArn } = (await b.engine.handle('CreateStateMachine', {
      name: 'paused',
      definition: JSON.stringify(pausedDefinition()),
      roleArn: ROLE,
    })) as { stateMachineArn: string };
    await runWithConcurrency(PAUSED_RUNS, IN_FLIGHT, (r) =>
      b.engine.handle('StartExecution', { stateMachineArn: pausedArn, name: `p-${r}`, input: '{}' }),
    );
    while (tokens.length < PAUSED_RUNS) await new Promise((r) => setTimeout(r, 20));
    await b.engine.whenIdle();
    (globalThis as { gc?: () => void }).gc?.();
    const pausedRss = process.memoryUsage().rss;

    // Restart: a new engine on the same file, then every paused run carried on to its end.
    await b.engine.stop();
    b = benchEngine(dir, []);
    const t = performance.now();
    await b.engine.start();
    const restartSeconds = secondsSince(t);
    const pausedPrefix = pausedArn.replace(':stateMachine:', ':execution:');
    await runWithConcurrency(PAUSED_RUNS, IN_FLIGHT, async (r) => {
      const closed = b.watch(`${pausedPrefix}:p-${r}`);
      await b.engine.handle('SendTaskSuccess', { taskToken: tokens[r], output: '{"approved":true}' });
      mustSucceed(await closed);
    });
    const resumeAllSeconds = secondsSince(t);
    await b.engine.stop();
    return {
      sequential,
      concurrent,
      peakRssBytes: peakAfterWorkload,
      pagesPerStep: {
        sequential: sequentialPages / (PAGE_SAMPLE_RUNS * STEPS),
        concurrent: concurrentPages / (CONCURRENT_RUNS * STEPS),
      },
      paused: { runs: PAUSED_RUNS, rssBytes: pausedRss, restartSeconds, resumeAllSeconds },
      notes: [
        `${(writes / Math.max(1, commits)).toFixed(1)} transitions per fsync'd commit with ${IN_FLIGHT} in flight (group commit); ` +
          `${commits} commits for ${CONCURRENT_RUNS * STEPS} steps`,
      ],
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
