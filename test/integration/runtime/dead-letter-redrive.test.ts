/**
 * Dead letters and redrive on the real local engine: a run fails at a Task, the engine's EventBridge
 * emulation invokes run-monitor, which puts one message on the engine's `autosave-dlq`; the redrive
 * handler takes that SQS message and calls RedriveExecution, and the run resumes at the failed step.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localFunctionName } from '@autosave/runtime/handlers';
import type { DeadLetterMessage } from '@autosave/runtime/dead-letters';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { LOCAL_CREDENTIALS } from '@autosave/workflow/config';
import { eventually } from '../../fixtures/wait';

let dir: string;
let local: LocalEngine;
let sfn: SFNClient;
let sqs: SQSClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'autosave-redrive-'));
  process.env.TEST_FLAKY_MARKER = join(dir, 'provider-fixed');
  local = await startLocal({
    port: 0,
    dataDir: join(dir, 'data'),
    deployWorkflows: false,
    console: false,
    functionsModule: 'test/fixtures/runtime/flaky-functions.ts',
    log: () => {},
  });
  const options = { endpoint: local.url, region: 'us-east-1', credentials: LOCAL_CREDENTIALS };
  sfn = new SFNClient(options);
  sqs = new SQSClient(options);
});
afterAll(async () => {
  sfn?.destroy();
  sqs?.destroy();
  await local?.stop();
  await rm(dir, { recursive: true, force: true });
});

const definition = {
  QueryLanguage: 'JSONata',
  StartAt: 'DeliverWelcome',
  States: {
    DeliverWelcome: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Arguments: {
        FunctionName: 'arn:aws:lambda:us-east-1:123456789012:function:autosave-test-flaky',
        Payload: '{% $states.input %}',
      },
      Output: '{% $states.result.Payload %}',
      Next: 'Done',
    },
    Done: { Type: 'Succeed' },
  },
};

/** Waits until the run reaches one of `statuses` (the engine runs asynchronously; each check is one API call). */
function until(executionArn: string, statuses: string[]) {
  return eventually(`${executionArn} to reach ${statuses.join('/')}`, async () => {
    const run = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    return statuses.includes(run.status!) ? run : undefined;
  });
}

describe('dead letter and redrive on the local engine', () => {
  it('dead-letters a failed run with its failed state, and the redrive handler resumes it there', async () => {
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: 'redrive-check',
        definition: JSON.stringify(definition),
        roleArn: 'arn:aws:iam::123456789012:role/local',
      }),
    );
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn, name: 'site-4412', input: JSON.stringify({ siteId: 'site-4412' }) }),
    );
    const failed = await until(executionArn!, ['FAILED']);
    expect(failed.error).toBe('ProviderDown');

    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: local.environment.AUTOSAVE_DLQ_URL,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 5,
      }),
    );
    expect(received.Messages).toHaveLength(1);
    const letter = JSON.parse(received.Messages![0].Body!) as DeadLetterMessage;
    expect(letter).toMatchObject({
      executionArn,
      stateMachineArn,
      workflow: 'redrive-check',
      status: 'FAILED',
      error: 'ProviderDown',
      failedState: 'DeliverWelcome',
      redriveCount: 0,
    });

    await writeFile(process.env.TEST_FLAKY_MARKER!, 'fixed');
    const sqsEvent = { Records: [{ messageId: received.Messages![0].MessageId!, body: received.Messages![0].Body! }] };
    const result = await local.lambdas.invoke({ functionName: localFunctionName('redrive'), payload: sqsEvent });
    expect(result.functionError).toBeUndefined();
    expect(result.payload).toEqual({ batchItemFailures: [] });

    const resumed = await until(executionArn!, ['SUCCEEDED', 'FAILED']);
    expect(resumed.status).toBe('SUCCEEDED');
    expect(resumed.redriveCount).toBe(1);
    expect(JSON.parse(resumed.output!)).toEqual({ delivered: 'site-4412' });

    // The same letter delivered again (SQS is at-least-once) does not redrive twice.
    const again = await local.lambdas.invoke({ functionName: localFunctionName('redrive'), payload: sqsEvent });
    expect(again.payload).toEqual({ batchItemFailures: [] });
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).redriveCount).toBe(1);
  });
});
