/**
 * Service integration results and errors as AWS records them (localstack's AWS-validated snapshots:
 * services/test_lambda_task_service, services/test_sfn_task_service, error_handling/test_task_service_lambda,
 * error_handling/test_task_service_sqs). `$states.result` taken whole must have AWS's keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineHarness, jsonpath } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const engine = recordedEngine({ echo: (payload) => payload });

function taskResult(run: Awaited<ReturnType<typeof engine.run>>): Record<string, any> {
  const succeeded = run.events.find((e) => e.type === 'TaskSucceeded') as
    { taskSucceededEventDetails: { output: Record<string, any> } } | undefined;
  expect(succeeded, run.types.join(',')).toBeDefined();
  return succeeded!.taskSucceededEventDetails.output;
}

describe('lambda:invoke results', () => {
  it('carry SdkHttpMetadata (AllHttpHeaders, HttpHeaders, HttpStatusCode) and SdkResponseMetadata beside Payload', async () => {
    const def = jsonpath({
      Invoke: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { FunctionName: 'echo', Payload: {} },
        End: true,
      },
    });
    const result = taskResult(await engine.run(def, {}));
    expect(Object.keys(result)).toEqual([
      'ExecutedVersion',
      'Payload',
      'SdkHttpMetadata',
      'SdkResponseMetadata',
      'StatusCode',
    ]);
    expect(result).toMatchObject({ ExecutedVersion: '$LATEST', Payload: {}, StatusCode: 200 });
    const { AllHttpHeaders, HttpHeaders, HttpStatusCode } = result.SdkHttpMetadata;
    expect(HttpStatusCode).toBe(200);
    expect(Object.keys(HttpHeaders)).toEqual([
      'Connection',
      'Content-Length',
      'Content-Type',
      'Date',
      'X-Amz-Executed-Version',
      'x-amzn-Remapped-Content-Length',
      'x-amzn-RequestId',
      'X-Amzn-Trace-Id',
    ]);
    expect(HttpHeaders).toMatchObject({
      Connection: 'keep-alive',
      'Content-Length': '2',
      'Content-Type': 'application/json',
      'X-Amz-Executed-Version': '$LATEST',
      'x-amzn-Remapped-Content-Length': '0',
    });
    expect(AllHttpHeaders).toMatchObject({
      'X-Amz-Executed-Version': ['$LATEST'],
      'Content-Length': ['2'],
      Connection: ['keep-alive'],
      'Content-Type': ['application/json'],
    });
    expect(Object.keys(AllHttpHeaders).sort()).toEqual(Object.keys(HttpHeaders).sort());
    expect(result.SdkResponseMetadata.RequestId).toBe(HttpHeaders['x-amzn-RequestId']);
  });

  it('with LogType Tail carry LogResult, the base64 log tail, and its X-Amz-Log-Result header first (recorded: test_lambda_task_service test_invoke_unsupported_param)', async () => {
    const def = jsonpath({
      Invoke: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { FunctionName: 'echo', Payload: null, LogType: 'Tail' },
        End: true,
      },
    });
    const result = taskResult(await engine.run(def, {}));
    expect(Object.keys(result)).toEqual([
      'ExecutedVersion',
      'LogResult',
      'Payload',
      'SdkHttpMetadata',
      'SdkResponseMetadata',
      'StatusCode',
    ]);
    const { AllHttpHeaders, HttpHeaders } = result.SdkHttpMetadata;
    expect(Object.keys(AllHttpHeaders)).toEqual([
      'X-Amz-Log-Result',
      'X-Amz-Executed-Version',
      'x-amzn-Remapped-Content-Length',
      'Connection',
      'x-amzn-RequestId',
      'Content-Length',
      'Date',
      'X-Amzn-Trace-Id',
      'Content-Type',
    ]);
    expect(Object.keys(HttpHeaders)).toEqual([
      'Connection',
      'Content-Length',
      'Content-Type',
      'Date',
      'X-Amz-Executed-Version',
      'X-Amz-Log-Result',
      'x-amzn-Remapped-Content-Length',
      'x-amzn-RequestId',
      'X-Amzn-Trace-Id',
    ]);
    expect(HttpHeaders['X-Amz-Log-Result']).toBe(result.LogResult);
    // The platform's lines of the invocation, under the response's request id.
    const log = Buffer.from(result.LogResult, 'base64').toString('utf8');
    const id = HttpHeaders['x-amzn-RequestId'];
    expect(log).toMatch(
      new RegExp(
        `^START RequestId: ${id} Version: \\$LATEST\nEND RequestId: ${id}\nREPORT RequestId: ${id}\tDuration: [0-9.]+ ms\tBilled Duration: \\d+ ms\t\n$`,
      ),
    );
  });

  it('without LogType Tail carry no LogResult', async () => {
    const def = jsonpath({
      Invoke: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { FunctionName: 'echo', Payload: {}, LogType: 'None' },
        End: true,
      },
    });
    expect(taskResult(await engine.run(def, {}))).not.toHaveProperty('LogResult');
  });

  it("an unknown function fails with Lambda.ResourceNotFoundException in the Java SDK's words", async () => {
    const def = jsonpath({
      Invoke: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { FunctionName: 'arn:aws:lambda:us-east-1:111111111111:function:no_such_fn' },
        End: true,
      },
    });
    const { outcome } = await engine.run(def, {});
    expect(outcome).toMatchObject({ status: 'FAILED', error: 'Lambda.ResourceNotFoundException' });
    expect((outcome as { cause: string }).cause).toMatch(
      /^Function not found: arn:aws:lambda:us-east-1:111111111111:function:no_such_fn:\$LATEST \(Service: AWSLambda; Status Code: 404; Error Code: ResourceNotFoundException; Request ID: [0-9a-f-]{36}; Proxy: null\)$/,
    );
  });
});

describe('states:startExecution results', () => {
  it('carry ExecutionArn, SdkHttpMetadata, SdkResponseMetadata and StartDate', async () => {
    const child = await engine.harness.machine(jsonpath({ Done: { Type: 'Succeed' } }));
    const def = jsonpath({
      Start: {
        Type: 'Task',
        Resource: 'arn:aws:states:::states:startExecution',
        Parameters: { StateMachineArn: child, Input: {}, Name: 'TestStartTarget' },
        End: true,
      },
    });
    const result = taskResult(await engine.run(def, {}));
    expect(Object.keys(result)).toEqual(['ExecutionArn', 'SdkHttpMetadata', 'SdkResponseMetadata', 'StartDate']);
    expect(result.ExecutionArn).toMatch(/:execution:[^:]+:TestStartTarget$/);
    expect(Object.keys(result.SdkHttpMetadata.HttpHeaders)).toEqual([
      'connection',
      'Content-Length',
      'Content-Type',
      'Date',
      'x-amzn-RequestId',
    ]);
    expect(result.SdkHttpMetadata.HttpHeaders['Content-Type']).toBe('application/x-amz-json-1.0');
  });
});

describe('states:startExecution.sync (AWS: callback/test_callback test_start_execution_sync, _sync2, _sync_delegate_failure)', () => {
  const passResult = jsonpath({ State_1: { Type: 'Pass', Result: { Arg1: 'argument1' }, End: true } });
  const failing = jsonpath({
    State_1: { Type: 'Fail', Error: 'SomeFailure', Cause: "This state machines raises a 'SomeFailure' failure." },
  });
  const startSync = (resource: string, child: string) =>
    jsonpath({
      StartExecution: {
        Type: 'Task',
        Resource: resource,
        Parameters: { StateMachineArn: child, Input: null, Name: 'TestStartTarget' },
        End: true,
      },
    });
  const details = (run: Awaited<ReturnType<typeof engine.run>>, type: string) =>
    run.events.find((e) => e.type === type)?.[`${type[0].toLowerCase()}${type.slice(1)}EventDetails`] as Record<
      string,
      any
    >;

  it('records TaskSubmitted with the StartExecution result before TaskSucceeded, even when the child ends at once', async () => {
    const child = await engine.harness.machine(passResult);
    const run = await engine.run(startSync('arn:aws:states:::states:startExecution.sync', child), {});
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSubmitted',
      'TaskSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
    expect(Object.keys(details(run, 'TaskSubmitted').output)).toEqual([
      'ExecutionArn',
      'SdkHttpMetadata',
      'SdkResponseMetadata',
      'StartDate',
    ]);
    const output = details(run, 'TaskSucceeded').output;
    expect(Object.keys(output)).toEqual([
      'ExecutionArn',
      'Input',
      'InputDetails',
      'Name',
      'Output',
      'OutputDetails',
      'StartDate',
      'StateMachineArn',
      'Status',
      'StopDate',
    ]);
    // Input null starts the child with {} (recorded: "Input": "{}"); .sync gives texts, .sync:2 JSON.
    expect(output).toMatchObject({
      Input: '{}',
      Output: '{"Arg1":"argument1"}',
      Status: 'SUCCEEDED',
      Name: 'TestStartTarget',
    });
  });

  it('.sync:2 gives the child input and output as JSON', async () => {
    const child = await engine.harness.machine(passResult);
    const run = await engine.run(startSync('arn:aws:states:::states:startExecution.sync:2', child), {});
    expect(run.types).toContain('TaskSubmitted');
    expect(details(run, 'TaskSucceeded').output).toMatchObject({ Input: {}, Output: { Arg1: 'argument1' } });
  });

  it('a failed child fails the Task with States.TaskFailed and the child description (with its Error and Cause) as cause', async () => {
    const child = await engine.harness.machine(failing);
    const run = await engine.run(startSync('arn:aws:states:::states:startExecution.sync', child), {});
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSubmitted',
      'TaskFailed',
      'ExecutionFailed',
    ]);
    const failed = details(run, 'TaskFailed');
    expect(failed.error).toBe('States.TaskFailed');
    const cause = JSON.parse(failed.cause);
    expect(Object.keys(cause)).toEqual([
      'Cause',
      'Error',
      'ExecutionArn',
      'Input',
      'InputDetails',
      'Name',
      'StartDate',
      'StateMachineArn',
      'Status',
      'StopDate',
    ]);
    expect(cause).toMatchObject({
      Cause: "This state machines raises a 'SomeFailure' failure.",
      Error: 'SomeFailure',
      Input: '{}',
      InputDetails: { Included: true },
      Status: 'FAILED',
    });
  });
});

describe("states:startExecution: the answer's Content-Length is its body's, startDate written as the Java SDK writes a double", () => {
  it('a 113-character execution ARN started at a time with milliseconds gives 161 (AWS: test_start_execution_sync, 161)', async () => {
    // statemachine_create_and_record_execution_<8 chars> is the name localstack's fixture gives the child.
    const child = await engine.harness.machine(
      jsonpath({ Done: { Type: 'Succeed' } }),
      'statemachine_create_and_record_execution_0a1b2c3d',
    );
    const now = engine.harness.clock.now();
    await engine.harness.clock.advance((839 - (now % 1000) + 1000) % 1000 || 1000);
    const def = jsonpath({
      Start: {
        Type: 'Task',
        Resource: 'arn:aws:states:::states:startExecution',
        Parameters: { StateMachineArn: child, Name: 'TestStartTarget' },
        End: true,
      },
    });
    const result = taskResult(await engine.run(def, {}));
    expect(result.ExecutionArn).toHaveLength(113);
    expect(result.SdkHttpMetadata.HttpHeaders['Content-Length']).toBe('161');
  });
});

describe('states:startExecution.sync with $$.Task.Token (AWS: callback/test_callback test_sync_with_task_token)', () => {
  it('gives the Task a token, and SendTaskSuccess with it ends the Task with that output before the child ends', async () => {
    const child = await engine.harness.machine(jsonpath({ Hold: { Type: 'Wait', Seconds: 86_400, End: true } }));
    const def = jsonpath({
      StartExecution: {
        Type: 'Task',
        Resource: 'arn:aws:states:::states:startExecution.sync',
        Parameters: { StateMachineArn: child, Input: { 'TaskToken.$': '$$.Task.Token' } },
        End: true,
      },
    });
    const h = engine.harness;
    const arn = await h.run(await h.machine(def), {});
    const scheduled = (await h.history(arn)).find((e) => e.type === 'TaskScheduled');
    const token = JSON.parse(scheduled.taskScheduledEventDetails.parameters).Input.TaskToken as string;
    expect(token).toEqual(expect.any(String));
    await h.call('SendTaskSuccess', { taskToken: token, output: JSON.stringify('SQS_SEND_MESSAGE_AND_WAIT') });
    await h.idle();
    expect(await h.eventTypes(arn)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSubmitted',
      'TaskSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
    expect(await h.output(arn)).toBe('SQS_SEND_MESSAGE_AND_WAIT');
  });
});

describe('states:startExecution errors (AWS: error_handling/test_task_service_sfn test_start_execution_no_such_arn)', () => {
  it("an unknown state machine is StepFunctions.StateMachineDoesNotExistException, its cause in the Java SDK's words", async () => {
    const missing = `${await engine.harness.machine(jsonpath({ Done: { Type: 'Succeed' } }))}nope`;
    const run = await engine.run(
      jsonpath({
        Start: {
          Type: 'Task',
          Resource: 'arn:aws:states:::states:startExecution',
          Parameters: { StateMachineArn: missing },
          End: true,
        },
      }),
    );
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'StepFunctions.StateMachineDoesNotExistException' });
    const cause = (run.outcome as { cause: string }).cause;
    expect(
      cause.startsWith(
        `State Machine Does Not Exist: '${missing}' (Service: AWSStepFunctions; Status Code: 400; Error Code: StateMachineDoesNotExist; Request ID: `,
      ),
    ).toBe(true);
    expect(cause).toMatch(/; Request ID: [0-9a-f-]{36}; Proxy: null\)$/);
  });
});

describe('sqs:sendMessage errors', () => {
  it('a queue URL whose host does not resolve is SQS.SdkClientException, catchable', async () => {
    const def = jsonpath({
      Start: {
        Type: 'Task',
        Resource: 'arn:aws:states:::sqs:sendMessage',
        Parameters: { QueueUrl: 'http://no-such-queue-73e08fde', MessageBody: 'test' },
        Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Caught' }],
        End: true,
      },
      Caught: { Type: 'Pass', End: true },
    });
    expect((await engine.run(def, {})).outcome).toEqual({
      status: 'SUCCEEDED',
      output: {
        Error: 'SQS.SdkClientException',
        Cause: 'Unable to execute HTTP request: no-such-queue-73e08fde: Name or service not known',
      },
    });
  });
});

describe('a function response is reported byte for byte (AWS: error_handling/test_task_lambda test_raise_exception_catch; scenarios/test_base_scenarios test_lambda_service_invoke)', () => {
  // A Python function's response as its runtime writes it: json.dumps with ", " and ": " separators.
  const pythonError =
    '{"errorMessage": "Some exception was raised.", "errorType": "Exception", "requestId": "3c6b2a1e-0000-4000-8000-000000000000", "stackTrace": []}';
  const pythonResult = '{"Return": "HelloWorld"}';
  const h = new EngineHarness(
    {},
    {
      invokeLambda: async ({ functionName }) =>
        functionName === 'raises'
          ? {
              payload: JSON.parse(pythonError),
              payloadText: pythonError,
              functionError: 'Unhandled',
              executedVersion: '$LATEST',
            }
          : { payload: JSON.parse(pythonResult), payloadText: pythonResult, executedVersion: '$LATEST' },
    },
  );
  beforeAll(() => h.start());
  afterAll(() => h.close());

  it("a function ARN Task: a function error's cause is the response text itself", async () => {
    const m = await h.machine(
      jsonpath({
        Start: {
          Type: 'Task',
          Resource: 'arn:aws:lambda:us-east-1:123456789012:function:raises',
          Catch: [{ ErrorEquals: ['Exception'], Next: 'Caught' }],
          End: true,
        },
        Caught: { Type: 'Pass', End: true },
      }),
    );
    expect(await h.output(await h.run(m, {}))).toEqual({ Error: 'Exception', Cause: pythonError });
  });

  it("lambda:invoke's cause is the error payload written anew, compact (AWS: error_handling/test_task_service_lambda test_raise_exception_catch)", async () => {
    const m = await h.machine(
      jsonpath({
        Start: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke',
          Parameters: { FunctionName: 'raises', Payload: {} },
          Catch: [{ ErrorEquals: ['Exception'], Next: 'Caught' }],
          End: true,
        },
        Caught: { Type: 'Pass', End: true },
      }),
    );
    expect(await h.output(await h.run(m, {}))).toEqual({
      Error: 'Exception',
      Cause: JSON.stringify(JSON.parse(pythonError)),
    });
  });

  it("lambda:invoke's Content-Length counts the response text", async () => {
    const m = await h.machine(
      jsonpath({
        Start: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke',
          Parameters: { FunctionName: 'echoes', Payload: {} },
          End: true,
        },
      }),
    );
    const out = (await h.output(await h.run(m, {}))) as { SdkHttpMetadata: { HttpHeaders: Record<string, string> } };
    expect(out.SdkHttpMetadata.HttpHeaders['Content-Length']).toBe(String(pythonResult.length));
    expect(pythonResult.length).not.toBe(JSON.stringify(JSON.parse(pythonResult)).length);
  });
});
