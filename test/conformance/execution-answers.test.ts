/**
 * What DescribeExecution and StartSyncExecution answer about a closed run, as AWS records it (localstack's
 * AWS-validated snapshots): which of error, cause, output and outputDetails the answer carries for each
 * way a run ends.
 */
import { describe, expect, it } from 'vitest';
import { jsonpath } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const { harness } = recordedEngine();

/** The answer's fields that say how the run ended. */
function ending(answer: Record<string, unknown>) {
  return Object.fromEntries(
    ['status', 'output', 'outputDetails', 'error', 'cause'].filter((f) => f in answer).map((f) => [f, answer[f]]),
  );
}

describe('DescribeExecution', () => {
  it('of a run that timed out (TimeoutSeconds) has status TIMED_OUT and no error or cause', async () => {
    // recorded on AWS: localstack tests/aws/services/stepfunctions/v2/timeouts/test_timeouts.snapshot.json::test_global_timeout
    const arn = await harness.machine({
      ...jsonpath({ State_1: { Type: 'Wait', Seconds: 60, End: true } }),
      TimeoutSeconds: 5,
    });
    const exec = await harness.run(arn, {});
    await harness.clock.advance(5_000);
    await harness.idle();
    expect(ending(await harness.describe(exec))).toEqual({ status: 'TIMED_OUT' });
    expect((await harness.eventTypes(exec)).at(-1)).toBe('ExecutionTimedOut');
  });

  it('of a failed run has its error and cause and no outputDetails', async () => {
    // recorded on AWS: localstack tests/aws/services/stepfunctions/v2/base/test_base.snapshot.json::test_state_fail
    const arn = await harness.machine(
      jsonpath({ FailState: { Type: 'Fail', Error: 'SomeFailure', Cause: 'This state machines raises a failure.' } }),
    );
    const exec = await harness.run(arn, {});
    expect(ending(await harness.describe(exec))).toEqual({
      status: 'FAILED',
      error: 'SomeFailure',
      cause: 'This state machines raises a failure.',
    });
  });
});

describe('StartSyncExecution', () => {
  it('of a failed express run answers FAILED with error, cause and outputDetails {included: true} but no output', async () => {
    // recorded on AWS: localstack tests/aws/services/stepfunctions/v2/express/test_express_sync.snapshot.json::test_base[BASE_RAISE_FAILURE]
    const arn = await harness.machine(
      jsonpath({
        FailState: { Type: 'Fail', Error: 'SomeFailure', Cause: "This state machines raises a 'SomeFailure' failure." },
      }),
      undefined,
      { type: 'EXPRESS' },
    );
    const answer = await harness.call('StartSyncExecution', { stateMachineArn: arn, input: '{}' });
    expect(ending(answer)).toEqual({
      status: 'FAILED',
      error: 'SomeFailure',
      cause: "This state machines raises a 'SomeFailure' failure.",
      outputDetails: { included: true },
    });
  });

  it('of a succeeded express run answers SUCCEEDED with its output and outputDetails {included: true}', async () => {
    // recorded on AWS: localstack tests/aws/services/stepfunctions/v2/express/test_express_sync.snapshot.json::test_base[BASE_PASS_RESULT]
    const arn = await harness.machine(
      jsonpath({ State_1: { Type: 'Pass', Result: { Arg1: 'argument1' }, End: true } }),
      undefined,
      { type: 'EXPRESS' },
    );
    const answer = await harness.call('StartSyncExecution', { stateMachineArn: arn, input: '{}' });
    expect(ending(answer)).toEqual({
      status: 'SUCCEEDED',
      output: '{"Arg1":"argument1"}',
      outputDetails: { included: true },
    });
  });
});
