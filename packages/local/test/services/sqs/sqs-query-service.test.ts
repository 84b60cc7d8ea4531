/**
 * SQS's query protocol on the engine's port, tested on the wire: the form bodies below are the ones
 * Debian's AWS CLI 2.9.19 (botocore, protocol `query`, API 2012-11-05) sends — captured with `--debug` —
 * and the answers are read as botocore reads them (flattened lists and maps, `ErrorResponse`).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseXML } from '@aws-sdk/xml-builder';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalApiHandler, startLocalApiServer, type LocalApiServer } from '../../../src/api/server';
import { LocalSqs } from '../../../src/services/sqs/local-sqs';
import { sqsQueryService } from '../../../src/services/sqs/sqs-query-service';
import { sqsService } from '../../../src/services/sqs/sqs-service';

const CLI_HEADERS = {
  'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
  'user-agent': 'aws-cli/2.9.19 Python/3.11.2 Linux source/x86_64.debian.12',
};
const md5 = (s: string | Buffer) => createHash('md5').update(s).digest('hex');

describe('SQS query protocol (what the AWS CLI v2.9 speaks)', () => {
  let dir: string;
  let sqs: LocalSqs;
  let api: LocalApiServer;
  let queueUrl: string;

  /** POSTs the form as botocore does (to `/`, `Action` and `Version` first) and parses the XML answer. */
  async function query(
    params: Record<string, string | number>,
    path = '/',
  ): Promise<{ status: number; contentType: string; xml: any }> {
    const body = new URLSearchParams(
      Object.entries({ Version: '2012-11-05', ...params }).map(([k, v]): [string, string] => [k, String(v)]),
    );
    const res = await fetch(`${api.url}${path}`, { method: 'POST', headers: CLI_HEADERS, body: body.toString() });
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', xml: parseXML(await res.text()) };
  }
  const list = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-sqs-query-'));
    sqs = new LocalSqs({ file: join(dir, 'sqs.sqlite') });
    api = await startLocalApiServer(
      createLocalApiHandler({ services: [sqsService(sqs)], queryService: sqsQueryService(sqs) }),
      0,
    );
    sqs.setBaseUrl(api.url);
  });
  afterAll(async () => {
    await api?.close();
    sqs?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('create-queue with --attributes: Attribute.N.Name/Value', async () => {
    const { status, xml } = await query({
      Action: 'CreateQueue',
      QueueName: 'cli-q',
      'Attribute.1.Name': 'VisibilityTimeout',
      'Attribute.1.Value': '45',
    });
    expect(status).toBe(200);
    queueUrl = xml.CreateQueueResponse.CreateQueueResult.QueueUrl;
    expect(queueUrl).toBe(`${api.url}/123456789012/cli-q`);
    expect(xml.CreateQueueResponse.xmlns).toBe('http://queue.amazonaws.com/doc/2012-11-05/');
    expect(xml.CreateQueueResponse.ResponseMetadata.RequestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('list-queues: one QueueUrl element per queue', async () => {
    const { status, contentType, xml } = await query({ Action: 'ListQueues' });
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/xml/);
    expect(list(xml.ListQueuesResponse.ListQueuesResult.QueueUrl)).toEqual([queueUrl]);
  });

  it('get-queue-attributes --attribute-names All: Attribute elements with Name and Value', async () => {
    const { xml } = await query({ Action: 'GetQueueAttributes', QueueUrl: queueUrl, 'AttributeName.1': 'All' });
    const attributes = Object.fromEntries(
      list(xml.GetQueueAttributesResponse.GetQueueAttributesResult.Attribute).map((a: any) => [a.Name, a.Value]),
    );
    expect(attributes).toMatchObject({
      VisibilityTimeout: '45',
      QueueArn: 'arn:aws:sqs:us-east-1:123456789012:cli-q',
      ApproximateNumberOfMessages: '0',
    });
  });

  it('send-message with String, Number and Binary attributes answers the MD5s botocore checks', async () => {
    const { status, xml } = await query({
      Action: 'SendMessage',
      QueueUrl: queueUrl,
      MessageBody: 'hello <&> world',
      DelaySeconds: 0,
      'MessageAttribute.1.Name': 'n',
      'MessageAttribute.1.Value.DataType': 'Number',
      'MessageAttribute.1.Value.StringValue': '5',
      'MessageAttribute.2.Name': 'b',
      'MessageAttribute.2.Value.DataType': 'Binary',
      'MessageAttribute.2.Value.BinaryValue': 'AAE=',
      'MessageAttribute.3.Name': 's',
      'MessageAttribute.3.Value.DataType': 'String',
      'MessageAttribute.3.Value.StringValue': 'v',
    });
    expect(status).toBe(200);
    const result = xml.SendMessageResponse.SendMessageResult;
    expect(result.MD5OfMessageBody).toBe(md5('hello <&> world'));
    // SQS's documented attribute digest, spelled out: per name in order, length-prefixed name, type, transport byte, value.
    const part = (name: string, type: string, transport: number, value: Buffer) => {
      const lp = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
      return Buffer.concat([lp(Buffer.from(name)), lp(Buffer.from(type)), Buffer.from([transport]), lp(value)]);
    };
    const expected = md5(
      Buffer.concat([
        part('b', 'Binary', 2, Buffer.from([0, 1])),
        part('n', 'Number', 1, Buffer.from('5')),
        part('s', 'String', 1, Buffer.from('v')),
      ]),
    );
    expect(result.MD5OfMessageAttributes).toBe(expected);
    expect(result.MessageId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('receive-message --attribute-names All --message-attribute-names All: the Message with Attribute and MessageAttribute elements', async () => {
    const { xml } = await query({
      Action: 'ReceiveMessage',
      QueueUrl: queueUrl,
      'AttributeName.1': 'All',
      'MessageAttributeName.1': 'All',
      MaxNumberOfMessages: 2,
      VisibilityTimeout: 0,
      WaitTimeSeconds: 0,
    });
    const [message] = list(xml.ReceiveMessageResponse.ReceiveMessageResult.Message) as any[];
    expect(message.Body).toBe('hello <&> world');
    expect(message.MD5OfBody).toBe(md5('hello <&> world'));
    expect(message.ReceiptHandle).toMatch(/^\d+\./);
    const system = Object.fromEntries(list(message.Attribute).map((a: any) => [a.Name, a.Value]));
    expect(system).toMatchObject({ SenderId: '123456789012', ApproximateReceiveCount: '1' });
    const attributes = Object.fromEntries(list(message.MessageAttribute).map((a: any) => [a.Name, a.Value]));
    expect(attributes).toEqual({
      b: { BinaryValue: 'AAE=', DataType: 'Binary' },
      n: { StringValue: '5', DataType: 'Number' },
      s: { StringValue: 'v', DataType: 'String' },
    });
  });

  it('send-message-batch and delete-message-batch: one result entry per entry', async () => {
    const sent = await query({
      Action: 'SendMessageBatch',
      QueueUrl: queueUrl,
      'SendMessageBatchRequestEntry.1.Id': 'a',
      'SendMessageBatchRequestEntry.1.MessageBody': 'one',
      'SendMessageBatchRequestEntry.2.Id': 'b',
      'SendMessageBatchRequestEntry.2.MessageBody': 'two',
    });
    const entries = list(sent.xml.SendMessageBatchResponse.SendMessageBatchResult.SendMessageBatchResultEntry) as any[];
    expect(entries.map((e) => [e.Id, e.MD5OfMessageBody])).toEqual([
      ['a', md5('one')],
      ['b', md5('two')],
    ]);
    const received = await query({ Action: 'ReceiveMessage', QueueUrl: queueUrl, MaxNumberOfMessages: 10 });
    const handles = (list(received.xml.ReceiveMessageResponse.ReceiveMessageResult.Message) as any[]).map(
      (m) => m.ReceiptHandle as string,
    );
    expect(handles).toHaveLength(3);
    const deleted = await query({
      Action: 'DeleteMessageBatch',
      QueueUrl: queueUrl,
      'DeleteMessageBatchRequestEntry.1.Id': 'x',
      'DeleteMessageBatchRequestEntry.1.ReceiptHandle': handles[0],
      'DeleteMessageBatchRequestEntry.2.Id': 'y',
      'DeleteMessageBatchRequestEntry.2.ReceiptHandle': 'not-a-handle',
    });
    const result = deleted.xml.DeleteMessageBatchResponse.DeleteMessageBatchResult;
    expect(list(result.DeleteMessageBatchResultEntry)).toEqual([{ Id: 'x' }]);
    expect(list(result.BatchResultErrorEntry)).toEqual([
      expect.objectContaining({ Id: 'y', SenderFault: 'true', Code: 'ReceiptHandleIsInvalid' }),
    ]);
    const single = await query({ Action: 'DeleteMessage', QueueUrl: queueUrl, ReceiptHandle: handles[1] });
    expect(single.status).toBe(200);
    expect(single.xml.DeleteMessageResponse.ResponseMetadata.RequestId).toBeTruthy();
  });

  it('a queue-path POST (older SDKs post to the queue URL) names the queue', async () => {
    const { status, xml } = await query(
      { Action: 'GetQueueAttributes', 'AttributeName.1': 'QueueArn' },
      '/123456789012/cli-q',
    );
    expect(status).toBe(200);
    expect(xml.GetQueueAttributesResponse.GetQueueAttributesResult.Attribute).toEqual({
      Name: 'QueueArn',
      Value: 'arn:aws:sqs:us-east-1:123456789012:cli-q',
    });
  });

  it.each([
    [{ Action: 'GetQueueUrl', QueueName: 'nope' }, 'AWS.SimpleQueueService.NonExistentQueue'],
    [
      { Action: 'SendMessage', QueueUrl: 'http://x/123456789012/cli-q', MessageBody: 'bad \u0001 char' },
      'InvalidMessageContents',
    ],
    [
      { Action: 'ReceiveMessage', QueueUrl: 'http://x/123456789012/cli-q', MaxNumberOfMessages: 'ten' },
      'InvalidParameterValue',
    ],
    [
      {
        Action: 'SendMessage',
        QueueUrl: 'http://x/123456789012/cli-q',
        MessageBody: 'x',
        'MessageAttribute.1.Name': 'a',
        'MessageAttribute.1.Value.DataType': 'Bogus',
        'MessageAttribute.1.Value.StringValue': 'v',
      },
      'InvalidParameterValue',
    ],
    [{ Action: 'valueOf' }, 'InvalidAction'],
    [{ Action: '__proto__' }, 'InvalidAction'],
    [{}, 'MissingAction'],
  ])('%j is a 400 ErrorResponse with code %s', async (params, code) => {
    const { status, contentType, xml } = await query(params as Record<string, string>);
    expect(status).toBe(400);
    expect(contentType).toMatch(/^text\/xml/);
    expect(xml.ErrorResponse.Error).toMatchObject({ Type: 'Sender', Code: code, Message: expect.any(String) });
    expect(xml.ErrorResponse.RequestId).toBeTruthy();
  });

  it('a message sent over JSON is received over query, and the other way round', async () => {
    const res = await fetch(api.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessage' },
      body: JSON.stringify({ QueueUrl: queueUrl, MessageBody: 'from json' }),
    });
    expect(res.status).toBe(200);
    const { xml } = await query({
      Action: 'ReceiveMessage',
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      VisibilityTimeout: 0,
    });
    expect((list(xml.ReceiveMessageResponse.ReceiveMessageResult.Message) as any[]).map((m) => m.Body)).toContain(
      'from json',
    );
  });
});
