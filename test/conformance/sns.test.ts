/**
 * SNS from a workflow, as AWS records it (localstack's AWS-validated snapshots,
 * stepfunctions/v2/services/test_sns_task_service.snapshot.json: test_publish_base,
 * test_publish_base_error_topic_arn, test_fifo_message_attribute, test_publish_message_attributes), on the
 * emulated SNS delivering to a local SQS queue, Lambda functions and the email outbox.
 */
import { describe, expect, it } from 'vitest';
import { jsonata, jsonpath } from '../../packages/engine/test/support/engine-harness';
import { localServicesForTests } from './support/local-services';
import { recordedEngine } from './support/recorded-run';

const functions: Record<string, (payload: any) => unknown> = {};
const services = localServicesForTests(functions);
const engine = recordedEngine(functions, { engine: services.engineOptions });

const TASK_RUN = [
  'ExecutionStarted',
  'TaskStateEntered',
  'TaskScheduled',
  'TaskStarted',
  'TaskSucceeded',
  'TaskStateExited',
  'ExecutionSucceeded',
];
const TASK_FAILED = [
  'ExecutionStarted',
  'TaskStateEntered',
  'TaskScheduled',
  'TaskStarted',
  'TaskFailed',
  'ExecutionFailed',
];
const SNS_CAUSE = (message: string, status: number, code: string) =>
  new RegExp(
    `^${message.replace(/[.()]/g, '\\$&')} \\(Service: AmazonSNS; Status Code: ${status}; Error Code: ${code}; Request ID: [0-9a-f-]{36}; Proxy: null\\)$`,
  );

const publish = (extra: object = {}) =>
  jsonpath({
    Publish: {
      Type: 'Task',
      Resource: 'arn:aws:states:::sns:publish',
      Parameters: { 'TopicArn.$': '$.TopicArn', 'Message.$': '$.Message', ...extra },
      End: true,
    },
  });

async function topic(name: string, attributes?: Record<string, string>): Promise<string> {
  return (await services.sns.call('CreateTopic', { Name: name, ...(attributes ? { Attributes: attributes } : {}) }))
    .TopicArn as string;
}

