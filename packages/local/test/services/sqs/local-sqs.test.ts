import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { createLocalApiHandler, startLocalApiServer, type LocalApiServer } from '../../../src/api/server';
import { LocalSqs } from '../../../src/services/sqs/local-sqs';
import { sqsService } from '../../../src/services/sqs/sqs-service';

/** A virtual clock for visibility timeouts: no sleeping. */
const clock = {
  t: Date.UTC(2026, 0, 1),
  now() {
    return this.t;
  },
};

async function startSqs(file: string): Promise<{ sqs: LocalSqs; api: LocalApiServer; client: SQSClient }> {
  const sqs = new LocalSqs({ file, clock });
  const api = await startLocalApiServer(createLocalApiHandler({ services: [sqsService(sqs)] }), 0);
  sqs.setBaseUrl(api.url);
  const client = new SQSClient({
    endpoint: api.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
  });
  return { sqs, api, client };
}

describe('LocalSqs over the AWS JSON protocol', () => {
  let dir: string;
  let s: Awaited<ReturnType<typeof startSqs>>;
  let queueUrl: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-sqs-'));
    s = await startSqs(join(dir, 'sqs.sqlite'));
    queueUrl = (await s.client.send(new CreateQueueCommand({ QueueName: 'jobs' }))).QueueUrl!;
  });
  afterAll(async () => {
    s.client.destroy();
    await s.api.close();
    s.sqs.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates a queue idempotently and finds it by name and prefix', async () => {
    expect(queueUrl).toBe(`${s.api.url}/123456789012/jobs`);
    expect((await s.client.send(new CreateQueueCommand({ QueueName: 'jobs' }))).QueueUrl).toBe(queueUrl);
    expect((await s.client.send(new GetQueueUrlCommand({ QueueName: 'jobs' }))).QueueUrl).toBe(queueUrl);
    expect((await s.client.send(new ListQueuesCommand({ QueueNamePrefix: 'jo' }))).QueueUrls).toEqual([queueUrl]);
  });

  it('answers an unknown queue with QueueDoesNotExist', async () => {
    await expect(s.client.send(new GetQueueUrlCommand({ QueueName: 'nope' }))).rejects.toMatchObject({
      name: 'QueueDoesNotExist',
    });
  });

  it('refuses different attributes for an existing queue with QueueNameExists', async () => {
    await expect(
      s.client.send(new CreateQueueCommand({ QueueName: 'jobs', Attributes: { VisibilityTimeout: '5' } })),
    ).rejects.toMatchObject({ name: 'QueueNameExists' });
  });

  it('sends, receives with attributes, hides for the visibility timeout and deletes', async () => {
    const sent = await s.client.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: '{"hello":"world"}',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'greeting' } },
      }),
    );
    expect(sent.MessageId).toMatch(/^[0-9a-f-]{36}$/);
    const received = await s.client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        VisibilityTimeout: 10,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    expect(received.Messages).toHaveLength(1);
    const [m] = received.Messages!;
    expect(m.Body).toBe('{"hello":"world"}');
    expect(m.MessageAttributes).toEqual({ kind: { DataType: 'String', StringValue: 'greeting' } });
    expect(m.MD5OfMessageAttributes).toBe(sent.MD5OfMessageAttributes);
    expect(m.Attributes?.ApproximateReceiveCount).toBe('1');

    expect((await s.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }))).Messages).toBeUndefined();
    const attrs = await s.client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }));
    expect(attrs.Attributes).toMatchObject({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '1',
      VisibilityTimeout: '30',
    });

    clock.t += 11_000;
    const again = await s.client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MessageSystemAttributeNames: ['ApproximateReceiveCount'] }),
    );
    expect(again.Messages![0].Attributes).toEqual({ ApproximateReceiveCount: '2' });
    await s.client.send(
      new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: again.Messages![0].ReceiptHandle }),
    );
    clock.t += 60_000;
    expect((await s.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }))).Messages).toBeUndefined();
  });

  it.each(['__proto__', 'constructor', 'toString'])(
    'GetQueueAttributes of an attribute name that is a property of every JavaScript object (%s) is InvalidAttributeName, not a 500',
    async (name) => {
      await expect(
        s.client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [name as never] })),
      ).rejects.toMatchObject({ name: 'InvalidAttributeName' });
    },
  );

  it('returns at most MaxNumberOfMessages, oldest first', async () => {
    for (const n of [1, 2, 3])
      await s.client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: `m${n}` }));
    const r = await s.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 2 }));
    expect(r.Messages!.map((m) => m.Body)).toEqual(['m1', 'm2']);
    await s.client.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
    clock.t += 60_000;
    expect(
      (await s.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }))).Messages,
    ).toBeUndefined();
  });

  it('changes visibility of a message in flight and refuses a message not in flight', async () => {
    await s.client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'retry-me' }));
    const [m] = (await s.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }))).Messages!;
    await s.client.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0 }),
    );
    const [back] = (await s.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, VisibilityTimeout: 1 })))
      .Messages!;
    expect(back.Body).toBe('retry-me');
    clock.t += 2_000;
    await expect(
      s.client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: back.ReceiptHandle,
          VisibilityTimeout: 5,
        }),
      ),
    ).rejects.toMatchObject({ name: 'MessageNotInflight' });
    await expect(
      s.client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: 'garbage' })),
    ).rejects.toMatchObject({ name: 'ReceiptHandleIsInvalid' });
    await s.client.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
  });

  it('a long poll returns as soon as a message arrives', async () => {
    const polling = s.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 20 }));
    await s.client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'late' }));
    expect((await polling).Messages?.[0]?.Body).toBe('late');
    await s.client.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
  });

  it('moves a message to its dead-letter queue after maxReceiveCount receives', async () => {
    const dlqUrl = (await s.client.send(new CreateQueueCommand({ QueueName: 'jobs-dlq' }))).QueueUrl!;
    const redriven = (
      await s.client.send(
        new CreateQueueCommand({
          QueueName: 'fragile',
          Attributes: {
            RedrivePolicy: JSON.stringify({
              deadLetterTargetArn: 'arn:aws:sqs:us-east-1:123456789012:jobs-dlq',
              maxReceiveCount: 1,
            }),
          },
        }),
      )
    ).QueueUrl!;
    await s.client.send(new SendMessageCommand({ QueueUrl: redriven, MessageBody: 'poison' }));
    expect(
      (await s.client.send(new ReceiveMessageCommand({ QueueUrl: redriven, VisibilityTimeout: 1 }))).Messages,
    ).toHaveLength(1);
    clock.t += 2_000;
    expect((await s.client.send(new ReceiveMessageCommand({ QueueUrl: redriven }))).Messages).toBeUndefined();
    expect((await s.client.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl }))).Messages?.[0]?.Body).toBe('poison');
  });

  it('keeps messages across a restart (a new port, the same file)', async () => {
    const file = join(dir, 'restart.sqlite');
    const first = await startSqs(file);
    const url = (await first.client.send(new CreateQueueCommand({ QueueName: 'dead-letters' }))).QueueUrl!;
    await first.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'must survive' }));
    first.client.destroy();
    await first.api.close();
    first.sqs.close();

    const second = await startSqs(file);
    try {
      const newUrl = (await second.client.send(new GetQueueUrlCommand({ QueueName: 'dead-letters' }))).QueueUrl!;
      const r = await second.client.send(new ReceiveMessageCommand({ QueueUrl: newUrl }));
      expect(r.Messages?.map((m) => m.Body)).toEqual(['must survive']);
    } finally {
      second.client.destroy();
      await second.api.close();
      second.sqs.close();
    }
  });
});
