/**
 * `@aws-sdk/client-sfn`'s TestStateCommand against the engine over HTTP (AWS JSON 1.0). The API model
 * gives TestState the endpoint host prefix `sync-` (as StartSyncExecution), so against a local endpoint a
 * client must set `disableHostPrefix: true`: the SDK would dial `sync-127.0.0.1` otherwise
 * (../shared/TESTING-APIS.md A1; aws/aws-sdk-js-v3#3451).
 */
import { InvalidDefinition, SFNClient, TestStateCommand, ValidationException } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../packages/workflow/src/config';
import {
  createLocalApiHandler,
  type LocalApiServer,
  startLocalApiServer,
} from '../../../packages/local/src/api/server';
import { stepFunctionsService } from '../../../packages/local/src/api/step-functions-service';
import { testStateEngine } from './support';

const { harness } = testStateEngine();
let api: LocalApiServer;
let sfn: SFNClient;
beforeAll(async () => {
  api = await startLocalApiServer(createLocalApiHandler({ services: [stepFunctionsService(harness.engine)] }), 0);
  sfn = new SFNClient({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint: api.url,
    disableHostPrefix: true,
    maxAttempts: 1,
  });
});
afterAll(async () => {
  sfn?.destroy();
  await api?.close();
});

describe('TestStateCommand over HTTP with disableHostPrefix: true', () => {
  it('answers with the status, the output and the inspection data as JSON text', async () => {
    const out = await sfn.send(
      new TestStateCommand({
        definition: JSON.stringify({
          Type: 'Pass',
          Parameters: { 'greeting.$': "States.Format('Hello, {}!', $.name)" },
          Next: 'Done',
        }),
        input: JSON.stringify({ name: 'Ada' }),
        inspectionLevel: 'DEBUG',
      }),
    );
    expect(out.status).toBe('SUCCEEDED');
    expect(out.nextState).toBe('Done');
    expect(JSON.parse(out.output!)).toEqual({ greeting: 'Hello, Ada!' });
    expect(JSON.parse(out.inspectionData!.afterParameters!)).toEqual({ greeting: 'Hello, Ada!' });
  });

  it("takes a mock and stateConfiguration, and answers RETRIABLE with the retrier's backoff", async () => {
    const out = await sfn.send(
      new TestStateCommand({
        definition: JSON.stringify({
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke',
          Parameters: { FunctionName: 'f' },
          Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 2, BackoffRate: 3 }],
          End: true,
        }),
        inspectionLevel: 'TRACE',
        mock: { errorOutput: { error: 'Boom', cause: 'it broke' } },
        stateConfiguration: { retrierRetryCount: 1 },
      }),
    );
    expect(out).toMatchObject({ status: 'RETRIABLE', error: 'Boom', cause: 'it broke' });
    expect(out.inspectionData?.errorDetails).toEqual({ retryIndex: 0, retryBackoffIntervalSeconds: 6 });
  });

  it('throws the modelled errors: ValidationException and InvalidDefinition', async () => {
    await expect(
      sfn.send(
        new TestStateCommand({ definition: JSON.stringify({ Type: 'Pass', End: true }), mock: { result: '{}' } }),
      ),
    ).rejects.toBeInstanceOf(ValidationException);
    await expect(
      sfn.send(new TestStateCommand({ definition: JSON.stringify({ Type: 'Parallel', Branches: [], End: true }) })),
    ).rejects.toBeInstanceOf(InvalidDefinition);
  });
});