describe('sns:publish', () => {
  it("publishes a JSON Message as its text and answers MessageId with the query protocol's SdkHttpMetadata (test_publish_base)", async () => {
    const arn = await topic('base');
    const queue = await services.queue('base-queue');
    await services.sns.call('Subscribe', {
      TopicArn: arn,
      Protocol: 'sqs',
      Endpoint: queue.arn,
      Attributes: { RawMessageDelivery: 'true' },
    });
    const run = await engine.run(publish(), { TopicArn: arn, Message: { Message: 'HelloWorld!' } });
    expect(run.types).toEqual(TASK_RUN);
    expect(run.events[2].taskScheduledEventDetails).toMatchObject({
      resourceType: 'sns',
      resource: 'publish',
      parameters: { TopicArn: arn, Message: { Message: 'HelloWorld!' } },
    });
    const output = (run.outcome as { output: Record<string, any> }).output;
    expect(Object.keys(output)).toEqual(['MessageId', 'SdkHttpMetadata', 'SdkResponseMetadata']);
    expect(output.MessageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(output.SdkHttpMetadata.HttpHeaders).toMatchObject({
      'Content-Length': '294',
      'Content-Type': 'text/xml',
      connection: 'keep-alive',
    });
    expect(output.SdkHttpMetadata.HttpStatusCode).toBe(200);
    expect(output.SdkResponseMetadata.RequestId).toBe(output.SdkHttpMetadata.HttpHeaders['x-amzn-RequestId']);
    await services.settled();
    expect(await queue.bodies()).toEqual(['{"Message":"HelloWorld!"}']);
  });

  it('a topic that does not exist is SNS.NotFoundException, "Topic does not exist" (test_publish_base_error_topic_arn)', async () => {
    const run = await engine.run(publish(), {
      TopicArn: 'arn:aws:sns:us-east-1:123456789012:no-such-topic',
      Message: { Message: 'HelloWorld!' },
    });
    expect(run.types).toEqual(TASK_FAILED);
    const failed = run.events[4].taskFailedEventDetails as { error: string; cause: string; resourceType: string };
    expect(failed).toMatchObject({ error: 'SNS.NotFoundException', resourceType: 'sns', resource: 'publish' });
    expect(failed.cause).toMatch(SNS_CAUSE('Topic does not exist', 404, 'NotFound'));
  });

  it('a FIFO topic wants a MessageGroupId: SNS.InvalidParameterException without one (test_fifo_message_attribute[True])', async () => {
    const arn = await topic('orders.fifo', { FifoTopic: 'true' });
    const run = await engine.run(publish(), { TopicArn: arn, Message: { Message: 'HelloWorld!' } });
    const failed = run.events[4].taskFailedEventDetails as { error: string; cause: string };
    expect(failed.error).toBe('SNS.InvalidParameterException');
    expect(failed.cause).toMatch(
      SNS_CAUSE('Invalid parameter: The MessageGroupId parameter is required for FIFO topics', 400, 'InvalidParameter'),
    );
  });

  it('a FIFO publish answers a SequenceNumber too, its body 352 bytes (test_fifo_message_attribute[False])', async () => {
    const arn = await topic('orders.fifo', { FifoTopic: 'true' });
    const run = await engine.run(
      publish({ 'MessageGroupId.$': '$.MessageGroupId', 'MessageDeduplicationId.$': '$.MessageDeduplicationId' }),
      {
        TopicArn: arn,
        Message: { Message: 'HelloWorld!' },
        MessageGroupId: 'a-group',
        MessageDeduplicationId: 'dedup-1',
      },
    );
    const output = (run.outcome as { output: Record<string, any> }).output;
    expect(output.SequenceNumber).toMatch(/^\d{20}$/);
    expect(output.SdkHttpMetadata.HttpHeaders['Content-Length']).toBe('352');
  });

  it('delivers the notification document with the message attributes to an SQS subscriber (test_publish_message_attributes)', async () => {
    const arn = await topic('attributes');
    const queue = await services.queue('attributes-queue');
    await services.sns.call('Subscribe', { TopicArn: arn, Protocol: 'sqs', Endpoint: queue.arn });
    const def = publish({
      MessageAttributes: {
        my_attribute_no_1: { DataType: 'String', StringValue: 'Hello' },
        Version: { DataType: 'String', StringValue: 'string value literal' },
      },
    });
    const run = await engine.run(def, { TopicArn: arn, Message: 'HelloWorld' });
    expect(run.outcome.status).toBe('SUCCEEDED');
    await services.settled();
    const [body] = await queue.bodies();
    const notification = JSON.parse(body);
    expect(Object.keys(notification)).toEqual([
      'Type',
      'MessageId',
      'TopicArn',
      'Message',
      'Timestamp',
      'SignatureVersion',
      'Signature',
      'SigningCertURL',
      'UnsubscribeURL',
      'MessageAttributes',
    ]);
    expect(notification).toMatchObject({
      Type: 'Notification',
      MessageId: (run.outcome as { output: { MessageId: string } }).output.MessageId,
      TopicArn: arn,
      Message: 'HelloWorld',
      SignatureVersion: '1',
      MessageAttributes: {
        my_attribute_no_1: { Type: 'String', Value: 'Hello' },
        Version: { Type: 'String', Value: 'string value literal' },
      },
    });
    expect(notification.UnsubscribeURL).toContain('Action=Unsubscribe&SubscriptionArn=arn:aws:sns:');
  });

  it('.waitForTaskToken: a subscribed Lambda gets the SNS event and answers with the token (the callback pattern)', async () => {
    const arn = await topic('callback');
    functions.approver = async (event: {
      Records: { EventSource: string; Sns: { Message: string; TopicArn: string } }[];
    }) => {
      const record = event.Records[0];
      const { token, amount } = JSON.parse(record.Sns.Message) as { token: string; amount: number };
      await engine.harness.engine.handle('SendTaskSuccess', {
        taskToken: token,
        output: JSON.stringify({ approved: amount < 100, source: record.EventSource, topic: record.Sns.TopicArn }),
      });
    };
    await services.sns.call('Subscribe', {
      TopicArn: arn,
      Protocol: 'lambda',
      Endpoint: 'arn:aws:lambda:us-east-1:123456789012:function:approver',
    });
    const def = jsonata({
      Ask: {
        Type: 'Task',
        Resource: 'arn:aws:states:::sns:publish.waitForTaskToken',
        Arguments: {
          TopicArn: '{% $states.input.topic %}',
          Message: { token: '{% $states.context.Task.Token %}', amount: 42 },
        },
        End: true,
      },
    });
    const run = await engine.run(def, { topic: arn });
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
    expect(run.events[4].taskSubmittedEventDetails).toMatchObject({
      resourceType: 'sns',
      resource: 'publish.waitForTaskToken',
    });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: { approved: true, source: 'aws:sns', topic: arn } });
  });

  it('an email subscriber gets the message in the outbox, the Subject as its subject', async () => {
    const arn = await topic('alerts');
    await services.sns.call('Subscribe', { TopicArn: arn, Protocol: 'email', Endpoint: 'ops@example.com' });
    const run = await engine.run(publish({ Subject: 'Run failed' }), {
      TopicArn: arn,
      Message: 'The nightly run failed',
    });
    expect(run.outcome.status).toBe('SUCCEEDED');
    await services.settled();
    const emails = await services.outbox();
    expect(emails.map((e) => ({ to: e.to, subject: e.subject, body: e.body }))).toContainEqual({
      to: ['ops@example.com'],
      subject: 'Run failed',
      body: 'The nightly run failed',
    });
  });

  it("a subscription's filter policy lets through only the messages whose attributes match it", async () => {
    const arn = await topic('filtered');
    const big = await services.queue('big-orders');
    const all = await services.queue('all-orders');
    await services.sns.call('Subscribe', {
      TopicArn: arn,
      Protocol: 'sqs',
      Endpoint: big.arn,
      Attributes: { RawMessageDelivery: 'true', FilterPolicy: JSON.stringify({ amount: [{ numeric: ['>=', 100] }] }) },
    });
    await services.sns.call('Subscribe', {
      TopicArn: arn,
      Protocol: 'sqs',
      Endpoint: all.arn,
      Attributes: { RawMessageDelivery: 'true' },
    });
    const def = jsonata({
      Publish: {
        Type: 'Task',
        Resource: 'arn:aws:states:::sns:publish',
        Arguments: {
          TopicArn: arn,
          Message: '{% $string($states.input.amount) %}',
          MessageAttributes: { amount: { DataType: 'Number', StringValue: '{% $string($states.input.amount) %}' } },
        },
        End: true,
      },
    });
    await engine.run(def, { amount: 20 });
    await engine.run(def, { amount: 250 });
    await services.settled();
    expect(await big.bodies()).toEqual(['250']);
    expect((await all.bodies()).sort()).toEqual(['20', '250']);
  });
});

