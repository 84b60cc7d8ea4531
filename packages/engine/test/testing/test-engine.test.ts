/**
 * @autosave/engine/testing through its public entry, as a library user's test meets it: functions by value, a
 * virtual clock, mocked integrations and a restart, with no server and no emulated service.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { days } from '@autosave/workflow/config';
import { mockConfig, mockReturn, mockThrow, TestEngine } from '@autosave/engine/testing';

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:';
const invoke = (fn: string, rest: object = {}) => ({
  Type: 'Task',
  Resource: 'arn:aws:states:::lambda:invoke',
  Arguments: { FunctionName: `${FUNCTION_ARN}${fn}`, Payload: '{% $states.input %}' },
  Output: '{% $states.result.Payload %}',
  ...rest,
});
const machine = (states: Record<string, object>) => ({
  QueryLanguage: 'JSONata',
  StartAt: Object.keys(states)[0],
  States: states,
});

const started: TestEngine[] = [];
const startEngine = async (...args: Parameters<typeof TestEngine.start>) => {
  const engine = await TestEngine.start(...args);
  started.push(engine);
  return engine;
};
afterEach(async () => {
  for (const engine of started.splice(0)) await engine.stop();
});

describe('TestEngine', () => {
  it('runs a function given by value, retrying its failures as the clock moves', async () => {
    let calls = 0;
    const engine = await startEngine({
      functions: {
        charge: (payload) => {
          calls += 1;
          if (calls < 3) throw Object.assign(new Error('card network down'), { name: 'NetworkError' });
          return { charged: (payload as { amount: number }).amount };
        },
      },
    });
    const arn = await engine.createStateMachine(
      'charge',
      machine({
        Charge: invoke('charge', {
          Retry: [{ ErrorEquals: ['NetworkError'], IntervalSeconds: 30, MaxAttempts: 3 }],
          End: true,
        }),
      }),
    );

    const first = await engine.run(arn, { amount: 42 });
    expect(first.status).toBe('RUNNING');
    expect(engine.invocationsOf('charge')).toBe(1);

    await engine.advance(30_000);
    await engine.advance(60_000);
    expect(await engine.describe(first.executionArn)).toMatchObject({ status: 'SUCCEEDED', output: { charged: 42 } });
    expect(engine.invocationsOf('charge')).toBe(3);
    const types = (await engine.history(first.executionArn)).map((e) => e.type);
    expect(types.filter((t) => t === 'TaskFailed')).toHaveLength(2);
  });

  it('waits three days of virtual time in no time, and a function it was not given fails as Lambda says', async () => {
    const engine = await startEngine({ startAt: new Date('2027-03-01T09:00:00Z') });
    const arn = await engine.createStateMachine(
      'wait',
      machine({
        Hold: { Type: 'Wait', Seconds: 259_200, Next: 'Missing' },
        Missing: invoke('not-deployed', { End: true }),
      }),
    );

    const run = await engine.run(arn);
    expect(run.status).toBe('RUNNING');
    await engine.advance(days(3));
    const after = await engine.describe(run.executionArn);
    expect(after).toMatchObject({ status: 'FAILED', error: 'Lambda.ResourceNotFoundException' });
    expect(engine.clock.now()).toBe(Date.parse('2027-03-04T09:00:00Z'));
  });

  it('answers mocked integrations from a test case, and carries a run on across a restart', async () => {
    const mocks = mockConfig()
      .testCase('order', 'TableBusy', { Save: 'ThrottledThenSaved' })
      .response(
        'ThrottledThenSaved',
        mockThrow('DynamoDB.ProvisionedThroughputExceededException', 'slow down'),
        mockReturn({ SdkHttpMetadata: { HttpStatusCode: 200 } }),
      );
    const engine = await startEngine({ mocks });
    const arn = await engine.createStateMachine(
      'order',
      machine({
        Save: {
          Type: 'Task',
          Resource: 'arn:aws:states:::dynamodb:putItem',
          Arguments: { TableName: 'orders', Item: { id: { S: '{% $states.input.id %}' } } },
          Retry: [{ ErrorEquals: ['DynamoDB.ProvisionedThroughputExceededException'], IntervalSeconds: 10 }],
          Output: '{% {"saved": $states.result.SdkHttpMetadata.HttpStatusCode = 200} %}',
          End: true,
        },
      }),
    );

    const run = await engine.run(arn, { id: 'o-1' }, { testCase: 'TableBusy' });
    expect(run.status).toBe('RUNNING');

    const restarted = await engine.restart();
    started.splice(started.indexOf(engine), 1, restarted);
    await restarted.advance(10_000);
    expect(await restarted.describe(run.executionArn)).toMatchObject({ status: 'SUCCEEDED', output: { saved: true } });
  });
});
