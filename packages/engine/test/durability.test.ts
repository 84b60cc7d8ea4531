import { afterEach, describe, expect, it } from 'vitest';
import { EngineHarness, invokeTask, jsonata } from './support/engine-harness';

describe('durability and limits', () => {
  let h: EngineHarness;
  afterEach(() => h.close());

  it('shares one commit among concurrent runs (group commit)', async () => {
    h = await new EngineHarness({ f: (p) => p }).start();
    const steps = Object.fromEntries(
      Array.from({ length: 3 }, (_, i) => [`S${i}`, invokeTask('f', i < 2 ? { Next: `S${i + 1}` } : { End: true })]),
    );
    const m = await h.machine(jsonata(steps));
    const before = h.engine.commitStats;
    const runs = await Promise.all(
      Array.from({ length: 40 }, () => h.call('StartExecution', { stateMachineArn: m, input: '{}' })),
    );
    await h.idle();
    const after = h.engine.commitStats;
    for (const r of runs) expect((await h.describe(r.executionArn)).status).toBe('SUCCEEDED');
    const writes = after.writes - before.writes;
    const commits = after.commits - before.commits;
    expect(writes).toBeGreaterThanOrEqual(40 * 4); // a start and three task results per run
    expect(commits).toBeLessThan(writes / 10);
  });

  it('fails a run whose history would pass 25,000 events, and does not offer it for redrive', async () => {
    h = await new EngineHarness().start();
    const m = await h.machine(
      jsonata({
        Spin: { Type: 'Pass', Assign: { n: '{% ($n ? $n : 0) + 1 %}' }, Next: 'Again' },
        Again: { Type: 'Choice', Choices: [{ Condition: '{% true %}', Next: 'Spin' }], Default: 'Never' },
        Never: { Type: 'Succeed' },
      }),
    );
    const arn = await h.run(m);
    const d = await h.describe(arn);
    expect(d).toMatchObject({ status: 'FAILED', error: 'States.Runtime', redriveStatus: 'NOT_REDRIVABLE' });
    const last = await h.call('GetExecutionHistory', { executionArn: arn, reverseOrder: true, maxResults: 1 });
    expect(last.events[0].id).toBe(25_000);
    expect(last.events[0].type).toBe('ExecutionFailed');
  });

  it('describes the pinned definition of an execution', async () => {
    h = await new EngineHarness().start();
    const v1 = jsonata({ P: { Type: 'Pass', End: true } });
    const m = await h.machine(v1, 'pinned', { publish: true });
    const arn = await h.run(`${m}:1`);
    await h.call('UpdateStateMachine', {
      stateMachineArn: m,
      definition: JSON.stringify(jsonata({ Q: { Type: 'Pass', End: true } })),
    });
    const described = await h.call('DescribeStateMachineForExecution', { executionArn: arn });
    expect(described).toMatchObject({ stateMachineArn: m, name: 'pinned', definition: JSON.stringify(v1) });
  });

  it('delivers a close event again after a restart when the callback had not finished', async () => {
    const seen: string[] = [];
    let failFirst = true;
    const onExecutionClosed = async (e: { detail: { executionArn: string } }) => {
      if (failFirst) {
        failFirst = false;
        throw new Error('rule target unavailable');
      }
      seen.push(e.detail.executionArn);
    };
    h = await new EngineHarness({}, { onExecutionClosed }).start();
    const m = await h.machine(jsonata({ F: { Type: 'Fail', Error: 'X' } }));
    const original = console.error;
    console.error = () => undefined;
    try {
      const arn = await h.run(m);
      expect(seen).toEqual([]);
      await h.engine.stop();
      h = await h.restart();
      await h.idle();
      expect(seen).toEqual([arn]);
    } finally {
      console.error = original;
    }
  });
});

describe('a .sync parent told of its child across a stop', () => {
  it('keeps the close notification when the parent could not take the outcome (the engine was stopping), and tells it after a restart', async () => {
    const tokens: string[] = [];
    let stopNow = false;
    let stopping: Promise<void> | undefined;
    // The EventBridge emulation runs right after the parent has been signalled: stop the engine there.
    const onExecutionClosed = async () => {
      if (stopNow) stopping = h.engine.stop();
    };
    const h = await new EngineHarness({ wait: (p) => void tokens.push(p.token) }, { onExecutionClosed }).start();
    let after: EngineHarness | undefined;
    try {
      const child = await h.machine(
        jsonata({
          W: {
            Type: 'Task',
            Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
            Arguments: { FunctionName: 'wait', Payload: { token: '{% $states.context.Task.Token %}' } },
            End: true,
          },
        }),
        'child',
      );
      const parent = await h.machine(
        jsonata({
          Sync: {
            Type: 'Task',
            Resource: 'arn:aws:states:::states:startExecution.sync:2',
            Arguments: { StateMachineArn: child, Input: {} },
            End: true,
          },
        }),
        'parent',
      );
      const arn = await h.run(parent);
      expect(tokens).toHaveLength(1);
      stopNow = true;
      await h.call('SendTaskFailure', { taskToken: tokens[0], error: 'ChildBroke', cause: 'no' });
      await stopping;
      after = await h.restart();
      await after.idle();
      expect(await after.describe(arn)).toMatchObject({ status: 'FAILED', error: 'States.TaskFailed' });
    } finally {
      await after?.engine.stop();
      await h.close();
    }
  });
});

describe('child starts replayed after a restart', () => {
  it('take a same-name, same-input child that already closed as the one the attempt started', async () => {
    const h = await new EngineHarness().start();
    try {
      const child = await h.machine(jsonata({ P: { Type: 'Pass', End: true } }), 'child');
      const first = await h.call('StartExecution', { stateMachineArn: child, name: 'gen-1', input: '{"a":1}' });
      await h.idle();
      const { startExecution } = await import('../src/api/executions');
      const rt = (h.engine as unknown as { runtime: Parameters<typeof startExecution>[0] }).runtime;
      const input = { stateMachineArn: child, name: 'gen-1', input: '{"a":1}' };
      await expect(startExecution(rt, input, { replay: true })).resolves.toEqual(first);
      await expect(startExecution(rt, input)).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
      await expect(startExecution(rt, { ...input, input: '{"a":2}' }, { replay: true })).rejects.toMatchObject({
        name: 'ExecutionAlreadyExists',
      });
    } finally {
      await h.close();
    }
  });
});
