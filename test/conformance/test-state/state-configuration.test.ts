/**
 * TestState `stateConfiguration` (API_TestStateConfiguration; recorded: LocalStack's AWS-validated
 * test_state_configuration and test_state_mock_validation; ../shared/TESTING-APIS.md A6):
 * `retrierRetryCount` (retries already done before the mocked error), `mapIterationFailureCount` (failed
 * iterations, against the Map's tolerance), `errorCausedByState`, `mapItemReaderData`.
 */
import { describe, expect, it } from 'vitest';
import { testStateEngine } from './support';

const { testState, refusal } = testStateEngine();

const MOCK_ERROR = { errorOutput: { error: 'MockException', cause: 'Mock the error cause.' } };
const INPUT = { Values: ['first', 'second', 'third'] };
const PROCESSOR = {
  ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
  StartAt: 'TestState',
  States: { TestState: { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:111111111111:function:f', End: true } },
};
const map = (extra: object = {}) => ({
  QueryLanguage: 'JSONata',
  Type: 'Map',
  Items: '{% $states.input.Values %}',
  ItemProcessor: PROCESSOR,
  End: true,
  ...extra,
});
const THRESHOLD = 'States.ExceedToleratedFailureThreshold';

describe('retrierRetryCount', () => {
  const retrying = {
    QueryLanguage: 'JSONata',
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke',
    Arguments: { FunctionName: 'foo', Payload: 'bar' },
    Retry: [{ ErrorEquals: ['MockException'], IntervalSeconds: 1, MaxAttempts: 5, BackoffRate: 2.0 }],
    End: true,
  };

  it('below MaxAttempts: RETRIABLE with the backoff IntervalSeconds x BackoffRate^count (recorded: 4 of 5 -> 16 s)', async () => {
    const answer = await testState({
      definition: retrying,
      input: INPUT,
      inspectionLevel: 'DEBUG',
      stateConfiguration: { retrierRetryCount: 4 },
      mock: MOCK_ERROR,
    });
    expect(answer).toMatchObject({ status: 'RETRIABLE', error: 'MockException', cause: 'Mock the error cause.' });
    expect(answer.inspectionData.errorDetails).toEqual({ retryIndex: 0, retryBackoffIntervalSeconds: 16 });
  });

  it('at MaxAttempts: FAILED, errorDetails names the retrier and no backoff (recorded: 5 of 5)', async () => {
    const answer = await testState({
      definition: retrying,
      input: INPUT,
      inspectionLevel: 'DEBUG',
      stateConfiguration: { retrierRetryCount: 5 },
      mock: MOCK_ERROR,
    });
    expect(answer).toMatchObject({ status: 'FAILED', error: 'MockException' });
    expect(answer.inspectionData.errorDetails).toEqual({ retryIndex: 0 });
  });

  it('defaults to no retries done: the first backoff is IntervalSeconds', async () => {
    const answer = await testState({ definition: retrying, inspectionLevel: 'DEBUG', mock: MOCK_ERROR });
    expect(answer.inspectionData.errorDetails).toEqual({ retryIndex: 0, retryBackoffIntervalSeconds: 1 });
  });
});

describe('mapIterationFailureCount', () => {
  const retry = {
    Retry: [
      { ErrorEquals: ['MockException'], MaxAttempts: 3 },
      { ErrorEquals: [THRESHOLD], MaxAttempts: 2 },
    ],
  };
  const catchers = {
    Catch: [
      { ErrorEquals: ['MockException'], Output: '{% $states %}', Next: 'HandleMockError' },
      { ErrorEquals: [THRESHOLD], Output: '{% $states %}', Next: 'HandleThreshold' },
    ],
  };

  it('within ToleratedFailureCount: SUCCEEDED', async () => {
    const answer = await testState({
      definition: map({ ToleratedFailureCount: 1, ...catchers }),
      input: INPUT,
      stateConfiguration: { mapIterationFailureCount: 0 },
      mock: { result: [1, 1, 1] },
    });
    expect(answer.status).toBe('SUCCEEDED');
  });

  it('past ToleratedFailureCount with a catcher: CAUGHT_ERROR with States.ExceedToleratedFailureThreshold and the catcher index (recorded)', async () => {
    const answer = await testState({
      definition: map({ ToleratedFailureCount: 1, ...catchers }),
      input: INPUT,
      inspectionLevel: 'DEBUG',
      stateConfiguration: { mapIterationFailureCount: 2 },
      mock: { result: [0, 0, 1] },
    });
    expect(answer).toMatchObject({
      status: 'CAUGHT_ERROR',
      error: THRESHOLD,
      cause: 'The specified tolerated failure threshold was exceeded',
      nextState: 'HandleThreshold',
    });
    expect(answer.inspectionData.errorDetails).toEqual({ catchIndex: 1 });
  });

  it('past it with a retrier: RETRIABLE, retryIndex the matching retrier, backoff the default 1 s (recorded)', async () => {
    const answer = await testState({
      definition: map({ ToleratedFailureCount: 1, ...retry }),
      input: INPUT,
      inspectionLevel: 'DEBUG',
      stateConfiguration: { mapIterationFailureCount: 2 },
      mock: { result: [0, 0, 1] },
    });
    expect(answer).toMatchObject({ status: 'RETRIABLE', error: THRESHOLD });
    expect(answer.inspectionData.errorDetails).toEqual({ retryIndex: 1, retryBackoffIntervalSeconds: 1 });
  });

  it('with both a retrier and a catcher, Retry wins (recorded: MAP_TASK_STATE)', async () => {
    const answer = await testState({
      definition: map({ ToleratedFailureCount: 1, ...retry, ...catchers }),
      input: INPUT,
      stateConfiguration: { mapIterationFailureCount: 2 },
      mock: { result: [0, 0, 1] },
    });
    expect(answer.status).toBe('RETRIABLE');
  });

  it('past ToleratedFailurePercentage: the threshold error too', async () => {
    const answer = await testState({
      definition: map({ ToleratedFailurePercentage: 50 }),
      input: INPUT,
      stateConfiguration: { mapIterationFailureCount: 2 },
      mock: { result: [0, 0, 1] },
    });
    expect(answer).toMatchObject({ status: 'FAILED', error: THRESHOLD });
  });

  it('with no tolerance configured, failed iterations still SUCCEEDED (recorded: BASE_MAP_STATE, count 2)', async () => {
    const answer = await testState({
      definition: map(),
      input: INPUT,
      stateConfiguration: { mapIterationFailureCount: 2 },
      mock: { result: [0, 0, 1] },
    });
    expect(answer).toMatchObject({ status: 'SUCCEEDED', output: [0, 0, 1] });
  });

  it("does not check the inner states' Resources of a mocked Map (recorded: a placeholder function ARN, SUCCEEDED)", async () => {
    const placeholder = {
      ...PROCESSOR,
      States: {
        TestState: {
          Type: 'Task',
          Resource: 'arn:aws:lambda:your-region:your-account-id:function:yourHelloWorldFunction',
          End: true,
        },
      },
    };
    const answer = await testState({
      definition: map({ ItemProcessor: placeholder, ToleratedFailureCount: 1, ...retry }),
      input: INPUT,
      stateConfiguration: { mapIterationFailureCount: 0 },
      mock: { result: [1, 1, 1] },
    });
    expect(answer).toEqual({ status: 'SUCCEEDED', output: [1, 1, 1] });
  });

  it('without a mock: refused', async () => {
    expect(
      await refusal({ definition: map(), input: INPUT, stateConfiguration: { mapIterationFailureCount: 1 } }),
    ).toEqual({
      name: 'ValidationException',
      message: 'TestState does not support MapIterationFailureCount when a mock is not specified.',
    });
  });

  it('more than the mocked iterations: refused', async () => {
    expect(
      await refusal({
        definition: map({ ToleratedFailureCount: 1 }),
        input: INPUT,
        stateConfiguration: { mapIterationFailureCount: 4 },
        mock: { result: [1, 1, 1] },
      }),
    ).toEqual({
      name: 'ValidationException',
      message: 'Map iteration failure count must be less than or equal to the number of Map iterations',
    });
  });
});

describe('errorCausedByState', () => {
  it('a mocked error raised inside a Map FAILED with that error, whatever mapIterationFailureCount is (recorded)', async () => {
    for (const mapIterationFailureCount of [0, 2]) {
      const answer = await testState({
        definition: map(),
        input: INPUT,
        stateConfiguration: { errorCausedByState: 'TestState', mapIterationFailureCount },
        mock: MOCK_ERROR,
      });
      expect(answer).toEqual({ status: 'FAILED', error: 'MockException', cause: 'Mock the error cause.' });
    }
  });
});

describe('mapItemReaderData', () => {
  it('stands in for what an ItemReader would read, beside a mocked Map result (recorded: SUCCEEDED)', async () => {
    const machine = {
      QueryLanguage: 'JSONata',
      StartAt: 'State0',
      States: {
        State0: {
          Type: 'Map',
          ItemReader: {
            Resource: 'arn:aws:states:::s3:getObject',
            ReaderConfig: { InputType: 'JSON' },
            Arguments: { Bucket: '{% $states.input.Bucket %}', Key: '{% $states.input.Key %}' },
          },
          ItemProcessor: { ...PROCESSOR, StartAt: 'HandleItem', States: { HandleItem: { Type: 'Pass', End: true } } },
          End: true,
        },
      },
    };
    const answer = await testState({
      definition: machine,
      stateName: 'State0',
      input: { Bucket: 'test-bucket', Key: 'test-key' },
      inspectionLevel: 'DEBUG',
      stateConfiguration: { mapItemReaderData: JSON.stringify([1, 2, 3]) },
      mock: { result: [1, 4, 9] },
    });
    expect(answer).toEqual({
      status: 'SUCCEEDED',
      output: [1, 4, 9],
      inspectionData: { input: { Bucket: 'test-bucket', Key: 'test-key' }, maxConcurrency: 0 },
    });
  });
});
