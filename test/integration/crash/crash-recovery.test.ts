/**
 * The crash test: 150 runs of a seven-step machine, the engine process SIGKILLed at random points while
 * they are in flight, restarted each time on the same data directory. Every run must complete, no step
 * that completed may run again, a step caught in flight is re-invoked at most once per kill that caught it,
 * and every side effect happens exactly once through its idempotency key.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  ListExecutionsCommand,
  SFNClient,
  StartExecutionCommand,
  type HistoryEvent,
} from '@aws-sdk/client-sfn';
import { startEngineProcess, type EngineProcess } from './support/engine-process';
import { getFullHistory } from '../../../packages/local/src/operations';
import { resendStartExecution } from '../local/sfn-helpers';
import { eventually } from '../../fixtures/wait';
import { cleanupAfterAll } from '../../fixtures/cleanup';

const RUNS = 150;
const STEPS = 7;
const KILLS = 4;
const MACHINE = 'crash-seven-steps';
const FUNCTIONS_MODULE = fileURLToPath(new URL('./fixtures/crash-functions.ts', import.meta.url));

/** Seven sequential lambda:invoke Tasks (JSONata, as our compiled workflows), each adding its result. */
function sevenSteps(): string {
  const states: Record<string, unknown> = {};
  for (let n = 1; n <= STEPS; n += 1) {
    states[`Step${n}`] = {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Arguments: {
        FunctionName: `arn:aws:lambda:us-east-1:123456789012:function:crash-step-${n}`,
        Payload: { runId: '{% $states.context.Execution.Name %}', step: n },
      },
      Output: `{% $merge([$states.input, {"s${n}": $states.result.Payload.key}]) %}`,
      ...(n < STEPS ? { Next: `Step${n + 1}` } : { End: true }),
    };
  }
  return JSON.stringify({ QueryLanguage: 'JSONata', StartAt: 'Step1', States: states });
}

const client = (url: string) =>
  new SFNClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    maxAttempts: 1,
  });

