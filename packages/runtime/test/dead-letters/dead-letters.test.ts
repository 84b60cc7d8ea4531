import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  closedRunReport,
  deadLetterId,
  FAILED_STATE_SEARCH_EVENTS,
  parseDeadLetter,
  redriveDeadLetter,
  sendDeadLetter,
  workflowOf,
  type ExecutionStatusChangeEvent,
} from '@autosave/runtime/dead-letters';
import {
  FakeAwsError,
  sqsSendMessage,
  startFakeAwsJson,
  type FakeAwsJsonServer,
} from '../../../../test/fixtures/runtime/fake-aws-json';

const executionArn = 'arn:aws:states:us-east-1:123456789012:execution:clinical-trial-onboarding:site-4412';
const stateMachineArn = 'arn:aws:states:us-east-1:123456789012:stateMachine:clinical-trial-onboarding';
const sent: any[] = [];
/** The run's history, newest first (as GetExecutionHistory with reverseOrder returns it). */
const history = [
  {
    id: 9,
    type: 'ExecutionFailed',
    timestamp: 1_764_496_800,
    executionFailedEventDetails: { error: 'ProviderDown', cause: 'SMTP relay refused' },
  },
  {
    id: 8,
    type: 'LambdaFunctionFailed',
    timestamp: 1_764_496_799,
    lambdaFunctionFailedEventDetails: { error: 'ProviderDown' },
  },
  { id: 5, type: 'TaskStateEntered', timestamp: 1_764_496_700, stateEnteredEventDetails: { name: 'EmailWelcomePack' } },
  { id: 2, type: 'PassStateEntered', timestamp: 1_764_493_200, stateEnteredEventDetails: { name: 'Start' } },
];
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
        events: history.slice(0, input.maxResults ?? history.length),
      };
    },
    'AWSStepFunctions.RedriveExecution': (input) => {
      if (input.executionArn.endsWith(':running'))
        throw new FakeAwsError('ExecutionNotRedrivable', 'The execution is running');
      if (input.executionArn.endsWith(':throttled')) throw new FakeAwsError('ThrottlingException', 'slow down');
      return { redriveDate: 1_764_500_000 };
    },
    'AmazonSQS.SendMessage': sqsSendMessage(sent),
  });
  const options = {
    endpoint: fake.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
    maxAttempts: 1,
  };
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

const withStatus = (status: string): ExecutionStatusChangeEvent => ({
  ...failed,
  detail: { ...failed.detail, status },
});
const callsTo = (operation: string) => fake.calls.filter((c) => c.target === `AWSStepFunctions.${operation}`);

describe('closedRunReport', () => {
  it('reads the run and its newest history once: history size, and a dead letter naming the failed state, error and cause', async () => {
    expect(await closedRunReport(sfn, failed)).toEqual({
      historyEvents: 9,
      deadLetter: {
        executionArn,
        stateMachineArn,
        workflow: 'clinical-trial-onboarding',
        status: 'FAILED',
        error: 'ProviderDown',
        cause: 'SMTP relay refused',
        failedState: 'EmailWelcomePack',
        redriveCount: 1,
        at: new Date(1_764_496_800_000).toISOString(),
      },
    });
    expect(callsTo('GetExecutionHistory').map((c) => c.input)).toEqual([
      { executionArn, reverseOrder: true, maxResults: FAILED_STATE_SEARCH_EVENTS },
    ]);
    expect(callsTo('DescribeExecution')).toHaveLength(1);
  });

  it.each(['TIMED_OUT', 'ABORTED'])('dead-letters a %s run too', async (status) => {
    const report = await closedRunReport(sfn, withStatus(status));
    expect(report).toMatchObject({ historyEvents: 9, deadLetter: { executionArn, failedState: 'EmailWelcomePack' } });
    expect(callsTo('GetExecutionHistory')).toHaveLength(1);
  });

  it("reports a succeeded run's history size from its newest event alone, and no dead letter", async () => {
    expect(await closedRunReport(sfn, withStatus('SUCCEEDED'))).toEqual({ historyEvents: 9 });
    expect(fake.calls.map((c) => c.target)).toEqual(['AWSStepFunctions.GetExecutionHistory']);
    expect(fake.calls[0].input).toEqual({ executionArn, reverseOrder: true, maxResults: 1 });
  });

  it.each(['RUNNING', 'PENDING_REDRIVE'])(
    'ignores a %s status change without calling Step Functions',
    async (status) => {
      expect(await closedRunReport(sfn, withStatus(status))).toBeUndefined();
      expect(fake.calls).toHaveLength(0);
    },
  );
});

describe('sendDeadLetter', () => {
  it('sends one message with its deduplication id; on a FIFO queue as MessageDeduplicationId', async () => {
    const letter = (await closedRunReport(sfn, failed))!.deadLetter!;
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
    expect(
      await redriveDeadLetter(sfn, parseDeadLetter(JSON.stringify({ executionArn: `${executionArn}:running` }))),
    ).toMatchObject({
      redriven: false,
      reason: expect.stringContaining('ExecutionNotRedrivable'),
    });
  });

  it('throws other errors so the message is retried', async () => {
    await expect(
      redriveDeadLetter(sfn, parseDeadLetter(JSON.stringify({ executionArn: `${executionArn}:throttled` }))),
    ).rejects.toMatchObject({
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
