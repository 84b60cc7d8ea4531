import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  deadLetterFor,
  deadLetterId,
  parseDeadLetter,
  redriveDeadLetter,
  sendDeadLetter,
  workflowOf,
  type ExecutionStatusChangeEvent,
} from '../../../lib/dead-letters';
import { FakeAwsError, sqsSendMessage, startFakeAwsJson, type FakeAwsJsonServer } from '../../fixtures/runtime/fake-aws-json';

const executionArn = 'arn:aws:states:us-east-1:123456789012:execution:clinical-trial-onboarding:site-4412';
const stateMachineArn = 'arn:aws:states:us-east-1:123456789012:stateMachine:clinical-trial-onboarding';
const sent: any[] = [];
let fake: FakeAwsJsonServer;
let sfn: SFNClient;
let sqs: SQSClient;

beforeAll(async () => {
  fake = await startFakeAwsJson({
    'AWSStepFunctions.DescribeExecution': () => ({
      executionArn,
      stateMachineArn,
      status: 'FAILED',
      startDate: 1_764_493_200,
      stopDate: 1_764_496_800,
      error: 'ProviderDown',
      cause: 'SMTP relay refused',
      redriveCount: 1,
    }),
    'AWSStepFunctions.GetExecutionHistory': (input) => {
      expect(input.reverseOrder).toBe(true);
      return {
        events: [
          { id: 9, type: 'ExecutionFailed', timestamp: 1_764_496_800, executionFailedEventDetails: { error: 'ProviderDown', cause: 'SMTP relay refused' } },
          { id: 8, type: 'LambdaFunctionFailed', timestamp: 1_764_496_799, lambdaFunctionFailedEventDetails: { error: 'ProviderDown' } },
          { id: 5, type: 'TaskStateEntered', timestamp: 1_764_496_700, stateEnteredEventDetails: { name: 'EmailWelcomePack' } },
          { id: 2, type: 'PassStateEntered', timestamp: 1_764_493_200, stateEnteredEventDetails: { name: 'Start' } },
        ],
      };
    },
    'AWSStepFunctions.RedriveExecution': (input) => {
      if (input.executionArn.endsWith(':running')) throw new FakeAwsError('ExecutionNotRedrivable', 'The execution is running');
      if (input.executionArn.endsWith(':throttled')) throw new FakeAwsError('ThrottlingException', 'slow down');
      return { redriveDate: 1_764_500_000 };
    },
    'AmazonSQS.SendMessage': sqsSendMessage(sent),
  });
  const options = { endpoint: fake.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' }, maxAttempts: 1 };
  sfn = new SFNClient(options);
  sqs = new SQSClient(options);
});
afterAll(() => fake.close());
beforeEach(() => {
  sent.length = 0;
  fake.calls.length = 0;
});

const failed: ExecutionStatusChangeEvent = {
  source: 'aws.states',
  'detail-type': 'Step Functions Execution Status Change',
  detail: { executionArn, stateMachineArn, status: 'FAILED' },
};

describe('deadLetterFor', () => {
  it('reads the run and its newest history to name the failed state, error and cause', async () => {
    expect(await deadLetterFor(sfn, failed)).toEqual({
      executionArn,
      stateMachineArn,
      workflow: 'clinical-trial-onboarding',
      status: 'FAILED',
      error: 'ProviderDown',
      cause: 'SMTP relay refused',
      failedState: 'EmailWelcomePack',
      redriveCount: 1,
      at: new Date(1_764_496_800_000).toISOString(),
    });
  });

  it.each(['RUNNING', 'SUCCEEDED', 'PENDING_REDRIVE'])('ignores a %s status change', async (status) => {
    expect(await deadLetterFor(sfn, { ...failed, detail: { ...failed.detail, status } })).toBeUndefined();
    expect(fake.calls).toHaveLength(0);
  });
});

describe('sendDeadLetter', () => {
  it('sends one message with its deduplication id; on a FIFO queue as MessageDeduplicationId', async () => {
    const letter = (await deadLetterFor(sfn, failed))!;
    await sendDeadLetter(sqs, 'http://127.0.0.1:1/123456789012/autosave-dlq', letter);
    await sendDeadLetter(sqs, 'http://127.0.0.1:1/123456789012/autosave-dlq.fifo', letter);
    expect(JSON.parse(sent[0].MessageBody)).toEqual(letter);
    expect(sent[0].MessageAttributes.deadLetterId.StringValue).toBe(deadLetterId(letter));
    expect(sent[0].MessageDeduplicationId).toBeUndefined();
    expect(sent[1].MessageDeduplicationId).toBe(deadLetterId(letter));
  });
});

describe('redriveDeadLetter', () => {
  it('calls RedriveExecution with a clientToken derived from the run and its redrive count', async () => {
    const letter = parseDeadLetter(JSON.stringify({ executionArn, redriveCount: 1 }));
    expect(await redriveDeadLetter(sfn, letter)).toMatchObject({ redriven: true, executionArn });
    const call = fake.calls.find((c) => c.target === 'AWSStepFunctions.RedriveExecution')!;
    expect(call.input).toEqual({ executionArn, clientToken: deadLetterId(letter) });
    expect(call.input.clientToken).toHaveLength(64);
  });

  it('settles a letter whose run is not redrivable without throwing', async () => {
    expect(await redriveDeadLetter(sfn, parseDeadLetter(JSON.stringify({ executionArn: `${executionArn}:running` })))).toMatchObject({
      redriven: false,
      reason: expect.stringContaining('ExecutionNotRedrivable'),
    });
  });

  it('throws other errors so the message is retried', async () => {
    await expect(redriveDeadLetter(sfn, parseDeadLetter(JSON.stringify({ executionArn: `${executionArn}:throttled` })))).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
  });

  it('refuses a message that is not a dead letter', () => {
    expect(() => parseDeadLetter('not json')).toThrow(expect.objectContaining({ name: 'InvalidStepInputError' }));
    expect(() => parseDeadLetter('{}')).toThrow(expect.objectContaining({ name: 'InvalidStepInputError' }));
  });
});

describe('workflowOf', () => {
  it.each([
    [stateMachineArn, 'clinical-trial-onboarding'],
    [`${stateMachineArn}:3`, 'clinical-trial-onboarding'],
    [`${stateMachineArn}:live`, 'clinical-trial-onboarding'],
  ])('reads the workflow of %s', (arn, name) => expect(workflowOf(arn)).toBe(name));
});