async function lineCount(file: string): Promise<number> {
  try {
    return (await readFile(file, 'utf8')).split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

/** Lines of `file` written by process `pid` (each log line starts with the pid). */
async function linesOf(file: string, pid: number): Promise<number> {
  try {
    return (await readFile(file, 'utf8')).split('\n').filter((l) => l.startsWith(`${pid} `)).length;
  } catch {
    return 0;
  }
}

/** Resolves once the engine process has seen `count` of its Lambda invocations return. */
async function untilReturns(file: string, engine: EngineProcess, count: number): Promise<void> {
  await eventually(
    `${count} invocations to return`,
    async () => {
      if (engine.child.exitCode !== null) throw new Error(`engine exited:\n${engine.output()}`);
      return (await linesOf(file, engine.pid)) >= count ? true : undefined;
    },
    { intervalMillis: 10 },
  );
}

describe('the engine under SIGKILL', () => {
  const cleanup = cleanupAfterAll();

  // 40 s alone, nearer 60 s with the suite on two loaded cores: a bound like the onboarding crash test's.
  it(
    'completes every run, never re-runs a completed step, and keeps every side effect to exactly once',
    { timeout: 120_000 },
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'autosave-crash-'));
      const logDir = await mkdtemp(join(tmpdir(), 'autosave-crash-logs-'));
      cleanup(
        () => rm(dataDir, { recursive: true, force: true }),
        () => rm(logDir, { recursive: true, force: true }),
      );
      const invocationsLog = join(logDir, 'invocations.log');
      const effectsLog = join(logDir, 'effects.log');
      const returnsLog = join(logDir, 'returns.log');
      const start = () =>
        startEngineProcess({ dataDir, functionsModule: FUNCTIONS_MODULE, env: { CRASH_LOG_DIR: logDir } });

      let engine = await start();
      cleanup(() => engine.kill());
      const killedPids = new Set<number>();
      let sfn = client(engine.url);
      const { stateMachineArn } = await sfn.send(
        new CreateStateMachineCommand({
          name: MACHINE,
          definition: sevenSteps(),
          roleArn: 'arn:aws:iam::123456789012:role/crash',
        }),
      );
      const names = Array.from({ length: RUNS }, (_, i) => `run-${String(i).padStart(3, '0')}`);

      // The runs are started while the kills go on: a start cut off by a kill is sent again, with the same
      // name and input, to the next incarnation (StartExecution is idempotent by name).
      let restarted: Promise<void> = Promise.resolve();
      let retriedStarts = 0;
      const startRun = async (name: string) => {
        for (let resend = false; ; resend = true) {
          await restarted;
          try {
            const request = { stateMachineArn, name, input: '{}' };
            return await (resend ? resendStartExecution(sfn, request) : sfn.send(new StartExecutionCommand(request)));
          } catch (err) {
            if ((err as Error).name === 'ExecutionAlreadyExists') throw err;
            retriedStarts += 1;
          }
        }
      };
      const starting = (async () => {
        for (let i = 0; i < RUNS; i += 10) await Promise.all(names.slice(i, i + 10).map(startRun));
      })();

      // Kill points: a random number of Lambda returns into each incarnation's life. A restarted engine first
      // re-invokes the steps the kill caught in flight (its "recovery burst", all before it listens); the next
      // kill waits for the whole burst plus 40-120 more returns, so every kill lands amid new work.
      const killedAfter: number[] = [];
      let burst = 0;
      for (let k = 0; k < KILLS; k += 1) {
        await untilReturns(returnsLog, engine, burst + 40 + Math.floor(Math.random() * 80));
        killedAfter.push(await lineCount(effectsLog));
        killedPids.add(engine.pid);
        let ready!: () => void;
        restarted = new Promise((r) => (ready = r));
        await engine.kill();
        sfn.destroy();
        engine = await start();
        sfn = client(engine.url);
        ready();
        burst = await linesOf(invocationsLog, engine.pid);
      }
      await starting;
      expect(killedAfter.at(-1), 'the last kill must come before the work is done').toBeLessThan(RUNS * STEPS);

      // Wait for the last incarnation to finish everything.
      await eventually(
        'every run to close',
        async () => {
          const running = await sfn.send(
            new ListExecutionsCommand({ stateMachineArn, statusFilter: 'RUNNING', maxResults: 1 }),
          );
          if ((running.executions ?? []).length === 0) return true;
          if (engine.child.exitCode !== null) throw new Error(`engine exited:\n${engine.output()}`);
          return undefined;
        },
        { intervalMillis: 50 },
      );

      // Every run succeeded with all seven results.
      const arnPrefix = stateMachineArn!.replace(':stateMachine:', ':execution:');
      const histories = new Map<string, HistoryEvent[]>();
      for (const name of names) {
        const executionArn = `${arnPrefix}:${name}`;
        const d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
        expect(d.status, `${name}: ${d.error} ${d.cause}`).toBe('SUCCEEDED');
        expect(JSON.parse(d.output!)).toEqual(
          Object.fromEntries(Array.from({ length: STEPS }, (_, i) => [`s${i + 1}`, `${name}:${i + 1}`])),
        );
        histories.set(name, await getFullHistory(sfn, executionArn));
      }

      // The history shows each step succeeding exactly once.
      for (const [name, events] of histories) {
        const succeeded = events.filter((e) => e.type === 'TaskSucceeded' || e.type === 'LambdaFunctionSucceeded');
        expect(succeeded, name).toHaveLength(STEPS);
      }

      // Invocations per step per run: one per engine incarnation at most, and a second only when the
      // incarnation that ran the first was killed (the step was caught in flight).
      const lines = (await readFile(invocationsLog, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' '));
      const byStep = new Map<string, number[]>();
      for (const [pid, run, step] of lines) {
        const key = `${run}:${step}`;
        byStep.set(key, [...(byStep.get(key) ?? []), Number(pid)]);
      }
      expect(byStep.size).toBe(RUNS * STEPS);
      let duplicates = 0;
      for (const [key, pids] of byStep) {
        expect(new Set(pids).size, `${key} ran twice in one engine process`).toBe(pids.length);
        for (const pid of pids.slice(0, -1))
          expect(killedPids.has(pid), `${key} re-run after a completed run in ${pid}`).toBe(true);
        expect(pids.length, `${key} re-invoked more than once`).toBeLessThanOrEqual(2);
        duplicates += pids.length - 1;
      }
      // Each kill catches at most the steps in flight then: one per run.
      expect(duplicates).toBeLessThanOrEqual(KILLS * RUNS);

      // The history shows every invocation: each attempt's TaskStarted is committed before the function runs
      // (a kill between that commit and the call leaves a TaskStarted with no invocation, never the reverse).
      for (const [name, events] of histories) {
        let step = 0;
        const started = new Map<number, number>();
        for (const e of events) {
          if (e.type === 'TaskScheduled')
            step = JSON.parse(e.taskScheduledEventDetails!.parameters!).Payload.step as number;
          if (e.type === 'TaskStarted') started.set(step, (started.get(step) ?? 0) + 1);
        }
        for (let n = 1; n <= STEPS; n += 1)
          expect(started.get(n), `${name}:${n} TaskStarted`).toBeGreaterThanOrEqual(byStep.get(`${name}:${n}`)!.length);
      }

      // Side effects: exactly once each, through the key.
      const effects = (await readFile(effectsLog, 'utf8')).split('\n').filter(Boolean);
      expect(effects).toHaveLength(RUNS * STEPS);
      expect(new Set(effects).size).toBe(RUNS * STEPS);

      console.log(
        `crash test: ${RUNS} runs x ${STEPS} steps, ${KILLS} SIGKILLs after ${killedAfter.join(', ')} side effects, ${retriedStarts} starts resent; ` +
          `${lines.length} invocations (${duplicates} re-invocations of steps caught in flight), ${effects.length} side effects, 0 duplicated`,
      );
      expect(await engine.stop()).toBe(0);
    },
  );
});
