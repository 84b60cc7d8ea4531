/**
 * `startLocal` (what `autosave local` runs): services on their ports, workflows deployed behind `live`,
 * handler code seeing the local endpoints, closed runs dead-lettered through run-monitor, the virtual
 * clock, and a restart on the same data directory that resumes what was in flight.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateStateMachineCommand,
  DescribeStateMachineAliasCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { CreateQueueCommand, GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { untilClosed } from './sfn-helpers';
import { LOCAL_CREDENTIALS } from '@autosave/workflow/config';
import { eventually } from '../../fixtures/wait';
import { exampleApp } from '../../fixtures/example-app';
import { runtimeEnvironment } from '@autosave/runtime/endpoints';

class SiteRejectedError extends Error {
  override readonly name = 'SiteRejectedError';
}

const tokens: string[] = [];
const functions = {
  // What a handler reads its configuration from: its own environment (process.env on AWS).
  'report-env': async () => {
    const env = runtimeEnvironment();
    return {
      sfn: env.AWS_ENDPOINT_URL_SFN,
      sqs: env.AWS_ENDPOINT_URL_SQS,
      dynamodb: env.AWS_ENDPOINT_URL_DYNAMODB,
      s3: env.AWS_ENDPOINT_URL_S3,
      dlq: env.AUTOSAVE_DLQ_URL,
      table: env.AUTOSAVE_TABLE,
    };
  },
  'always-fails': async () => {
    throw new SiteRejectedError('site 4412 is not in the registry');
  },
  park: async (event: { token: string }) => {
    tokens.push(event.token);
    return {};
  },
};

const machine = (states: Record<string, unknown>, startAt: string) =>
  JSON.stringify({ QueryLanguage: 'JSONata', StartAt: startAt, States: states });
const invoke = (fn: string, extra: Record<string, unknown> = {}) => ({
  Type: 'Task',
  Resource: 'arn:aws:states:::lambda:invoke',
  Arguments: { FunctionName: fn, Payload: {} },
  Output: '{% $states.result.Payload %}',
  End: true,
  ...extra,
});
const credentials = { accessKeyId: 'a', secretAccessKey: 'b' };

async function waitForStatus(sfn: SFNClient, executionArn: string, status: string): Promise<Record<string, any>> {
  const d = await untilClosed(sfn, executionArn);
  expect(d.status, `${d.error} ${d.cause}`).toBe(status);
  return d;
}

describe('startLocal', () => {
  let dataDir: string;
  let local: LocalEngine;
  let sfn: SFNClient;
  const role = 'arn:aws:iam::123456789012:role/t';

  let envBefore: Record<string, string | undefined>;
  let envAfterStart: Record<string, string | undefined>;
  // The example app with the test's functions beside its own: its workflows need its tool-step's tools.
  let app: Awaited<ReturnType<typeof exampleApp>>;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'autosave-local-'));
    app = await exampleApp();
    envBefore = { ...process.env };
    local = await startLocal({
      ...app,
      port: 0,
      dataDir,
      functions: { ...app.functions, ...functions },
      log: () => {},
    });
    envAfterStart = { ...process.env };
    sfn = new SFNClient({ endpoint: local.url, region: 'us-east-1', credentials });
  });

  it("never writes the process's environment: the functions get theirs in a scope of their own (as each Lambda function has its own)", async () => {
    expect(envAfterStart).toEqual(envBefore);
    const seen = await local.lambdas.invoke({ functionName: 'report-env', payload: {} });
    expect(seen.payload).toMatchObject({ sfn: local.url, dynamodb: local.endpoints.dynamodb });
    expect({ ...process.env }).toEqual(envBefore);
  });
  afterAll(async () => {
    sfn?.destroy();
    await local?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('writes where everything listens to endpoints.json', async () => {
    const endpoints = JSON.parse(await readFile(join(dataDir, 'endpoints.json'), 'utf8'));
    expect(endpoints).toMatchObject({
      url: local.url,
      stepFunctions: local.url,
      sqs: local.url,
      region: 'us-east-1',
      accountId: '123456789012',
    });
    expect(endpoints.dynamodb).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(endpoints.s3).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('deploys every workflow of the registry behind a live alias on its newest version', async () => {
    const { workflows } = await import('../../../statemachines/index');
    expect(local.deployments.map((d) => d.workflow)).toEqual(workflows.map((w) => w.name));
    for (const d of local.deployments) {
      const alias = await sfn.send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn: d.aliasArn }));
      expect(alias.routingConfiguration).toEqual([{ stateMachineVersionArn: d.versionArn, weight: 100 }]);
    }
  });

  it('serves the console on GET / of the same port', async () => {
    const res = await fetch(`${local.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('clinical-trial-onboarding');
  });

  it('runs handlers with the standard endpoint variables pointing at the local services', async () => {
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: 'env',
        roleArn: role,
        definition: machine({ Env: invoke('report-env') }, 'Env'),
      }),
    );
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn }));
    const d = await waitForStatus(sfn, executionArn!, 'SUCCEEDED');
    expect(JSON.parse(d.output)).toEqual({
      sfn: local.url,
      sqs: local.url,
      dynamodb: local.endpoints.dynamodb,
      s3: local.endpoints.s3,
      dlq: `${local.url}/123456789012/autosave-dlq`,
      table: 'autosave',
    });
  });

  it('dead-letters a failed run through run-monitor (the EventBridge rule, emulated)', async () => {
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: 'fails',
        roleArn: role,
        definition: machine({ Check: invoke('always-fails') }, 'Check'),
      }),
    );
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'doomed' }));
    const d = await waitForStatus(sfn, executionArn!, 'FAILED');
    expect(d.error).toBe('SiteRejectedError');
    const sqs = new SQSClient({ endpoint: local.url, region: 'us-east-1', credentials });
    try {
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'autosave-dlq' }));
      const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }));
      expect(JSON.parse(Messages![0].Body!)).toMatchObject({
        executionArn,
        status: 'FAILED',
        error: 'SiteRejectedError',
        failedState: 'Check',
      });
    } finally {
      sqs.destroy();
    }
  });

  it('wires the sqs:sendMessage and DynamoDB integrations to the local SQS and DynamoDB', async () => {
    const sqs = new SQSClient({ endpoint: local.url, region: 'us-east-1', credentials });
    const dynamodb = new DynamoDBClient({
      endpoint: local.endpoints.dynamodb,
      region: 'us-east-1',
      credentials: LOCAL_CREDENTIALS,
    });
    try {
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'integration-out' }));
      const definition = machine(
        {
          Send: {
            Type: 'Task',
            Resource: 'arn:aws:states:::sqs:sendMessage',
            Arguments: { QueueUrl, MessageBody: '{% $string($states.input) %}' },
            Output: '{% $states.input %}',
            Next: 'Put',
          },
          Put: {
            Type: 'Task',
            Resource: 'arn:aws:states:::dynamodb:putItem',
            Arguments: {
              TableName: 'autosave',
              Item: {
                id: { S: '{% "test#" & $states.context.Execution.Name %}' },
                siteId: { S: '{% $states.input.siteId %}' },
              },
            },
            End: true,
          },
        },
        'Send',
      );
      const { stateMachineArn } = await sfn.send(
        new CreateStateMachineCommand({ name: 'integrations', roleArn: role, definition }),
      );
      const { executionArn } = await sfn.send(
        new StartExecutionCommand({ stateMachineArn, name: 'wired', input: '{"siteId":"site-4412"}' }),
      );
      await waitForStatus(sfn, executionArn!, 'SUCCEEDED');
      const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
      expect(JSON.parse(Messages![0].Body!)).toEqual({ siteId: 'site-4412' });
      const { Item } = await dynamodb.send(
        new GetItemCommand({ TableName: 'autosave', Key: { id: { S: 'test#wired' } } }),
      );
      expect(Item?.siteId).toEqual({ S: 'site-4412' });
    } finally {
      sqs.destroy();
      dynamodb.destroy();
    }
  });

  it('runs the aws-sdk:s3 bucket actions on the local S3: createBucket, headBucket, listBuckets, deleteBucket', async () => {
    const task = (action: string, next: string | undefined, args: object = { Bucket: 'made-by-a-run' }) => ({
      Type: 'Task',
      Resource: `arn:aws:states:::aws-sdk:s3:${action}`,
      Arguments: args,
      Assign: { [action]: '{% $states.result %}' },
      ...(next ? { Next: next } : { End: true }),
    });
    const definition = machine(
      {
        Create: task('createBucket', 'Head'),
        Head: task('headBucket', 'List'),
        List: { ...task('listBuckets', 'Delete', {}), Output: '{% $states.result.Buckets.Name %}' },
        Delete: { ...task('deleteBucket', undefined), Output: '{% $states.input %}' },
      },
      'Create',
    );
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({ name: 's3-buckets', roleArn: role, definition }),
    );
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, input: '{}' }));
    const done = await waitForStatus(sfn, executionArn!, 'SUCCEEDED');
    expect(JSON.parse(done.output)).toContain('made-by-a-run');
    const s3 = new S3Client({ endpoint: local.endpoints.s3, region: 'us-east-1', forcePathStyle: true, credentials });
    try {
      const { Buckets } = await s3.send(new ListBucketsCommand({}));
      expect(Buckets?.map((b) => b.Name)).not.toContain('made-by-a-run');
    } finally {
      s3.destroy();
    }
  });

  it('wires the aws-sdk:s3 integration and a Distributed Map ItemReader to the local S3', async () => {
    const s3 = new S3Client({ endpoint: local.endpoints.s3, region: 'us-east-1', forcePathStyle: true, credentials });
    try {
      await s3.send(new CreateBucketCommand({ Bucket: 'map-items' }));
      const definition = machine(
        {
          Put: {
            Type: 'Task',
            Resource: 'arn:aws:states:::aws-sdk:s3:putObject',
            Arguments: { Bucket: 'map-items', Key: 'items.json', Body: '{% $states.input.items %}' },
            Output: '{% $states.input %}',
            Next: 'Each',
          },
          Each: {
            Type: 'Map',
            ItemReader: {
              Resource: 'arn:aws:states:::s3:getObject',
              ReaderConfig: { InputType: 'JSON' },
              Arguments: { Bucket: 'map-items', Key: 'items.json' },
            },
            ItemProcessor: {
              ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
              StartAt: 'Double',
              States: { Double: { Type: 'Pass', Output: '{% $states.input * 2 %}', End: true } },
            },
            End: true,
          },
        },
        'Put',
      );
      const { stateMachineArn } = await sfn.send(
        new CreateStateMachineCommand({ name: 's3-items', roleArn: role, definition }),
      );
      const { executionArn } = await sfn.send(
        new StartExecutionCommand({ stateMachineArn, input: '{"items":[1,2,3]}' }),
      );
      const done = await waitForStatus(sfn, executionArn!, 'SUCCEEDED');
      expect(JSON.parse(done.output)).toEqual([2, 4, 6]);
    } finally {
      s3.destroy();
    }
  });

  it('resumes a run paused on a task token after a restart on the same data directory', async () => {
    const definition = machine(
      {
        Wait: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
          Arguments: { FunctionName: 'park', Payload: { token: '{% $states.context.Task.Token %}' } },
          End: true,
        },
      },
      'Wait',
    );
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({ name: 'paused', roleArn: role, definition }),
    );
    const before = tokens.length;
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn, input: '{"siteId":"site-4412"}' }),
    );
    await eventually('the paused run to hand out its task token', () => (tokens.length > before ? true : undefined));
    const token = tokens.at(-1)!;

    await local.stop();
    sfn.destroy();
    local = await startLocal({
      ...app,
      port: 0,
      dataDir,
      functions: { ...app.functions, ...functions },
      log: () => {},
    });
    sfn = new SFNClient({ endpoint: local.url, region: 'us-east-1', credentials });
    expect(local.deployments.every((d) => d.change === 'unchanged')).toBe(true);

    await sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: '{"approved":true}' }));
    const d = await waitForStatus(sfn, executionArn!, 'SUCCEEDED');
    expect(JSON.parse(d.output)).toEqual({ approved: true });
  });
});

describe('startLocal with --virtual-clock', () => {
  it('serves the clock routes and keeps the clock across a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'autosave-local-clock-'));
    try {
      let local = await startLocal({
        ...(await exampleApp()),
        port: 0,
        dataDir,
        virtualClock: true,
        deployWorkflows: false,
        log: () => {},
      });
      const start = ((await (await fetch(`${local.url}/_autosave/clock`)).json()) as { epochMillis: number })
        .epochMillis as number;
      const advanced = (await (
        await fetch(`${local.url}/_autosave/clock/advance`, { method: 'POST', body: '{"seconds": 432000}' })
      ).json()) as { epochMillis: number };
      expect(advanced.epochMillis).toBe(start + 432_000_000);
      await local.stop();
      local = await startLocal({
        ...(await exampleApp()),
        port: 0,
        dataDir,
        virtualClock: true,
        deployWorkflows: false,
        log: () => {},
      });
      expect(
        ((await (await fetch(`${local.url}/_autosave/clock`)).json()) as { epochMillis: number }).epochMillis,
      ).toBe(start + 432_000_000);
      await local.stop();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('startLocal with a routed service whose client is not installed', () => {
  it('warns at start, naming the package, not only when a run first calls it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'autosave-local-routes-'));
    const lines: string[] = [];
    try {
      const local = await startLocal({
        ...(await exampleApp()),
        port: 0,
        dataDir,
        deployWorkflows: false,
        passThrough: { athena: { endpoint: 'http://127.0.0.1:4566', package: '@aws-sdk/client-not-installed-here' } },
        log: (line) => lines.push(line),
      });
      await local.stop();
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^ {2}warning: Routing 'athena' to a real endpoint needs its AWS SDK v3 client: npm install @aws-sdk\/client-not-installed-here \(its Tasks fail with Local\.IntegrationNotServed until then\)$/,
        ),
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
