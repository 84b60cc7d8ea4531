import { afterEach, describe, expect, it } from 'vitest';
import { EngineHarness, invokeTask, jsonata, namedError, neverReturns } from './support/engine-harness';

/** A function failing `times` times with `error`, then returning 'ok'. */
function flaky(times: number, error = 'Transient') {
  let calls = 0;
  return () => {
    calls += 1;
    if (calls <= times) throw namedError(error);
    return 'ok';
  };
}

const scheduledAt = async (h: EngineHarness, arn: string): Promise<number[]> =>
  (await h.history(arn)).filter((e) => e.type === 'TaskScheduled').map((e) => Math.round(e.timestamp * 1000));

const gaps = (ts: number[]): number[] => ts.slice(1).map((t, i) => t - ts[i]);

describe('Retry, Catch and task timeouts on a virtual clock', () => {
  let h: EngineHarness;
  afterEach(() => h.close());

  it('retries with exponential backoff: IntervalSeconds × BackoffRate^n', async () => {
    h = await new EngineHarness({ f: flaky(3) }).start();
    const m = await h.machine(
      jsonata({
        T: invokeTask('f', {
          Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 2, MaxAttempts: 3, BackoffRate: 2 }],
          End: true,
        }),
      }),
    );
    const arn = await h.run(m);
    expect((await h.describe(arn)).status).toBe('RUNNING');
    await h.clock.advance(60_000);
    expect(await h.describe(arn)).toMatchObject({ status: 'SUCCEEDED', output: '"ok"' });
    expect(gaps(await scheduledAt(h, arn))).toEqual([2000, 4000, 8000]);
    expect(h.count('f')).toBe(4);
  });

  it('caps delays at MaxDelaySeconds and applies FULL jitter from the injected random source', async () => {
    h = await new EngineHarness({ f: flaky(3) }, { random: () => 0.5 }).start();
    const m = await h.machine(
      jsonata({
        T: invokeTask('f', {
          Retry: [
            {
              ErrorEquals: ['States.ALL'],
              IntervalSeconds: 10,
              MaxAttempts: 3,
              BackoffRate: 10,
              MaxDelaySeconds: 15,
              JitterStrategy: 'FULL',
            },
          ],
          End: true,
        }),
      }),
    );
    const arn = await h.run(m);
    await h.clock.advance(60_000);
    expect(gaps(await scheduledAt(h, arn))).toEqual([5000, 7500, 7500]);
  });

  it('fails at the Task once MaxAttempts are used, and MaxAttempts 0 never retries', async () => {
    h = await new EngineHarness({ f: flaky(10, 'Nope'), g: flaky(10, 'Fatal') }).start();
    const m = await h.machine(
      jsonata({
        T: invokeTask('f', {
          Retry: [
            { ErrorEquals: ['Fatal'], MaxAttempts: 0 },
            { ErrorEquals: ['States.ALL'], IntervalSeconds: 1, MaxAttempts: 2 },
          ],
          End: true,
        }),
      }),
    );
    const arn = await h.run(m);
    await h.clock.advance(60_000);
    expect(await h.describe(arn)).toMatchObject({ status: 'FAILED', error: 'Nope' });
    expect(h.count('f')).toBe(3);
    const g = await h.machine(
      jsonata({
        T: invokeTask('g', {
          Retry: [
            { ErrorEquals: ['Fatal'], MaxAttempts: 0 },
            { ErrorEquals: ['States.ALL'], MaxAttempts: 2 },
          ],
          End: true,
        }),
      }),
    );
    const arn2 = await h.run(g);
    await h.clock.advance(60_000);
    expect(await h.describe(arn2)).toMatchObject({ status: 'FAILED', error: 'Fatal' });
    expect(h.count('g')).toBe(1);
  });

  it('catches an exhausted error into the Catch Next with $states.errorOutput and Assign', async () => {
    h = await new EngineHarness({ f: flaky(10, 'Broken') }).start();
    const m = await h.machine(
      jsonata({
        T: invokeTask('f', {
          Retry: [{ ErrorEquals: ['Broken'], IntervalSeconds: 1, MaxAttempts: 1 }],
          Catch: [
            {
              ErrorEquals: ['States.TaskFailed'],
              Next: 'Handled',
              Output: { caught: '{% $states.errorOutput.Error %}' },
              Assign: { failedAt: 'T' },
            },
          ],
          Next: 'Unreached',
        }),
        Unreached: { Type: 'Fail' },
        Handled: { Type: 'Pass', Output: { caught: '{% $states.input.caught %}', at: '{% $failedAt %}' }, End: true },
      }),
    );
    const arn = await h.run(m);
    await h.clock.advance(10_000);
    expect(await h.output(arn)).toEqual({ caught: 'Broken', at: 'T' });
    expect(h.count('f')).toBe(2);
    const types = await h.eventTypes(arn);
    expect(types.slice(types.lastIndexOf('TaskFailed'))).toEqual([
      'TaskFailed',
      'TaskStateExited',
      'PassStateEntered',
      'PassStateExited',
      'ExecutionSucceeded',
    ]);
  });

  it('times out a task at TimeoutSeconds with States.Timeout, which States.TaskFailed does not catch', async () => {
    h = await new EngineHarness({
      hang: (_payload, { releaseClock }) => neverReturns(releaseClock), // only the Task's TimeoutSeconds ends it
    }).start();
    const m = await h.machine(
      jsonata({
        T: invokeTask('hang', {
          TimeoutSeconds: 30,
          Catch: [
            { ErrorEquals: ['States.TaskFailed'], Next: 'Wrong' },
            { ErrorEquals: ['States.Timeout'], Next: 'TimedOut' },
          ],
          End: true,
        }),
        Wrong: { Type: 'Fail' },
        TimedOut: { Type: 'Pass', Output: '{% $states.input %}', End: true },
      }),
    );
    const arn = await h.run(m);
    await h.clock.advance(29_999);
    expect((await h.describe(arn)).status).toBe('RUNNING');
    await h.clock.advance(1);
    expect(await h.output(arn)).toEqual({ Error: 'States.Timeout', Cause: '' });
    const timedOut = (await h.history(arn)).find((e) => e.type === 'TaskTimedOut');
    expect(timedOut.taskTimedOutEventDetails).toMatchObject({ error: 'States.Timeout', resourceType: 'lambda' });
    expect(Math.round(timedOut.timestamp * 1000) - Math.round((await h.describe(arn)).startDate * 1000)).toBe(30_000);
  });
});
