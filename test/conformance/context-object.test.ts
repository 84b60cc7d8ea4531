/**
 * The context object (`$$`) has exactly AWS's fields. Expected objects are the executions recorded on AWS
 * in localstack's snapshots: v2/context_object test_input_path[$$] (a STANDARD run's `$$` in a Pass),
 * v2/express test_express_sync test_query_runtime_memory (`$$.Execution` of a StartSyncExecution run),
 * v2/scenarios test_lambda_invoke_with_retry_extended_input (State.RetryCount in a retried Task).
 * ARNs, times and names differ per run: each case checks the field names, and the values that do not.
 */
import { describe, expect, it } from 'vitest';
import { jsonpath } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const seen: unknown[] = [];
const engine = recordedEngine({
  flaky: (payload) => {
    seen.push(payload);
    throw Object.assign(new Error('Some exception was raised.'), { name: 'Exception' });
  },
});

const keys = (o: unknown) => Object.keys(o as object).sort();
const passContext = jsonpath({ TestState: { Type: 'Pass', InputPath: '$$', End: true } });

describe('$$ of a STANDARD run', () => {
  it('has Execution {Id, Input, StartTime, Name, RoleArn, RedriveCount: 0}, StateMachine {Id, Name} and, outside a Task with Retry, State {Name, EnteredTime} (AWS: test_input_path[$$])', async () => {
    const run = await engine.run(passContext, { 'input-value': 0 });
    const context = (run.outcome as { output: Record<string, any> }).output;
    expect(keys(context)).toEqual(['Execution', 'State', 'StateMachine']);
    expect(keys(context.Execution)).toEqual(['Id', 'Input', 'Name', 'RedriveCount', 'RoleArn', 'StartTime']);
    expect(context.Execution).toMatchObject({ Input: { 'input-value': 0 }, RedriveCount: 0 });
    expect(keys(context.StateMachine)).toEqual(['Id', 'Name']);
    expect(context.State).toEqual({ Name: 'TestState', EnteredTime: expect.any(String) });
  });

  it('has State.RetryCount in a Task with Retry, counting attempts from 0 (AWS: test_lambda_invoke_with_retry_extended_input)', async () => {
    seen.length = 0;
    const run = await engine.run(
      jsonpath({
        InvokeLambdaWithRetry: {
          Type: 'Task',
          Resource: 'arn:aws:lambda:us-east-1:123456789012:function:flaky',
          Parameters: { 'ThisContextObject.$': '$$', 'ThisState.$': '$' },
          Retry: [{ ErrorEquals: ['States.ALL'], MaxAttempts: 3 }],
          Catch: [{ ErrorEquals: ['States.ALL'], Next: 'HandleError' }],
          End: true,
        },
        HandleError: { Type: 'Pass', End: true },
      }),
      { Value1: 'HelloWorld!', Value2: null },
    );
    expect(run.outcome).toMatchObject({ status: 'SUCCEEDED', output: { Error: 'Exception' } });
    const states = seen.map((p) => (p as { ThisContextObject: { State: unknown } }).ThisContextObject.State);
    expect(states).toEqual(
      [0, 1, 2, 3].map((RetryCount) => ({
        Name: 'InvokeLambdaWithRetry',
        EnteredTime: expect.any(String),
        RetryCount,
      })),
    );
  });
});

describe('$$ of a synchronous Express run (StartSyncExecution)', () => {
  it('has Execution {Id, Input, Name, RoleArn, StartTime}: no RedriveCount (AWS: test_express_sync test_query_runtime_memory)', async () => {
    const h = engine.harness;
    const arn = await h.machine(passContext, undefined, { type: 'EXPRESS' });
    const answer = await h.call('StartSyncExecution', {
      stateMachineArn: arn,
      input: JSON.stringify({ message: 'TestMessage' }),
    });
    expect(answer.status).toBe('SUCCEEDED');
    const context = JSON.parse(answer.output);
    expect(keys(context.Execution)).toEqual(['Id', 'Input', 'Name', 'RoleArn', 'StartTime']);
    expect(context.Execution).toMatchObject({ Id: answer.executionArn, Input: { message: 'TestMessage' } });
    expect(context.State).toEqual({ Name: 'TestState', EnteredTime: expect.any(String) });
  });
});
