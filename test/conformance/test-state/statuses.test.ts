/**
 * TestState statuses as AWS answers them (API_TestState; recorded: LocalStack's AWS-validated
 * test_test_state_scenarios, test_state_configuration; ../shared/TESTING-APIS.md A3, A4):
 * SUCCEEDED with `nextState` only where the state has a Next (or a Choice picked one); FAILED with the
 * error and cause and no output; RETRIABLE with no output and no nextState; CAUGHT_ERROR with the
 * catcher's output and Next. An un-mocked Task makes the real call on the local services.
 */
import { describe, expect, it } from 'vitest';
import { namedError } from '../../../packages/engine/test/support/engine-harness';
import { ROLE_ARN, testStateEngine } from './support';

const { testState, harness } = testStateEngine({
  greet: (p: { inputData: string }) => `${p.inputData}!`,
  echo: (p: unknown) => ({ echoed: p }),
  broken: () => {
    throw namedError('BrokenError', 'it broke');
  },
});

const jsonataTask = (extra: object) => ({
  QueryLanguage: 'JSONata',
  Type: 'Task',
  Resource: 'arn:aws:states:::lambda:invoke',
  Arguments: { FunctionName: 'foo', Payload: 'bar' },
  ...extra,
});
const MOCK_ERROR = { errorOutput: { error: 'MockException', cause: 'Mock the cause of the error.' } };

describe('SUCCEEDED', () => {
  it('answers a Pass that ends its machine with its output and no nextState (recorded: BASE_PASS_STATE)', async () => {
    expect(await testState({ definition: { Type: 'Pass', End: true }, input: { Value: 'HelloWorld' } })).toEqual({
      status: 'SUCCEEDED',
      output: { Value: 'HelloWorld' },
    });
  });

  it('names the Next state of a state that has one', async () => {
    expect(await testState({ definition: { Type: 'Pass', Result: { a: 1 }, Next: 'After' } })).toEqual({
      status: 'SUCCEEDED',
      output: { a: 1 },
      nextState: 'After',
    });
  });

  it("names a Choice's chosen branch as nextState and passes its input on (recorded: BASE_CHOICE_STATE)", async () => {
    const choice = {
      Type: 'Choice',
      Choices: [
        {
          And: [
            { Variable: '$.type', StringEquals: 'Private' },
            { Variable: '$.value', NumericGreaterThanEquals: 20 },
            { Variable: '$.value', NumericLessThan: 30 },
          ],
          Next: 'ValueInTwenties',
        },
      ],
      Default: 'DefaultState',
    };
    expect(await testState({ definition: choice, input: { type: 'Private', value: 22 } })).toEqual({
      status: 'SUCCEEDED',
      output: { type: 'Private', value: 22 },
      nextState: 'ValueInTwenties',
    });
  });

  it('answers a Succeed state with its input and no nextState', async () => {
    expect(await testState({ definition: { Type: 'Succeed' }, input: { Value: 'HelloWorld' } })).toEqual({
      status: 'SUCCEEDED',
      output: { Value: 'HelloWorld' },
    });
  });

  it('answers a Wait state at once, with its next state (the test does not wait)', async () => {
    expect(await testState({ definition: { Type: 'Wait', Seconds: 3600, Next: 'Later' }, input: { a: 1 } })).toEqual({
      status: 'SUCCEEDED',
      output: { a: 1 },
      nextState: 'Later',
    });
  });
});

describe('FAILED', () => {
  it.each([
    ['300 KB', 300 * 1024],
    ['1 MB', 1024 * 1024],
  ])(
    'fails a state whose output is %s with States.DataLimitExceeded, as the same Pass fails in a run',
    async (_what, size) => {
      const pass = { QueryLanguage: 'JSONata', Type: 'Pass', Output: `{% $pad("", ${size}, "x") %}`, End: true };
      const answer = await testState({ definition: pass });
      expect(answer).toMatchObject({ status: 'FAILED', error: 'States.DataLimitExceeded' });
      expect(answer.cause).toMatch(
        /returned a result with a size exceeding the maximum number of bytes service limit\.$/,
      );
      expect(answer.output).toBeUndefined();
    },
  );

  it('answers a Fail state with its error and cause and no output (recorded: BASE_FAIL_STATE)', async () => {
    const fail = { Type: 'Fail', Error: 'SomeFailure', Cause: "This state machines raises a 'SomeFailure' failure." };
    expect(await testState({ definition: fail, input: { Value: 'HelloWorld' } })).toEqual({
      status: 'FAILED',
      error: 'SomeFailure',
      cause: "This state machines raises a 'SomeFailure' failure.",
    });
  });

  it('fails with a mocked error no retrier or catcher handles', async () => {
    expect(await testState({ definition: jsonataTask({ End: true }), mock: MOCK_ERROR })).toEqual({
      status: 'FAILED',
      error: 'MockException',
      cause: 'Mock the cause of the error.',
    });
  });

  it('fails with a runtime error of the data flow (States.Runtime, which nothing catches)', async () => {
    const pass = { Type: 'Pass', InputPath: '$.missing', End: true };
    const answer = await testState({ definition: pass, input: {} });
    expect(answer.status).toBe('FAILED');
    expect(answer.error).toBe('States.Runtime');
    expect(answer).not.toHaveProperty('output');
  });
});

