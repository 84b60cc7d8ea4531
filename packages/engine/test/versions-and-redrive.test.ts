import { afterEach, describe, expect, it } from 'vitest';
import { EngineHarness, invokeTask, jsonata, namedError } from './support/engine-harness';

/** A deterministic PRNG (mulberry32) so routing statistics are reproducible. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:deploy';

describe('versions and aliases', () => {
  let h: EngineHarness;
  afterEach(() => h.close());

  it('pins an execution to its version: an update and a new published version do not change it', async () => {
    const tokens: string[] = [];
    h = await new EngineHarness({ wait: (p) => void tokens.push(p.token) }).start();
    const v1 = jsonata({
      Wait: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
        Arguments: { FunctionName: 'wait', Payload: { token: '{% $states.context.Task.Token %}' } },
        Next: 'Which',
      },
      Which: { Type: 'Pass', Output: { version: 1 }, End: true },
    });
    const v2 = jsonata({ Which: { Type: 'Pass', Output: { version: 2 }, End: true } });
    await h.machine(v1, 'deploy', { publish: true });
    await h.call('CreateStateMachineAlias', {
      name: 'live',
      routingConfiguration: [{ stateMachineVersionArn: `${ARN}:1`, weight: 100 }],
    });
    const old = await h.run(`${ARN}:live`);
    await h.call('UpdateStateMachine', { stateMachineArn: ARN, definition: JSON.stringify(v2), publish: true });
    await h.call('UpdateStateMachineAlias', {
      stateMachineAliasArn: `${ARN}:live`,
      routingConfiguration: [{ stateMachineVersionArn: `${ARN}:2`, weight: 100 }],
    });
    const fresh = await h.run(`${ARN}:live`);
    expect(await h.output(fresh)).toEqual({ version: 2 });
    await h.call('SendTaskSuccess', { taskToken: tokens[0], output: '{}' });
    await h.idle();
    expect(await h.output(old)).toEqual({ version: 1 });
    expect(await h.describe(old)).toMatchObject({
      stateMachineVersionArn: `${ARN}:1`,
      stateMachineAliasArn: `${ARN}:live`,
    });
    expect(await h.describe(fresh)).toMatchObject({
      stateMachineVersionArn: `${ARN}:2`,
      stateMachineAliasArn: `${ARN}:live`,
    });
    const viaVersion = await h.call('ListExecutions', { stateMachineArn: `${ARN}:1` });
    expect(viaVersion.executions.map((e: any) => e.executionArn)).toEqual([old]);
  });

  it('routes new starts through an alias by weight', async () => {
    h = await new EngineHarness({}, { random: seeded(42) }).start();
    await h.machine(jsonata({ P: { Type: 'Pass', Output: { v: 1 }, End: true } }), 'deploy', { publish: true });
    await h.call('UpdateStateMachine', {
      stateMachineArn: ARN,
      definition: JSON.stringify(jsonata({ P: { Type: 'Pass', Output: { v: 2 }, End: true } })),
      publish: true,
    });
    await h.call('CreateStateMachineAlias', {
      name: 'canary',
      routingConfiguration: [
        { stateMachineVersionArn: `${ARN}:1`, weight: 80 },
        { stateMachineVersionArn: `${ARN}:2`, weight: 20 },
      ],
    });
    const n = 400;
    await Promise.all(Array.from({ length: n }, () => h.call('StartExecution', { stateMachineArn: `${ARN}:canary` })));
    await h.idle();
    const onV2 = (await h.call('ListExecutions', { stateMachineArn: `${ARN}:2`, maxResults: 1000 })).executions.length;
    expect(onV2 / n).toBeGreaterThan(0.14);
    expect(onV2 / n).toBeLessThan(0.26);
  });
});

describe('RedriveExecution', () => {
  let h: EngineHarness;
  afterEach(() => h.close());

  it('resumes at the failed Task: earlier steps are not re-run, retry counters reset, redriveCount counts', async () => {
    let broken = true;
    h = await new EngineHarness({
      one: () => 1,
      two: () => {
        if (broken) throw namedError('Down');
        return 2;
      },
    }).start();
    const m = await h.machine(
      jsonata({
        One: invokeTask('one', { Next: 'Two' }),
        Two: invokeTask('two', {
          Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 1, MaxAttempts: 2 }],
          End: true,
        }),
      }),
    );
    const arn = await h.run(m);
    await h.clock.advance(60_000);
    expect(await h.describe(arn)).toMatchObject({ status: 'FAILED', error: 'Down', redriveStatus: 'REDRIVABLE' });
    expect([h.count('one'), h.count('two')]).toEqual([1, 3]);
    await expect(h.call('RedriveExecution', { executionArn: arn.replace(/:[^:]+$/, ':nope') })).rejects.toMatchObject({
      name: 'ExecutionDoesNotExist',
    });

    const redriven = await h.call('RedriveExecution', { executionArn: arn, clientToken: 'tok-1' });
    expect(redriven.redriveDate).toEqual(expect.any(Number));
    await h.idle();
    await h.clock.advance(60_000);
    expect(await h.describe(arn)).toMatchObject({ status: 'FAILED', redriveCount: 1 });
    expect([h.count('one'), h.count('two')]).toEqual([1, 6]); // retries start over: 3 more attempts

    broken = false;
    await h.call('RedriveExecution', { executionArn: arn });
    await h.idle();
    expect(await h.describe(arn)).toMatchObject({ status: 'SUCCEEDED', output: '2', redriveCount: 2 });
    expect(h.count('one')).toBe(1);
    const types = await h.eventTypes(arn);
    expect(types.filter((t) => t === 'ExecutionRedriven')).toHaveLength(2);
    await expect(h.call('RedriveExecution', { executionArn: arn })).rejects.toMatchObject({
      name: 'ExecutionNotRedrivable',
    });
  });

  it("gives a redriven run's states its RedriveCount and RedriveTime in $states.context.Execution (AWS: the context object of a redriven execution), after a close the executor did not write (a timeout)", async () => {
    const seen: { execution: { RedriveCount: number; RedriveTime?: string } }[] = [];
    h = await new EngineHarness({ wait: (p) => void seen.push(p) }).start();
    const waitTask = { Type: 'Task', Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken', End: true };
    const payload = { token: '{% $states.context.Task.Token %}', execution: '{% $states.context.Execution %}' };
    const m = await h.machine(
      jsonata({ W: { ...waitTask, Arguments: { FunctionName: 'wait', Payload: payload } } }, { TimeoutSeconds: 10 }),
    );
    const arn = await h.run(m);
    await h.idle();
    await h.clock.advance(11_000);
    expect(await h.describe(arn)).toMatchObject({ status: 'TIMED_OUT' });
    await h.call('RedriveExecution', { executionArn: arn });
    await h.idle();
    expect(seen.map((p) => p.execution.RedriveCount)).toEqual([0, 1]);
    expect(seen[0].execution.RedriveTime).toBeUndefined();
    expect(seen[1].execution.RedriveTime).toEqual(expect.any(String));
  });

  it('is idempotent by clientToken while the redriven run is open', async () => {
    const tokens: string[] = [];
    let fail = true;
    h = await new EngineHarness({
      f: () => {
        if (fail) throw namedError('Down');
        return 'ok';
      },
      wait: (p) => void tokens.push(p.token),
    }).start();
    const m = await h.machine(
      jsonata({
        F: invokeTask('f', { Next: 'W' }),
        W: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
          Arguments: { FunctionName: 'wait', Payload: { token: '{% $states.context.Task.Token %}' } },
          End: true,
        },
      }),
    );
    const arn = await h.run(m);
    fail = false;
    const a = await h.call('RedriveExecution', { executionArn: arn, clientToken: 'same' });
    await h.idle();
    const b = await h.call('RedriveExecution', { executionArn: arn, clientToken: 'same' });
    expect(b).toEqual(a);
    expect(h.count('f')).toBe(2);
    await expect(h.call('RedriveExecution', { executionArn: arn, clientToken: 'other' })).rejects.toMatchObject({
      name: 'ExecutionNotRedrivable',
    });
  });

  it('re-runs only the failed Parallel branch and the failed Map iterations', async () => {
    const failing = new Set(['b', 3]);
    h = await new EngineHarness({
      branch: (p) => {
        if (failing.has(p.id)) throw namedError('Down');
        return p.id;
      },
      item: (p) => {
        if (failing.has(p)) throw namedError('Down');
        return p * 10;
      },
    }).start();
    const task = (fn: string, payload: string) => ({
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Arguments: { FunctionName: fn, Payload: payload },
      Output: '{% $states.result.Payload %}',
      End: true,
    });
    const m = await h.machine(
      jsonata({
        Fan: {
          Type: 'Parallel',
          Branches: [
            { StartAt: 'A', States: { A: task('branch', '{% {"id": "a"} %}') } },
            { StartAt: 'B', States: { B: task('branch', '{% {"id": "b"} %}') } },
          ],
          Next: 'Each',
        },
        Each: {
          Type: 'Map',
          Items: '{% [1, 2, 3, 4] %}',
          ItemProcessor: { StartAt: 'I', States: { I: task('item', '{% $states.input %}') } },
          End: true,
        },
      }),
    );
    const arn = await h.run(m);
    expect(await h.describe(arn)).toMatchObject({ status: 'FAILED', error: 'Down' });
    expect(h.count('branch')).toBe(2);
    failing.delete('b');
    await h.call('RedriveExecution', { executionArn: arn });
    await h.idle();
    expect(h.count('branch')).toBe(3); // only branch b again
    expect(await h.describe(arn)).toMatchObject({ status: 'FAILED', redriveCount: 1 });
    expect(h.count('item')).toBe(4);
    failing.delete(3);
    await h.call('RedriveExecution', { executionArn: arn });
    await h.idle();
    expect(await h.describe(arn)).toMatchObject({ status: 'SUCCEEDED', output: '[10,20,30,40]' });
    expect(h.count('item')).toBe(5); // only item 3 again
    expect(h.count('branch')).toBe(3);
  });

  it('re-enters a Fail state on redrive, which fails again', async () => {
    h = await new EngineHarness().start();
    const m = await h.machine(jsonata({ F: { Type: 'Fail', Error: 'Always' } }));
    const arn = await h.run(m);
    await h.call('RedriveExecution', { executionArn: arn });
    await h.idle();
    expect(await h.describe(arn)).toMatchObject({ status: 'FAILED', error: 'Always', redriveCount: 1 });
  });
});
