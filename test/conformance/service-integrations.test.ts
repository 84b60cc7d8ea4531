/**
 * Service integration results and errors as AWS records them (localstack's AWS-validated snapshots:
 * services/test_lambda_task_service, services/test_sfn_task_service, error_handling/test_task_service_lambda,
 * error_handling/test_task_service_sqs). `$states.result` taken whole must have AWS's keys.
 */
import { describe, expect, it } from 'vitest';
import { jsonpath } from '../unit/local/engine/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const engine = recordedEngine({ echo: (payload) => payload });

function taskResult(run: Awaited<ReturnType<typeof engine.run>>): Record<string, any> {
  const succeeded = run.events.find((e) => e.type === 'TaskSucceeded') as { taskSucceededEventDetails: { output: Record<string, any> } } | undefined;
  expect(succeeded, run.types.join(',')).toBeDefined();
  return succeeded!.taskSucceededEventDetails.output;
}

describe('lambda:invoke results', () => {
  it('carry SdkHttpMetadata (AllHttpHeaders, HttpHeaders, HttpStatusCode) and SdkResponseMetadata beside Payload', async () => {
    const def = jsonpath({ Invoke: { Type: 'Task', Resource: 'arn:aws:states:::lambda:invoke', Parameters: { FunctionName: 'echo', Payload: {} }, End: true } });
    const result = taskResult(await engine.run(def, {}));
    expect(Object.keys(result)).toEqual(['ExecutedVersion', 'Payload', 'SdkHttpMetadata', 'SdkResponseMetadata', 'StatusCode']);
    expect(result).toMatchObject({ ExecutedVersion: '$LATEST', Payload: {}, StatusCode: 200 });
    const { AllHttpHeaders, HttpHeaders, HttpStatusCode } = result.SdkHttpMetadata;
    expect(HttpStatusCode).toBe(200);
    expect(Object.keys(HttpHeaders)).toEqual([
      'Connection', 'Content-Length', 'Content-Type', 'Date', 'X-Amz-Executed-Version', 'x-amzn-Remapped-Content-Length', 'x-amzn-RequestId', 'X-Amzn-Trace-Id',
    ]);
    expect(HttpHeaders).toMatchObject({ Connection: 'keep-alive', 'Content-Length': '2', 'Content-Type': 'application/json', 'X-Amz-Executed-Version': '$LATEST', 'x-amzn-Remapped-Content-Length': '0' });
    expect(AllHttpHeaders).toMatchObject({ 'X-Amz-Executed-Version': ['$LATEST'], 'Content-Length': ['2'], Connection: ['keep-alive'], 'Content-Type': ['application/json'] });
    expect(Object.keys(AllHttpHeaders).sort()).toEqual(Object.keys(HttpHeaders).sort());
    expect(result.SdkResponseMetadata.RequestId).toBe(HttpHeaders['x-amzn-RequestId']);
  });

  it('an unknown function fails with Lambda.ResourceNotFoundException in the Java SDK\'s words', async () => {
    const def = jsonpath({ Invoke: { Type: 'Task', Resource: 'arn:aws:states:::lambda:invoke', Parameters: { FunctionName: 'arn:aws:lambda:us-east-1:111111111111:function:no_such_fn' }, End: true } });
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
    const def = jsonpath({ Start: { Type: 'Task', Resource: 'arn:aws:states:::states:startExecution', Parameters: { StateMachineArn: child, Input: {}, Name: 'TestStartTarget' }, End: true } });
    const result = taskResult(await engine.run(def, {}));
    expect(Object.keys(result)).toEqual(['ExecutionArn', 'SdkHttpMetadata', 'SdkResponseMetadata', 'StartDate']);
    expect(result.ExecutionArn).toMatch(/:execution:[^:]+:TestStartTarget$/);
    expect(Object.keys(result.SdkHttpMetadata.HttpHeaders)).toEqual(['connection', 'Content-Length', 'Content-Type', 'Date', 'x-amzn-RequestId']);
    expect(result.SdkHttpMetadata.HttpHeaders['Content-Type']).toBe('application/x-amz-json-1.0');
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
      output: { Error: 'SQS.SdkClientException', Cause: 'Unable to execute HTTP request: no-such-queue-73e08fde: Name or service not known' },
    });
  });
});