describe('RETRIABLE', () => {
  it('answers an error a retrier takes with no output and no nextState', async () => {
    const task = jsonataTask({
      Retry: [{ ErrorEquals: ['MockException'], IntervalSeconds: 1, MaxAttempts: 5, BackoffRate: 2 }],
      Next: 'After',
    });
    expect(await testState({ definition: task, mock: MOCK_ERROR })).toEqual({
      status: 'RETRIABLE',
      error: 'MockException',
      cause: 'Mock the cause of the error.',
    });
  });
});

describe('CAUGHT_ERROR', () => {
  const catching = jsonataTask({
    Catch: [
      { ErrorEquals: ['MockException'], Output: '{% $states %}', Next: 'HandleMockError' },
      { ErrorEquals: ['States.TaskFailed'], Output: '{% $states %}', Next: 'HandleThreshold' },
    ],
    End: true,
  });

  it("answers an error a catcher takes with the catcher's output and Next (recorded: BASE_TASK_STATE_CATCH)", async () => {
    const answer = await testState({
      definition: catching,
      input: { Value: 'HelloWorld' },
      roleArn: ROLE_ARN,
      mock: MOCK_ERROR,
    });
    expect(answer).toMatchObject({
      status: 'CAUGHT_ERROR',
      error: 'MockException',
      cause: 'Mock the cause of the error.',
      nextState: 'HandleMockError',
    });
    expect(answer.output.input).toEqual({ Value: 'HelloWorld' });
    expect(answer.output.errorOutput).toEqual({ Error: 'MockException', Cause: 'Mock the cause of the error.' });
    expect(answer.output.context.State.Name).toBe('StateName');
  });

  it('lets States.TaskFailed in ErrorEquals catch a mocked States.TaskFailed (recorded)', async () => {
    const answer = await testState({
      definition: catching,
      mock: { errorOutput: { error: 'States.TaskFailed', cause: 'The task failed.' } },
    });
    expect(answer).toMatchObject({
      status: 'CAUGHT_ERROR',
      error: 'States.TaskFailed',
      cause: 'The task failed.',
      nextState: 'HandleThreshold',
    });
  });

  it("places the error output per the catcher's ResultPath in JSONPath", async () => {
    const task = {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: 'f' },
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Handle' }],
      End: true,
    };
    expect(
      await testState({ definition: task, input: { a: 1 }, mock: { errorOutput: { error: 'E', cause: 'C' } } }),
    ).toEqual({
      status: 'CAUGHT_ERROR',
      error: 'E',
      cause: 'C',
      output: { a: 1, error: { Error: 'E', Cause: 'C' } },
      nextState: 'Handle',
    });
  });
});

describe('an un-mocked Task makes the real call on the local services', () => {
  it('invokes a function ARN and takes its payload as the result (recorded: BASE_LAMBDA_TASK_STATE)', async () => {
    const task = { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:123456789012:function:greet', End: true };
    const before = harness.count('greet');
    expect(await testState({ definition: task, input: { inputData: 'HelloWorld' }, roleArn: ROLE_ARN })).toEqual({
      status: 'SUCCEEDED',
      output: 'HelloWorld!',
    });
    expect(harness.count('greet')).toBe(before + 1);
  });

  it('answers lambda:invoke with the full Invoke result (ExecutedVersion, Payload, SdkHttpMetadata, StatusCode)', async () => {
    const task = {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: 'echo', 'Payload.$': '$' },
      End: true,
    };
    const answer = await testState({ definition: task, input: { a: 1 }, roleArn: ROLE_ARN });
    expect(answer.status).toBe('SUCCEEDED');
    expect(Object.keys(answer.output).sort()).toEqual([
      'ExecutedVersion',
      'Payload',
      'SdkHttpMetadata',
      'SdkResponseMetadata',
      'StatusCode',
    ]);
    expect(answer.output.Payload).toEqual({ echoed: { a: 1 } });
  });

  it("goes through Retry and Catch with the real call's error", async () => {
    const task = {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: 'broken' },
      Catch: [{ ErrorEquals: ['BrokenError'], Next: 'Handle' }],
      End: true,
    };
    const answer = await testState({ definition: task, roleArn: ROLE_ARN, inspectionLevel: 'DEBUG' });
    expect(answer).toMatchObject({ status: 'CAUGHT_ERROR', error: 'BrokenError', nextState: 'Handle' });
    expect(answer.inspectionData.errorDetails).toEqual({ catchIndex: 0 });
  });

  it('fails an un-mocked Task of an integration the engine accepts but does not serve, naming how to serve it', async () => {
    const task = {
      Type: 'Task',
      Resource: 'arn:aws:states:::aws-sdk:kms:encrypt',
      Parameters: { KeyId: 'k', Plaintext: 'p' },
      End: true,
    };
    const answer = await testState({ definition: task, roleArn: ROLE_ARN });
    expect(answer).toMatchObject({ status: 'FAILED', error: 'Local.IntegrationNotServed' });
  });
});
