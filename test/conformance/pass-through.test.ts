/**
 * The pass-through for the long tail: a service the user routes goes to a real endpoint (here another
 * emulator on 127.0.0.1) through its AWS SDK v3 client — even a service the engine emulates, and an
 * optimized integration the engine does not serve; without the client installed the Task fails naming
 * the package to install.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineOptions } from '../../packages/engine/src';
import { SdkPassThrough } from '../../packages/local/src/services/pass-through';
import { jsonata } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

/** Another emulator: answers SQS's JSON protocol, recording the targets it was asked for. */
const calls: { target: string; body: unknown }[] = [];
let server: Server;
const engineOptions: Partial<EngineOptions> = {};

const body = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const request = JSON.parse((await body(req)) || '{}') as Record<string, unknown>;
    calls.push({ target, body: request });
    res.setHeader('content-type', 'application/x-amz-json-1.0');
    if (target === 'AmazonSQS.ListQueues')
      return res.end(JSON.stringify({ QueueUrls: ['http://emulator/000000000000/elsewhere'] }));
    res.statusCode = 400;
    res.setHeader('x-amzn-query-error', 'AWS.SimpleQueueService.NonExistentQueue;Sender');
    res.end(
      JSON.stringify({ __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'The specified queue does not exist.' }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const routes = {
    sqs: { endpoint, region: 'us-east-1' },
    glue: { region: 'us-east-1' },
    athena: { endpoint, region: 'us-east-1' },
  };
  Object.assign(engineOptions, { integrations: { passThrough: new SdkPassThrough({ routes }) } });
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const engine = recordedEngine({}, { engine: engineOptions });

describe('pass-through', () => {
  it('a routed aws-sdk service is called at its endpoint through the installed SDK client, the response members as result', async () => {
    const run = await engine.run(
      jsonata({
        List: {
          Type: 'Task',
          Resource: 'arn:aws:states:::aws-sdk:sqs:listQueues',
          Arguments: { QueueNamePrefix: 'else' },
          End: true,
        },
      }),
    );
    expect(run.outcome).toEqual({
      status: 'SUCCEEDED',
      output: { QueueUrls: ['http://emulator/000000000000/elsewhere'] },
    });
    expect(calls.at(-1)).toEqual({ target: 'AmazonSQS.ListQueues', body: { QueueNamePrefix: 'else' } });
  });

  it("the endpoint's error comes back as <Service>.<Name>Exception, as the SDK integration names it", async () => {
    const run = await engine.run(
      jsonata({
        Get: {
          Type: 'Task',
          Resource: 'arn:aws:states:::aws-sdk:sqs:getQueueUrl',
          Arguments: { QueueName: 'nope' },
          End: true,
        },
      }),
    );
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'Sqs.QueueDoesNotExistException' });
    expect((run.outcome as { cause: string }).cause).toMatch(
      /^The specified queue does not exist\. \(Service: Sqs, Status Code: 400, Request ID: /,
    );
  });

  it('a service whose SDK client is not installed fails with Local.IntegrationNotServed naming the package to install', async () => {
    const run = await engine.run(
      jsonata({
        Crawl: {
          Type: 'Task',
          Resource: 'arn:aws:states:::aws-sdk:glue:startCrawler',
          Arguments: { Name: 'c' },
          End: true,
        },
      }),
    );
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'Local.IntegrationNotServed' });
    expect((run.outcome as { cause: string }).cause).toBe(
      "Routing 'glue' to a real endpoint needs its AWS SDK v3 client: npm install @aws-sdk/client-glue",
    );
  });

  it('an optimized integration the engine does not serve is routed too; a .sync one is refused at run time with the reason', async () => {
    const run = await engine.run(
      jsonata({
        Q: {
          Type: 'Task',
          Resource: 'arn:aws:states:::athena:startQueryExecution.sync',
          Arguments: { QueryString: 'SELECT 1' },
          End: true,
        },
      }),
    );
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'Local.IntegrationNotServed' });
    expect((run.outcome as { cause: string }).cause).toContain('.sync');
  });
});