describe('aws-sdk:sns', () => {
  it('creates a topic, subscribes a queue and publishes, answering the response members without HTTP metadata', async () => {
    const queue = await services.queue('sdk-queue');
    const def = jsonata({
      Create: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:sns:createTopic',
        Arguments: { Name: 'sdk-topic' },
        Assign: { topic: '{% $states.result.TopicArn %}' },
        Next: 'Subscribe',
      },
      Subscribe: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:sns:subscribe',
        Arguments: {
          TopicArn: '{% $topic %}',
          Protocol: 'sqs',
          Endpoint: queue.arn,
          Attributes: { RawMessageDelivery: 'true' },
        },
        Next: 'Publish',
      },
      Publish: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:sns:publish',
        Arguments: { TopicArn: '{% $topic %}', Message: 'via the SDK' },
        End: true,
      },
    });
    const run = await engine.run(def);
    expect(run.events.find((e) => e.type === 'TaskScheduled')?.taskScheduledEventDetails).toMatchObject({
      resourceType: 'aws-sdk:sns',
      resource: 'createTopic',
    });
    const output = (run.outcome as { output: Record<string, unknown> }).output;
    expect(Object.keys(output)).toEqual(['MessageId']);
    await services.settled();
    expect(await queue.bodies()).toEqual(['via the SDK']);
  });

  it('an SNS error is Sns.<Code>Exception with the Java SDK v2 cause', async () => {
    const def = jsonata({
      Publish: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:sns:publish',
        Arguments: { TopicArn: 'arn:aws:sns:us-east-1:123456789012:missing', Message: 'x' },
        End: true,
      },
    });
    const run = await engine.run(def);
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'Sns.NotFoundException' });
    expect((run.outcome as { cause: string }).cause).toMatch(
      /^Topic does not exist \(Service: Sns, Status Code: 404, Request ID: [0-9a-f-]{36}\) \(SDK Attempt Count: 1\)$/,
    );
  });

  it('an action SNS does not have is refused at CreateStateMachine', async () => {
    const created = await engine.create(
      jsonata({ X: { Type: 'Task', Resource: 'arn:aws:states:::aws-sdk:sns:launchRocket', End: true } }),
    );
    expect(created).not.toBe('created');
  });
});

describe('SNS limits', () => {
  // SNS API reference, Publish: a message of at most 256 KB (262,144 bytes), its attributes included.
  it('refuses a message over 256 KB with InvalidParameter, "Message too long", and takes one of exactly 256 KB', async () => {
    const arn = await topic('limits');
    await expect(
      services.sns.call('Publish', { TopicArn: arn, Message: 'x'.repeat(300 * 1024) }),
    ).rejects.toMatchObject({ code: 'InvalidParameter', message: 'Invalid parameter: Message too long' });
    await expect(services.sns.call('Publish', { TopicArn: arn, Message: 'x'.repeat(262_144) })).resolves.toHaveProperty(
      'MessageId',
    );
    const attributes = { note: { DataType: 'String', StringValue: 'y'.repeat(100) } };
    await expect(
      services.sns.call('Publish', { TopicArn: arn, Message: 'x'.repeat(262_144 - 50), MessageAttributes: attributes }),
    ).rejects.toMatchObject({ code: 'InvalidParameter' });
  });
});
