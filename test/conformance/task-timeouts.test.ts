/**
 * Task timeouts and heartbeats as AWS records them. Expected histories are executions recorded on AWS in
 * localstack's tests/aws/services/stepfunctions/v2 snapshots: timeouts/test_timeouts.snapshot.json
 * (test_fixed_timeout_service_lambda, test_fixed_timeout_lambda), timeouts/test_heartbeats.snapshot.json
 * (test_heartbeat_timeout), error_handling/test_task_service_lambda.snapshot.json (test_invoke_timeout).
 * A timed-out Task's event and the run's ExecutionFailed carry the error only, no cause; a heartbeat
 * timeout is recorded as States.Timeout, while Catch and Retry may still name States.HeartbeatTimeout
 * (AWS Step Functions developer guide, "Handling errors": HeartbeatTimeout "is only available inside the
 * Catch and Retry fields").
 */
import { describe, expect, it } from 'vitest';
import { jsonpath, neverReturns } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const engine = recordedEngine({
  sleeper: (_payload, { releaseClock }) => neverReturns(releaseClock),
  accept: () => ({}),
});
const FUNCTION = 'arn:aws:lambda:us-east-1:123456789012:function:sleeper';

const detailsOf = (events: readonly Record<string, unknown>[], type: string) =>
  events.find((e) => e.type === type)?.[`${type[0].toLowerCase()}${type.slice(1)}EventDetails`];

describe('a Task that times out', () => {
  it('lambda:invoke: TaskTimedOut and ExecutionFailed carry States.Timeout and no cause (AWS: test_fixed_timeout_service_lambda)', async () => {
    const run = await engine.run(
      jsonpath({
        Start: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke',
          TimeoutSeconds: 5,
          Parameters: { FunctionName: 'sleeper', Payload: {} },
          End: true,
        },
      }),
    );
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskTimedOut',
      'ExecutionFailed',
    ]);
    expect(detailsOf(run.events, 'TaskTimedOut')).toEqual({
      resourceType: 'lambda',
      resource: 'invoke',
      error: 'States.Timeout',
    });
    expect(detailsOf(run.events, 'ExecutionFailed')).toEqual({ error: 'States.Timeout' });
  });

  it('a function ARN: LambdaFunctionTimedOut carries the error only (AWS: test_fixed_timeout_lambda)', async () => {
    const run = await engine.run(
      jsonpath({ Start: { Type: 'Task', Resource: FUNCTION, TimeoutSeconds: 5, End: true } }),
    );
    expect(detailsOf(run.events, 'LambdaFunctionTimedOut')).toEqual({ error: 'States.Timeout' });
    expect(detailsOf(run.events, 'ExecutionFailed')).toEqual({ error: 'States.Timeout' });
  });

  it('caught: the error output still has Cause "" (AWS: test_invoke_timeout)', async () => {
    const run = await engine.run(
      jsonpath({
        Start: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke',
          TimeoutSeconds: 5,
          Parameters: { FunctionName: 'sleeper', Payload: {} },
          Catch: [{ ErrorEquals: ['States.Timeout'], Next: 'EndWithHandler' }],
          End: true,
        },
        EndWithHandler: { Type: 'Pass', ResultPath: '$.error', End: true },
      }),
    );
    expect(detailsOf(run.events, 'TaskTimedOut')).toEqual({
      resourceType: 'lambda',
      resource: 'invoke',
      error: 'States.Timeout',
    });
    expect(run.outcome).toEqual({
      status: 'SUCCEEDED',
      output: { Error: 'States.Timeout', Cause: '', error: { Error: 'States.Timeout', Cause: '' } },
    });
  });
});

describe('a Task whose heartbeat stops', () => {
  const heartbeatTask = (extra: object = {}) => ({
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
    TimeoutSeconds: 600,
    HeartbeatSeconds: 5,
    Parameters: { FunctionName: 'accept', Payload: { 'TaskToken.$': '$$.Task.Token' } },
    ...extra,
  });

  it('is recorded as States.Timeout, without a cause (AWS: test_heartbeat_timeout)', async () => {
    const run = await engine.run(jsonpath({ SendMessageWithWait: heartbeatTask({ End: true }) }));
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSubmitted',
      'TaskTimedOut',
      'ExecutionFailed',
    ]);
    expect(detailsOf(run.events, 'TaskTimedOut')).toEqual({
      resourceType: 'lambda',
      resource: 'invoke.waitForTaskToken',
      error: 'States.Timeout',
    });
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
  });

  it('is still taken by a Catch naming States.HeartbeatTimeout (documented: only available inside Catch and Retry)', async () => {
    const run = await engine.run(
      jsonpath({
        Wait: heartbeatTask({ Catch: [{ ErrorEquals: ['States.HeartbeatTimeout'], Next: 'Handled' }], End: true }),
        Handled: { Type: 'Pass', End: true },
      }),
    );
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: { Error: 'States.Timeout', Cause: '' } });
  });
});
