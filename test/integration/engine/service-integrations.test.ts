import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_REGION } from '../../../packages/workflow/src/config/constants';
import {
  createLocalApiHandler,
  type LocalApiServer,
  startLocalApiServer,
} from '../../../packages/local/src/api/server';
import type { ExecutionStatusChangeEvent } from '../../../packages/engine/src';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../../packages/local/src/services/dynamodb';
import { LOCAL_CREDENTIALS } from '@autosave/workflow/config';
import { LocalSqs } from '../../../packages/local/src/services/sqs/local-sqs';
import { sqsService } from '../../../packages/local/src/services/sqs/sqs-service';
import {
  EngineHarness,
  invokeTask,
  jsonata,
  jsonpath,
  namedError,
} from '../../../packages/engine/test/support/engine-harness';

/** Task integrations against real local services: dynalite and the engine's SQS over HTTP. */
describe('service integrations', () => {
  let dir: string;
  let dynamo: LocalDynamoDb;
  let sqs: LocalSqs;
  let api: LocalApiServer;
  let sqsClient: SQSClient;
  let dynamoClient: DynamoDBClient;
  let h: EngineHarness;
  let queueUrl: string;
  const closedEvents: ExecutionStatusChangeEvent[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-integrations-'));
    dynamo = await startLocalDynamoDb({ directory: join(dir, 'dynamodb'), tables: ['items'] });
    sqs = new LocalSqs({ file: join(dir, 'sqs.sqlite') });
    api = await startLocalApiServer(createLocalApiHandler({ services: [sqsService(sqs)] }), 0);
    sqs.setBaseUrl(api.url);
    const common = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
    sqsClient = new SQSClient({ ...common, endpoint: api.url });
    dynamoClient = new DynamoDBClient({ ...common, endpoint: dynamo.endpoint });
    queueUrl = (await sqsClient.send(new CreateQueueCommand({ QueueName: 'out' }))).QueueUrl as string;
    h = await new EngineHarness(
      {
        child: (p) => ({ doubled: p.n * 2 }),
        bad: () => {
          throw namedError('ChildBroke');
        },
      },
      {
        integrations: { sqs: sqsClient, dynamodb: dynamoClient },
        onExecutionClosed: async (event) => void closedEvents.push(event),
      },
    ).start();
  });
  afterAll(async () => {
    await h.close();
    await api.close();
    sqs.close();
    await dynamo.close();
    sqsClient.destroy();
    dynamoClient.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('puts, updates, gets and deletes DynamoDB items and sends an SQS message, with the AWS result shapes', async () => {
    const m = await h.machine(
      jsonata({
        Put: {
          Type: 'Task',
          Resource: 'arn:aws:states:::dynamodb:putItem',
          Arguments: { TableName: 'items', Item: { id: { S: '{% $states.input.id %}' }, n: { N: '1' } } },
          Output: '{% $states.input %}',
          Next: 'Update',
        },
        Update: {
          Type: 'Task',
          Resource: 'arn:aws:states:::dynamodb:updateItem',
          Arguments: {
            TableName: 'items',
            Key: { id: { S: '{% $states.input.id %}' } },
            UpdateExpression: 'SET n = n + :one',
            ExpressionAttributeValues: { ':one': { N: '1' } },
            ReturnValues: 'ALL_NEW',
          },
          Output: '{% $merge([$states.input, {"updated": $states.result.Attributes.n.N}]) %}',
          Next: 'Get',
        },
        Get: {
          Type: 'Task',
          Resource: 'arn:aws:states:::dynamodb:getItem',
          Arguments: { TableName: 'items', Key: { id: { S: '{% $states.input.id %}' } } },
          Output:
            '{% $merge([$states.input, {"got": $states.result.Item.n.N, "status": $states.result.SdkHttpMetadata.HttpStatusCode}]) %}',
          Next: 'Send',
        },
        Send: {
          Type: 'Task',
          Resource: 'arn:aws:states:::sqs:sendMessage',
          Arguments: { QueueUrl: queueUrl, MessageBody: '{% $states.input %}' },
          Output: '{% $merge([$states.input, {"messageId": $states.result.MessageId}]) %}',
          Next: 'Delete',
        },
        Delete: {
          Type: 'Task',
          Resource: 'arn:aws:states:::dynamodb:deleteItem',
          Arguments: { TableName: 'items', Key: { id: { S: '{% $states.input.id %}' } } },
          Output: '{% $states.input %}',
          End: true,
        },
      }),
    );
    const arn = await h.run(m, { id: 'item-1' });
    const out = (await h.output(arn)) as any;
    expect(out).toMatchObject({ id: 'item-1', updated: '2', got: '2', status: 200, messageId: expect.any(String) });
    const received = await sqsClient.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1 }));
    expect(JSON.parse(received.Messages?.[0]?.Body as string)).toEqual({
      id: 'item-1',
      updated: '2',
      got: '2',
      status: 200,
    });
    expect(
      (await dynamoClient.send(new GetItemCommand({ TableName: 'items', Key: { id: { S: 'item-1' } } }))).Item,
    ).toBeUndefined();
  });

  it('surfaces a failed condition as DynamoDB.ConditionalCheckFailedException, catchable by name', async () => {
    const m = await h.machine(
      jsonata({
        Put: {
          Type: 'Task',
          Resource: 'arn:aws:states:::dynamodb:putItem',
          Arguments: {
            TableName: 'items',
            Item: { id: { S: 'taken' } },
            ConditionExpression: 'attribute_not_exists(id)',
          },
          Catch: [{ ErrorEquals: ['DynamoDB.ConditionalCheckFailedException'], Next: 'Taken' }],
          End: true,
        },
        Taken: { Type: 'Pass', Output: { taken: true }, End: true },
      }),
    );
    expect(await h.describe(await h.run(m))).toMatchObject({ status: 'SUCCEEDED' });
    expect(await h.output(await h.run(m))).toEqual({ taken: true });
  });

  // Recorded on AWS: localstack error_handling/test_task_service_dynamodb.snapshot.json (test_put_item_no_such_table,
  // test_put_item_invalid_table_name): a missing table keeps its own error name, a validation error is the
  // Java SDK's generic AmazonDynamoDBException; both causes are in the Java SDK's words.
  it("a table that does not exist is DynamoDB.ResourceNotFoundException with the Java SDK's cause", async () => {
    const m = await h.machine(
      jsonata({
        Put: {
          Type: 'Task',
          Resource: 'arn:aws:states:::dynamodb:putItem',
          Arguments: { TableName: 'no-such-table', Item: { id: { S: 'x' } } },
          End: true,
        },
      }),
    );
    const d = await h.describe(await h.run(m));
    expect(d).toMatchObject({ status: 'FAILED', error: 'DynamoDB.ResourceNotFoundException' });
    expect(d.cause).toMatch(
      /^Requested resource not found \(Service: AmazonDynamoDBv2; Status Code: 400; Error Code: ResourceNotFoundException; Request ID: [0-9a-f-]{36}; Proxy: null\)$/,
    );
  });

  it("an invalid table name is DynamoDB.AmazonDynamoDBException with the Java SDK's cause", async () => {
    const m = await h.machine(
      jsonata({
        Put: {
          Type: 'Task',
          Resource: 'arn:aws:states:::dynamodb:putItem',
          Arguments: { TableName: '/invalid_table', Item: { id: { S: 'x' } } },
          End: true,
        },
      }),
    );
    const d = await h.describe(await h.run(m));
    expect(d).toMatchObject({ status: 'FAILED', error: 'DynamoDB.AmazonDynamoDBException' });
    expect(d.cause).toMatch(
      /^1 validation error detected: Value '\/invalid_table' at 'tableName' failed to satisfy constraint: .* \(Service: AmazonDynamoDBv2; Status Code: 400; Error Code: ValidationException; Request ID: [0-9a-f-]{36}; Proxy: null\)$/,
    );
  });

  // Recorded on AWS: error_handling/test_task_service_sqs.snapshot.json (test_send_message_empty_body): a null
  // MessageBody is a missing one, not the text "null".
  it('a null MessageBody fails with SQS.AmazonSQSException (MissingParameter), catchable', async () => {
    const m = await h.machine(
      jsonpath({
        Start: {
          Type: 'Task',
          Resource: 'arn:aws:states:::sqs:sendMessage',
          Parameters: { 'QueueUrl.$': '$.QueueUrl', 'MessageBody.$': '$.MessageBody' },
          Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Caught' }],
          End: true,
        },
        Caught: { Type: 'Pass', End: true },
      }),
    );
    const out = (await h.output(await h.run(m, { QueueUrl: queueUrl, MessageBody: null }))) as {
      Error: string;
      Cause: string;
    };
    expect(out.Error).toBe('SQS.AmazonSQSException');
    expect(out.Cause).toMatch(
      /^The request must contain the parameter MessageBody\. \(Service: AmazonSQS; Status Code: 400; Error Code: MissingParameter; Request ID: [0-9a-f-]{36}; Proxy: null\)$/,
    );
  });

  it('starts child executions (request-response and .sync) with states:startExecution', async () => {
    const child = await h.machine(jsonata({ C: invokeTask('child', { End: true }) }), 'child');
    const parent = await h.machine(
      jsonata({
        Fire: {
          Type: 'Task',
          Resource: 'arn:aws:states:::states:startExecution',
          Arguments: { StateMachineArn: child, Input: { n: 1 }, Name: 'fired' },
          Next: 'Sync',
        },
        Sync: {
          Type: 'Task',
          Resource: 'arn:aws:states:::states:startExecution.sync:2',
          Arguments: { StateMachineArn: child, Input: { n: 21 } },
          Output: '{% $states.result.Output %}',
          End: true,
        },
      }),
    );
    const arn = await h.run(parent);
    await h.idle();
    expect(await h.describe(arn)).toMatchObject({ status: 'SUCCEEDED', output: '{"doubled":42}' });
    expect(await h.describe(child.replace('stateMachine', 'execution') + ':fired')).toMatchObject({
      status: 'SUCCEEDED',
      output: '{"doubled":2}',
    });
  });

  it('emulates the EventBridge status-change rule for a failed execution', async () => {
    const m = await h.machine(jsonata({ B: invokeTask('bad', { End: true }) }), 'failing');
    const arn = await h.run(m, { x: 1 });
    await h.idle();
    const event = closedEvents.find((e) => e.detail.executionArn === arn);
    expect(event).toMatchObject({
      'detail-type': 'Step Functions Execution Status Change',
      source: 'aws.states',
      resources: [arn],
      detail: {
        executionArn: arn,
        status: 'FAILED',
        error: 'ChildBroke',
        input: '{"x":1}',
        redriveCount: 0,
        redriveStatus: 'REDRIVABLE',
        startDate: expect.any(Number),
      },
    });
    expect(closedEvents.every((e) => e.detail.status !== 'SUCCEEDED')).toBe(true);
  });
});
