/**
 * SQS inputs of the wrong shape get the service's `InvalidParameterValue` (or `InvalidMessageContents`)
 * over the JSON protocol, never a 500 from a JavaScript fault deeper in the queue.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalApiHandler, startLocalApiServer, type LocalApiServer } from '../../../src/api/server';
import { LocalSqs } from '../../../src/services/sqs/local-sqs';
import { sqsService } from '../../../src/services/sqs/sqs-service';

describe('SQS JSON inputs of the wrong shape', () => {
  let dir: string;
  let sqs: LocalSqs;
  let api: LocalApiServer;
  let QueueUrl: string;
  const call = async (operation: string, input: object) => {
    const res = await fetch(api.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${operation}` },
      body: JSON.stringify(input),
    });
    return { status: res.status, body: (await res.json()) as { __type?: string; message?: string } };
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-sqs-input-'));
    sqs = new LocalSqs({ file: join(dir, 'sqs.sqlite') });
    api = await startLocalApiServer(createLocalApiHandler({ services: [sqsService(sqs)] }), 0);
    sqs.setBaseUrl(api.url);
    QueueUrl = ((await sqs.handle('CreateQueue', { QueueName: 'q' })) as { QueueUrl: string }).QueueUrl;
  });
  afterAll(async () => {
    await api?.close();
    sqs?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['GetQueueAttributes', 'AttributeNames a number', () => ({ QueueUrl, AttributeNames: 5 })],
    ['GetQueueAttributes', 'QueueUrl a number', () => ({ QueueUrl: 7 })],
    ['SendMessageBatch', 'Entries a number', () => ({ QueueUrl, Entries: 5 })],
    ['SendMessageBatch', 'a null entry', () => ({ QueueUrl, Entries: [null] })],
    ['DeleteMessageBatch', 'a numeric receipt handle', () => ({ QueueUrl, Entries: [{ Id: 'a', ReceiptHandle: 3 }] })],
    [
      'SendMessage',
      'an attribute that is a number',
      () => ({ QueueUrl, MessageBody: 'x', MessageAttributes: { a: 5 } }),
    ],
    [
      'SendMessage',
      'a String attribute without a value',
      () => ({ QueueUrl, MessageBody: 'x', MessageAttributes: { a: { DataType: 'String' } } }),
    ],
    ['SendMessage', 'an object body', () => ({ QueueUrl, MessageBody: { nested: true } })],
    ['SetQueueAttributes', 'a RedrivePolicy of null', () => ({ QueueUrl, Attributes: { RedrivePolicy: 'null' } })],
    ['SetQueueAttributes', 'a numeric attribute value', () => ({ QueueUrl, Attributes: { VisibilityTimeout: 30 } })],
    ['CreateQueue', 'Attributes a string', () => ({ QueueName: 'r', Attributes: 'VisibilityTimeout=30' })],
    ['ReceiveMessage', 'MessageAttributeNames a string', () => ({ QueueUrl, MessageAttributeNames: 'All' })],
  ])('%s with %s is InvalidParameterValue', async (operation, _what, input) => {
    const { status, body } = await call(operation, input());
    expect(status).toBe(400);
    expect(body).toEqual({ __type: 'com.amazonaws.sqs#InvalidParameterValue', message: expect.any(String) });
  });

  it.each(['nul \u0000', 'bell \u0007', 'lone \ud800', 'not a character \ufffe'])(
    'a message body %j is InvalidMessageContents',
    async (MessageBody) => {
      const { status, body } = await call('SendMessage', { QueueUrl, MessageBody });
      expect(status).toBe(400);
      expect(body.__type).toBe('com.amazonaws.sqs#InvalidMessageContents');
    },
  );

  it('tabs, newlines and characters outside the BMP are a valid body', async () => {
    const { status } = await call('SendMessage', { QueueUrl, MessageBody: 'a\tb\nc\r 😀 \ue000' });
    expect(status).toBe(200);
  });
});
