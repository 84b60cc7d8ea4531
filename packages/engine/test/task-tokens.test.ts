import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { days, hours } from '../../workflow/src/config/duration';
import { EngineHarness, jsonata } from './support/engine-harness';

const approval = (extra: object = {}) => ({
  Type: 'Task',
  Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
  Arguments: {
    FunctionName: 'approval-request',
    Payload: { token: '{% $states.context.Task.Token %}', run: '{% $states.context.Execution.Name %}' },
  },
  ...extra,
});

describe('task tokens (.waitForTaskToken)', () => {
  let h: EngineHarness;
  const tokens: Record<string, string[]> = {};
  const tokenOf = (run: string) => (tokens[run] ?? []).at(-1) as string;
  beforeEach(async () => {
    for (const k of Object.keys(tokens)) delete tokens[k];
    h = await new EngineHarness({
      'approval-request': (p) => {
        (tokens[p.run] ??= []).push(p.token);
        return { sent: true };
      },
    }).start();
  });
  afterEach(() => h.close());

  it('waits for SendTaskSuccess and continues with its output', async () => {
    const m = await h.machine(jsonata({ Approve: approval({ End: true }) }));
    const arn = await h.run(m, {}, 'r1');
    expect((await h.describe(arn)).status).toBe('RUNNING');
    expect((await h.eventTypes(arn)).at(-1)).toBe('TaskSubmitted');
    expect(await h.call('SendTaskSuccess', { taskToken: tokenOf('r1'), output: '{"approved":true}' })).toEqual({});
    await h.idle();
    expect(await h.describe(arn)).toMatchObject({ status: 'SUCCEEDED', output: '{"approved":true}' });
    await expect(h.call('SendTaskSuccess', { taskToken: tokenOf('r1'), output: '{}' })).rejects.toMatchObject({
      name: 'TaskTimedOut',
    });
  });

  it('fails the task with SendTaskFailure error and cause', async () => {
    const m = await h.machine(jsonata({ Approve: approval({ End: true }) }));
    const arn = await h.run(m, {}, 'r2');
    await h.call('SendTaskFailure', { taskToken: tokenOf('r2'), error: 'Rejected', cause: 'no' });
    await h.idle();
    expect(await h.describe(arn)).toMatchObject({ status: 'FAILED', error: 'Rejected', cause: 'no' });
  });

  it('answers InvalidToken, TaskDoesNotExist and InvalidOutput as the service does', async () => {
    const m = await h.machine(jsonata({ Approve: approval({ End: true }) }));
    await h.run(m, {}, 'r3');
    await expect(h.call('SendTaskSuccess', { taskToken: 'garbage', output: '{}' })).rejects.toMatchObject({
      name: 'InvalidToken',
    });
    await expect(
      h.call('SendTaskSuccess', { taskToken: `AAAA${'A'.repeat(128)}`, output: '{}' }),
    ).rejects.toMatchObject({ name: 'TaskDoesNotExist' });
    await expect(h.call('SendTaskSuccess', { taskToken: tokenOf('r3'), output: '{not json' })).rejects.toMatchObject({
      name: 'InvalidOutput',
    });
    await expect(h.call('SendTaskHeartbeat', { taskToken: 'garbage' })).rejects.toMatchObject({ name: 'InvalidToken' });
  });

  it('times out a 5-day approval at once on the virtual clock, with the history a real clock gives', async () => {
    const m = await h.machine(
      jsonata({
        Approve: approval({
          TimeoutSeconds: 5 * 86_400,
          Catch: [{ ErrorEquals: ['States.Timeout'], Next: 'Expired' }],
          End: true,
        }),
        Expired: { Type: 'Pass', Output: { expired: true }, End: true },
      }),
    );
    const arn = await h.run(m, {}, 'r4');
    await h.clock.advance(days(5));
    expect(await h.describe(arn)).toMatchObject({ status: 'SUCCEEDED', output: '{"expired":true}' });
    const events = await h.history(arn);
    expect(events.map((e) => e.type)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSubmitted',
      'TaskTimedOut',
      'TaskStateExited',
      'PassStateEntered',
      'PassStateExited',
      'ExecutionSucceeded',
    ]);
    expect(events[5].timestamp - events[0].timestamp).toBe(5 * 86_400);
    await expect(h.call('SendTaskSuccess', { taskToken: tokenOf('r4'), output: '{}' })).rejects.toMatchObject({
      name: 'TaskTimedOut',
    });
  });

  it('keeps a task alive with heartbeats and times it out when they stop (recorded as States.Timeout, as AWS does)', async () => {
    const m = await h.machine(jsonata({ Approve: approval({ HeartbeatSeconds: 3600, End: true }) }));
    const arn = await h.run(m, {}, 'r5');
    for (let i = 0; i < 3; i++) {
      await h.clock.advance(hours(0.5));
      expect(await h.call('SendTaskHeartbeat', { taskToken: tokenOf('r5') })).toEqual({});
    }
    await h.clock.advance(hours(0.99));
    expect((await h.describe(arn)).status).toBe('RUNNING');
    await h.clock.advance(hours(0.02));
    expect(await h.describe(arn)).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
    await expect(h.call('SendTaskHeartbeat', { taskToken: tokenOf('r5') })).rejects.toMatchObject({
      name: 'TaskTimedOut',
    });
  });

  it('writes heartbeats on the group commit: heartbeats sent in one turn share one transaction', async () => {
    const m = await h.machine(jsonata({ Approve: approval({ HeartbeatSeconds: 3600, End: true }) }));
    const runs = ['hb1', 'hb2', 'hb3', 'hb4'];
    for (const r of runs) await h.run(m, {}, r);
    const before = h.engine.commitStats;
    await Promise.all(runs.map((r) => h.call('SendTaskHeartbeat', { taskToken: tokenOf(r) })));
    const after = h.engine.commitStats;
    expect(after.writes - before.writes).toBe(runs.length);
    expect(after.commits - before.commits).toBe(1);
  });

  it('gives a retried task a new token: the old one answers TaskTimedOut, the new one works', async () => {
    const m = await h.machine(
      jsonata({
        Approve: approval({
          TimeoutSeconds: 60,
          Retry: [{ ErrorEquals: ['States.Timeout'], IntervalSeconds: 1, MaxAttempts: 1 }],
          End: true,
        }),
      }),
    );
    const arn = await h.run(m, {}, 'r6');
    await h.clock.advance(61_000);
    expect(tokens.r6).toHaveLength(2);
    expect(tokens.r6[0]).not.toBe(tokens.r6[1]);
    await expect(h.call('SendTaskSuccess', { taskToken: tokens.r6[0], output: '{}' })).rejects.toMatchObject({
      name: 'TaskTimedOut',
    });
    await h.call('SendTaskSuccess', { taskToken: tokens.r6[1], output: '{"second":true}' });
    await h.idle();
    expect(await h.describe(arn)).toMatchObject({ status: 'SUCCEEDED', output: '{"second":true}' });
  });

  it('does not answer TaskTimedOut for a token it never acted on because it was stopping: the token works after a restart', async () => {
    const m = await h.machine(jsonata({ Approve: approval({ End: true }) }));
    const arn = await h.run(m, {}, 'r7');
    const answered = h.call('SendTaskSuccess', { taskToken: tokenOf('r7'), output: '{"approved":true}' });
    const stopping = h.engine.stop();
    const error = await answered.then(
      () => undefined,
      (e: Error) => e,
    );
    await stopping;
    // Either it was applied, or the caller is told to try again; never "timed out" for a task still waiting.
    expect(error?.name).not.toBe('TaskTimedOut');
    const after = await h.restart();
    try {
      if (error) await after.call('SendTaskSuccess', { taskToken: tokenOf('r7'), output: '{"approved":true}' });
      await after.idle();
      expect(await after.describe(arn)).toMatchObject({ status: 'SUCCEEDED', output: '{"approved":true}' });
    } finally {
      await after.engine.stop();
    }
  });

  it('tracks tokens of many concurrent executions independently', async () => {
    const m = await h.machine(jsonata({ Approve: approval({ End: true }) }));
    const arns = await Promise.all(
      Array.from({ length: 20 }, (_, i) => h.call('StartExecution', { stateMachineArn: m, name: `c${i}` })),
    );
    await h.idle();
    await Promise.all(
      arns.map((_, i) => h.call('SendTaskSuccess', { taskToken: tokenOf(`c${i}`), output: JSON.stringify({ i }) })),
    );
    await h.idle();
    for (let i = 0; i < 20; i++)
      expect(await h.describe(arns[i].executionArn)).toMatchObject({
        status: 'SUCCEEDED',
        output: JSON.stringify({ i }),
      });
  });
});
