/**
 * Mock numbering as the Step Functions Local docs define it (sfn-local-mock-cfg-file.html, "Configuring
 * mocked service integrations"; RetryPath of sfn-local-test-sm-exec.html): every invocation of a mocked
 * state, retries included, takes the next 0-based number; the numbering goes on when the state is entered
 * again in the same run; a number the response does not define fails the run.
 */
import { describe, expect, it } from 'vitest';
import { jsonpath } from '../../../packages/engine/test/support/engine-harness';
import {
  GUIDE_MOCK_CONFIG,
  LAMBDA_SQS_INTEGRATION,
  mockedEngine,
  oneCase,
  SwitchableMockConfig,
  uniqueName,
} from './support';

const mocks = new SwitchableMockConfig();
const engine = mockedEngine(mocks);

const throwing = (error: string, cause = `${error} cause`) => ({ Throw: { Error: error, Cause: cause } });

describe('numbering', () => {
  it("every retry attempt takes the next number: RetryPath throws at 0, 1, 2 and returns at 3 (the guide's RetryPath)", async () => {
    mocks.use(GUIDE_MOCK_CONFIG);
    const run = await engine.run(
      LAMBDA_SQS_INTEGRATION,
      {},
      { machineName: 'LambdaSQSIntegration', testCase: 'RetryPath' },
    );
    expect(run.outcome.status).toBe('SUCCEEDED');
    const failed = run.events.filter((e) => e.type === 'TaskFailed').map((e) => e.taskFailedEventDetails);
    // A mocked failure is its error and cause alone, as Step Functions Local writes it (step-functions-local.test.ts).
    expect(failed).toEqual([
      { error: 'Lambda.ResourceNotReadyException', cause: 'Lambda resource is not ready.' },
      { error: 'Lambda.TimeoutException', cause: 'Lambda timed out.' },
      { error: 'Lambda.TimeoutException', cause: 'Lambda timed out.' },
    ]);
    // The same event positions LocalStack's test of the guide's case checks (events 4, 7, 10 and 13).
    expect([4, 7, 10, 13].map((i) => run.types[i])).toEqual([
      'TaskFailed',
      'TaskFailed',
      'TaskFailed',
      'TaskSucceeded',
    ]);
    expect(run.outcome).toEqual({
      status: 'SUCCEEDED',
      output: {
        MD5OfMessageBody: '3bcb6e8e-7h85-4375-b0bc-1a59812c6e51',
        MessageId: '3bcb6e8e-8b51-4375-b0bc-1a59812c6e51',
      },
    });
  });

  it('the HappyPath history has the events of the real calls: TaskScheduled, TaskStarted, TaskSucceeded per Task', async () => {
    mocks.use(GUIDE_MOCK_CONFIG);
    const run = await engine.run(
      LAMBDA_SQS_INTEGRATION,
      { in: 1 },
      { machineName: 'LambdaSQSIntegration', testCase: 'HappyPath' },
    );
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSucceeded',
      'TaskStateExited',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
    // The request is evaluated as for a real call (Parameters with the state input).
    expect(run.events[2].taskScheduledEventDetails).toMatchObject({
      resourceType: 'lambda',
      resource: 'invoke',
      parameters: { Payload: { in: 1 }, FunctionName: 'HelloWorldFunction' },
    });
    expect(run.events[4].taskSucceededEventDetails).toMatchObject({
      output: { StatusCode: 200, Payload: { StatusCode: 200, body: 'Hello from Lambda!' } },
    });
  });

  it('retries past the last number fail the run with States.Runtime naming the state, the invocation and the test case', async () => {
    const name = uniqueName('Short');
    mocks.use(oneCase(name, 'Flaky', { Call: 'TwoFailures' }, { TwoFailures: { '0-1': throwing('Boom') } }));
    const def = jsonpath({
      Call: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { FunctionName: 'f' },
        Retry: [{ ErrorEquals: ['States.ALL'], MaxAttempts: 5 }],
        End: true,
      },
    });
    const run = await engine.run(def, {}, { machineName: name, testCase: 'Flaky' });
    expect(run.outcome).toEqual({
      status: 'FAILED',
      error: 'States.Runtime',
      cause: `No mocked response for invocation 2 of state 'Call' in test case 'Flaky' of state machine '${name}': the response 'TwoFailures' defines invocations 0-1.`,
    });
    expect(run.types.filter((t) => t === 'TaskScheduled')).toHaveLength(3);
  });

  it('the numbering goes on across re-entries of the state in one run (a Choice loop takes "0" then "1")', async () => {
    const name = uniqueName('Loop');
    mocks.use(
      oneCase(
        name,
        'TwoRounds',
        { Poll: 'Polls' },
        {
          Polls: { '0': { Return: { Payload: { done: false } } }, '1': { Return: { Payload: { done: true } } } },
        },
      ),
    );
    const def = jsonpath({
      Poll: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { FunctionName: 'poll' },
        ResultSelector: { 'done.$': '$.Payload.done' },
        Next: 'Done?',
      },
      'Done?': {
        Type: 'Choice',
        Choices: [{ Variable: '$.done', BooleanEquals: true, Next: 'Finished' }],
        Default: 'Poll',
      },
      Finished: { Type: 'Succeed' },
    });
    const run = await engine.run(def, {}, { machineName: name, testCase: 'TwoRounds' });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: { done: true } });
    expect(run.types.filter((t) => t === 'TaskSucceeded')).toHaveLength(2);
  });

  it("a Throw goes through Catch as the real error would: the error output {Error, Cause} at the catcher's ResultPath", async () => {
    const name = uniqueName('Caught');
    mocks.use(
      oneCase(
        name,
        'Fails',
        { Call: 'Denied' },
        { Denied: { '0': throwing('Lambda.AWSLambdaException', 'Access denied') } },
      ),
    );
    const def = jsonpath({
      Call: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { FunctionName: 'f' },
        Catch: [{ ErrorEquals: ['Lambda.AWSLambdaException'], ResultPath: '$.error', Next: 'Handled' }],
        End: true,
      },
      Handled: { Type: 'Pass', End: true },
    });
    const run = await engine.run(def, { id: 7 }, { machineName: name, testCase: 'Fails' });
    expect(run.outcome).toEqual({
      status: 'SUCCEEDED',
      output: { id: 7, error: { Error: 'Lambda.AWSLambdaException', Cause: 'Access denied' } },
    });
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskFailed',
      'TaskStateExited',
      'PassStateEntered',
      'PassStateExited',
      'ExecutionSucceeded',
    ]);
  });

  it('a Return goes through ResultSelector, ResultPath and OutputPath as a real response would', async () => {
    const name = uniqueName('Flow');
    mocks.use(
      oneCase(
        name,
        'Ok',
        { Call: 'Answer' },
        { Answer: { '0': { Return: { StatusCode: 200, Payload: { total: 42, extra: 'x' } } } } },
      ),
    );
    const def = jsonpath({
      Call: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { FunctionName: 'f' },
        ResultSelector: { 'total.$': '$.Payload.total' },
        ResultPath: '$.result',
        OutputPath: '$.result',
        End: true,
      },
    });
    const run = await engine.run(def, { keep: true }, { machineName: name, testCase: 'Ok' });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: { total: 42 } });
  });

  it('a Return may be any JSON value, and JSONata Output reads it as $states.result', async () => {
    const name = uniqueName('Jsonata');
    mocks.use(oneCase(name, 'Ok', { Call: 'Text' }, { Text: { '0': { Return: 'plain text' } } }));
    const def = {
      QueryLanguage: 'JSONata',
      StartAt: 'Call',
      States: {
        Call: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke',
          Arguments: { FunctionName: 'f' },
          Output: '{% {"got": $states.result} %}',
          End: true,
        },
      },
    };
    const run = await engine.run(def, {}, { machineName: name, testCase: 'Ok' });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: { got: 'plain text' } });
  });
});
