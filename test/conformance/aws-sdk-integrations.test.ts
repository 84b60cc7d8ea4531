/**
 * AWS SDK service integrations (`arn:aws:states:::aws-sdk:<service>:<action>`) as AWS records them
 * (localstack's AWS-validated snapshots: services/test_aws_sdk_task_service, services/test_dynamodb_task_service,
 * error_handling/test_aws_sdk, and the callback tests' consumer machines callbacks/sqs_*_on_task_token):
 * the result is the API response in PascalCase without SdkHttpMetadata, history events name
 * `resourceType` `aws-sdk:<service>`, errors are `<Service>.<Name>Exception` with the Java SDK's cause.
 * Run against dynalite and the engine's SQS over HTTP, and the engine's own Step Functions API.
 */
import { CreateTableCommand, DynamoDBClient, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { createLocalApiHandler, type LocalApiServer, startLocalApiServer } from '../../packages/local/src/api/server';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../packages/local/src/services/dynamodb';
import { LocalSqs } from '../../packages/local/src/services/sqs/local-sqs';
import { sqsService } from '../../packages/local/src/services/sqs/sqs-service';
import { jsonpath } from '../../packages/engine/test/support/engine-harness';
import { type RecordedRun, recordedEngine } from './support/recorded-run';

const integrations: { sqs?: SQSClient; dynamodb?: DynamoDBClient } = {};
let dir: string;
let dynamo: LocalDynamoDb;
let sqs: LocalSqs;
let api: LocalApiServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'autosave-aws-sdk-'));
  dynamo = await startLocalDynamoDb({ directory: join(dir, 'dynamodb'), tables: [] });
  sqs = new LocalSqs({ file: join(dir, 'sqs.sqlite') });
  api = await startLocalApiServer(createLocalApiHandler({ services: [sqsService(sqs)] }), 0);
  sqs.setBaseUrl(api.url);
  const common = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  integrations.sqs = new SQSClient({ ...common, endpoint: api.url });
  integrations.dynamodb = new DynamoDBClient({ ...common, endpoint: dynamo.endpoint });
});
afterAll(async () => {
  integrations.sqs?.destroy();
  integrations.dynamodb?.destroy();
  await api?.close();
  sqs?.close();
  await dynamo?.close();
  await rm(dir, { recursive: true, force: true });
});
const engine = recordedEngine({}, { engine: { integrations } });

let tables = 0;
/**
 * A table keyed by the string `id`, as the tests' dynamodb_create_table(partition_key="id") makes it, once
 * ACTIVE: dynalite answers CreateTable with CREATING and flips the status after
 * its own write, so a call right after it can find no table (a load-only flake otherwise).
 */
async function createTable(): Promise<string> {
  const name = `sfn_test_table_${++tables}`;
  const client = integrations.dynamodb!;
  await client.send(
    new CreateTableCommand({
      TableName: name,
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1, maxDelay: 1 }, { TableName: name });
  return name;
}

const sdkTask = (resource: string, parameters: object, rest: object = { End: true }) => ({
  Type: 'Task',
  Resource: `arn:aws:states:::aws-sdk:${resource}`,
  Parameters: parameters,
  ...rest,
});

/** The `taskSucceededEventDetails.output` of each TaskSucceeded, in order. */
const taskOutputs = (run: RecordedRun) =>
  run.events
    .filter((e) => e.type === 'TaskSucceeded')
    .map((e) => (e.taskSucceededEventDetails as { output: unknown }).output);
const eventDetails = (run: RecordedRun, type: string, key: string) =>
  run.events.filter((e) => e.type === type).map((e) => e[key]);

/** The Java SDK's cause: message, service, status, request id (and, where AWS wrote it, the attempt count). */
const sdkCause = (message: string, service: string, attemptCount: boolean) =>
  new RegExp(
    `^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(Service: ${service}, Status Code: 400, Request ID: [^)]+\\)${attemptCount ? ' \\(SDK Attempt Count: 1\\)' : ''}$`,
  );

describe('aws-sdk:dynamodb', () => {
  const item = { data: { S: 'HelloWorld' }, id: { S: 'id1' } };
  const putThen = (name: string, resource: string, parameters: object) =>
    jsonpath({
      PutItem: sdkTask(
        'dynamodb:putItem',
        { 'TableName.$': '$.TableName', 'Item.$': '$.Item' },
        { ResultPath: '$.putItemOutput', Next: name },
      ),
      [name]: sdkTask(resource, parameters, {
        ResultPath: `$.${name.charAt(0).toLowerCase()}${name.slice(1)}Output`,
        End: true,
      }),
    });

  it('putItem then getItem: results are the response fields only ({} and {Item}), events name aws-sdk:dynamodb (recorded on AWS: services/test_aws_sdk_task_service.snapshot.json::test_dynamodb_put_get_item)', async () => {
    const TableName = await createTable();
    const run = await engine.run(
      putThen('GetItem', 'dynamodb:getItem', { 'TableName.$': '$.TableName', 'Key.$': '$.Key' }),
      { TableName, Item: item, Key: { id: { S: 'id1' } } },
    );
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSucceeded',
      'TaskStateExited',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
    expect(eventDetails(run, 'TaskScheduled', 'taskScheduledEventDetails')[0]).toMatchObject({
      resource: 'putItem',
      resourceType: 'aws-sdk:dynamodb',
      parameters: { TableName, Item: item },
    });
    expect(eventDetails(run, 'TaskStarted', 'taskStartedEventDetails')[1]).toEqual({
      resource: 'getItem',
      resourceType: 'aws-sdk:dynamodb',
    });
    expect(taskOutputs(run)).toEqual([{}, { Item: item }]);
    expect(run.outcome).toEqual({
      status: 'SUCCEEDED',
      output: { TableName, Item: item, Key: { id: { S: 'id1' } }, putItemOutput: {}, getItemOutput: { Item: item } },
    });
  });

  it('deleteItem answers {} (recorded on AWS: services/test_aws_sdk_task_service.snapshot.json::test_dynamodb_put_delete_item)', async () => {
    const TableName = await createTable();
    const run = await engine.run(
      putThen('DeleteItem', 'dynamodb:deleteItem', { 'TableName.$': '$.TableName', 'Key.$': '$.Key' }),
      { TableName, Item: item, Key: { id: { S: 'id1' } } },
    );
    expect(taskOutputs(run)).toEqual([{}, {}]);
  });

  it('updateItem with ReturnValues UPDATED_NEW answers {Attributes} (recorded on AWS: services/test_aws_sdk_task_service.snapshot.json::test_dynamodb_put_update_get_item)', async () => {
    const TableName = await createTable();
    const def = putThen('UpdateItem', 'dynamodb:updateItem', {
      'TableName.$': '$.TableName',
      'Key.$': '$.Key',
      'UpdateExpression.$': '$.UpdateExpression',
      'ExpressionAttributeValues.$': '$.ExpressionAttributeValues',
      ReturnValues: 'UPDATED_NEW',
    });
    const run = await engine.run(def, {
      TableName,
      Item: item,
      Key: { id: { S: 'id1' } },
      UpdateExpression: 'set S=:r',
      ExpressionAttributeValues: { ':r': { S: 'HelloWorldUpdated' } },
    });
    expect(taskOutputs(run)).toEqual([{}, { Attributes: { S: { S: 'HelloWorldUpdated' } } }]);
  });

  it('query answers {Count, Items, ScannedCount} (recorded on AWS: services/test_dynamodb_task_service.snapshot.json::test_base_integrations[DYNAMODB_PUT_QUERY])', async () => {
    const TableName = await createTable();
    const def = putThen('QueryItems', 'dynamodb:query', {
      'TableName.$': '$.TableName',
      KeyConditionExpression: 'id = :id',
      ExpressionAttributeValues: { ':id.$': '$.Item.id' },
    });
    const run = await engine.run(def, { TableName, Item: item });
    expect(taskOutputs(run)[1]).toEqual({ Count: 1, Items: [item], ScannedCount: 1 });
  });

  it('a table that does not exist is DynamoDb.ResourceNotFoundException, in the Java SDK v2 words (recorded on AWS: error_handling/test_aws_sdk.snapshot.json::test_dynamodb_put_item_no_such_table)', async () => {
    const def = jsonpath({
      PutItem: sdkTask('dynamodb:putItem', { 'TableName.$': '$.TableName', 'Item.$': '$.Item' }),
    });
    const run = await engine.run(def, { TableName: 'no_such_sfn_test_table_1', Item: item });
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskFailed',
      'ExecutionFailed',
    ]);
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'DynamoDb.ResourceNotFoundException' });
    expect((run.outcome as { cause: string }).cause).toMatch(
      sdkCause('Requested resource not found', 'DynamoDb', false),
    );
  });

  it('a null Item is left out of the request and the validation error is the generic DynamoDb.DynamoDbException (recorded on AWS: error_handling/test_aws_sdk.snapshot.json::test_dynamodb_invalid_param)', async () => {
    const TableName = await createTable();
    const def = jsonpath({
      PutItem: sdkTask('dynamodb:putItem', { 'TableName.$': '$.TableName', 'Item.$': '$.Item' }),
    });
    const run = await engine.run(def, { TableName, Key: null, Item: null });
    expect(eventDetails(run, 'TaskScheduled', 'taskScheduledEventDetails')[0]).toMatchObject({
      parameters: { TableName, Item: null },
    });
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'DynamoDb.DynamoDbException' });
    expect((run.outcome as { cause: string }).cause).toMatch(
      sdkCause(
        "1 validation error detected: Value null at 'item' failed to satisfy constraint: Member must not be null",
        'DynamoDb',
        false,
      ),
    );
  });

  it('the error is caught by its name', async () => {
    const def = jsonpath({
      PutItem: sdkTask(
        'dynamodb:putItem',
        { TableName: 'no_such_table', Item: item },
        { Catch: [{ ErrorEquals: ['DynamoDb.ResourceNotFoundException'], Next: 'Caught' }], End: true },
      ),
      Caught: { Type: 'Pass', End: true },
    });
    const run = await engine.run(def, {});
    expect(run.outcome).toMatchObject({ status: 'SUCCEEDED', output: { Error: 'DynamoDb.ResourceNotFoundException' } });
  });
});

describe('aws-sdk:sfn on the engine itself', () => {
  it.each([
    {
      action: 'sendTaskSuccess',
      parameters: { Output: 'ParameterOutput', 'TaskToken.$': '$$.Execution.Input.TaskToken' },
      template: '0',
    },
    { action: 'sendTaskFailure', parameters: { 'TaskToken.$': '$$.Execution.Input.TaskToken' }, template: '1' },
  ])(
    '$action with an unknown token (and an Output that is not JSON) is Sfn.InvalidTokenException (recorded on AWS: services/test_aws_sdk_task_service.snapshot.json::test_sfn_send_task_outcome_with_no_such_token[state_machine_template$template])',
    async ({ action, parameters }) => {
      const run = await engine.run(jsonpath({ StartExecution: sdkTask(`sfn:${action}`, parameters) }), {
        TaskToken: 'NoSuchTaskToken',
      });
      expect(run.types).toEqual([
        'ExecutionStarted',
        'TaskStateEntered',
        'TaskScheduled',
        'TaskStarted',
        'TaskFailed',
        'ExecutionFailed',
      ]);
      expect(eventDetails(run, 'TaskFailed', 'taskFailedEventDetails')[0]).toMatchObject({
        error: 'Sfn.InvalidTokenException',
        resource: action,
        resourceType: 'aws-sdk:sfn',
      });
      expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'Sfn.InvalidTokenException' });
      expect((run.outcome as { cause: string }).cause).toMatch(sdkCause("Invalid Token: 'Invalid token'", 'Sfn', true));
    },
  );

  it('startExecution with Input null starts the child and answers {ExecutionArn, StartDate} (recorded on AWS: services/test_aws_sdk_task_service.snapshot.json::test_sfn_start_execution)', async () => {
    const child = await engine.harness.machine(
      jsonpath({ Fail: { Type: 'Fail', Error: 'SomeFailure', Cause: 'This state machines raises a failure.' } }),
    );
    const def = jsonpath({
      StartExecution: sdkTask('sfn:startExecution', {
        'StateMachineArn.$': '$.StateMachineArn',
        'Input.$': '$.Input',
        'Name.$': '$.Name',
      }),
    });
    const run = await engine.run(def, { StateMachineArn: child, Input: null, Name: 'TestStartTarget' });
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
    const [result] = taskOutputs(run) as { ExecutionArn: string; StartDate: string }[];
    expect(Object.keys(result)).toEqual(['ExecutionArn', 'StartDate']);
    expect(result.ExecutionArn).toBe(`${child.replace(':stateMachine:', ':execution:')}:TestStartTarget`);
    expect(new Date(result.StartDate).toISOString()).toBe(result.StartDate);
    expect((await engine.harness.describe(result.ExecutionArn)).input).toBe('{}');
  });

  it('startExecution serializes an Input given as JSON (recorded on AWS: services/test_aws_sdk_task_service.snapshot.json::test_sfn_start_execution_implicit_json_serialisation)', async () => {
    const child = await engine.harness.machine(
      jsonpath({ Done: { Type: 'Pass', Result: { Arg1: 'argument1' }, End: true } }),
    );
    const def = jsonpath({
      SetupVariables: { Type: 'Pass', Parameters: { Input: { key: 'value' } }, Next: 'StartTarget' },
      StartTarget: sdkTask('sfn:startExecution', { StateMachineArn: child, 'Input.$': '$.Input' }),
    });
    const run = await engine.run(def, {});
    expect(run.outcome.status).toBe('SUCCEEDED');
    const [result] = taskOutputs(run) as { ExecutionArn: string }[];
    expect(JSON.parse((await engine.harness.describe(result.ExecutionArn)).input)).toEqual({ key: 'value' });
  });

  it.each([
    [
      'sendTaskSuccess',
      { 'Output.$': 'States.JsonToString($.Body.Message)', 'TaskToken.$': '$.Body.TaskToken' },
      { status: 'SUCCEEDED', output: 'test_message_txt' },
    ],
    [
      'sendTaskFailure',
      { Error: 'Failure error', Cause: 'Failure cause', 'TaskToken.$': '$.Body.TaskToken' },
      { status: 'FAILED', error: 'Failure error', cause: 'Failure cause' },
    ],
  ])(
    'a consumer machine answers a .waitForTaskToken through aws-sdk:sqs:receiveMessage and aws-sdk:sfn:%s (the consumer the fixtures of callback/test_callback.py test_sqs_wait_for_task_token / test_sqs_failure_in_wait_for_task_token run on AWS: templates/callbacks/sqs_success_on_task_token, sqs_failure_on_task_token)',
    async (action, parameters, outcome) => {
      const QueueUrl = (await integrations.sqs!.send(new CreateQueueCommand({ QueueName: `queue-${action}` })))
        .QueueUrl as string;
      // The fixture's consumer: poll the queue once a second; for each message, answer the token it carries.
      const consumer = await engine.harness.machine(
        jsonpath({
          Iterate: {
            Type: 'Pass',
            Parameters: { 'Count.$': 'States.MathAdd($.Iterator.Count, -1)' },
            ResultPath: '$.Iterator',
            Next: 'IterateStep',
          },
          IterateStep: {
            Type: 'Choice',
            Choices: [{ Variable: '$.Iterator.Count', NumericLessThanEquals: 0, Next: 'NoMoreCycles' }],
            Default: 'WaitAndReceive',
          },
          WaitAndReceive: { Type: 'Wait', Seconds: 1, Next: 'Receive' },
          Receive: sdkTask(
            'sqs:receiveMessage',
            { 'QueueUrl.$': '$.QueueUrl' },
            { ResultPath: '$.SQSOutput', Next: 'CheckMessages' },
          ),
          CheckMessages: {
            Type: 'Choice',
            Choices: [{ Variable: '$.SQSOutput.Messages', IsPresent: true, Next: 'SendAnswers' }],
            Default: 'Iterate',
          },
          SendAnswers: {
            Type: 'Map',
            InputPath: '$.SQSOutput.Messages',
            ItemProcessor: {
              StartAt: 'ParseBody',
              States: {
                ParseBody: { Type: 'Pass', Parameters: { 'Body.$': 'States.StringToJson($.Body)' }, Next: 'Send' },
                Send: sdkTask(`sfn:${action}`, parameters),
              },
            },
            ResultPath: null,
            Next: 'Iterate',
          },
          NoMoreCycles: { Type: 'Pass', End: true },
        }),
      );
      const consumerRun = await engine.harness.run(consumer, { QueueUrl, Iterator: { Count: 5 } });
      const waiter = jsonpath({
        SendMessageWithWait: {
          Type: 'Task',
          Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
          Parameters: {
            'QueueUrl.$': '$.QueueUrl',
            MessageBody: { 'Message.$': '$.Message', 'TaskToken.$': '$$.Task.Token' },
          },
          End: true,
        },
      });
      const run = await engine.run(waiter, { QueueUrl, Message: 'test_message_txt' });
      expect(run.outcome).toEqual(outcome);
      for (let i = 0; i < 10 && (await engine.harness.describe(consumerRun)).status === 'RUNNING'; i++)
        await engine.harness.clock.advance(1_000);
      const receives = (await engine.harness.history(consumerRun)).filter(
        (e) => e.type === 'TaskSucceeded' && e.taskSucceededEventDetails.resource === 'receiveMessage',
      );
      const withMessages = receives
        .map((e) => JSON.parse(e.taskSucceededEventDetails.output))
        .filter((o) => o.Messages);
      expect(withMessages).toHaveLength(1);
      expect(Object.keys(withMessages[0].Messages[0]).sort()).toEqual([
        'Body',
        'MD5OfBody',
        'MessageId',
        'ReceiptHandle',
      ]);
    },
  );
});

describe('aws-sdk resources at CreateStateMachine', () => {
  it.each([
    'arn:aws:states:::aws-sdk:sfn:sendTaskHeartbeat',
    'arn:aws:states:::aws-sdk:dynamodb:transactWriteItems',
    'arn:aws:states:::aws-sdk:sqs:receiveMessage.waitForTaskToken',
  ])('%s is accepted', async (resource) => {
    expect(await engine.create(jsonpath({ T: { Type: 'Task', Resource: resource, Parameters: {}, End: true } }))).toBe(
      'created',
    );
  });

  it.each([
    ['a service AWS does not have', 'arn:aws:states:::aws-sdk:nosuchservice:encrypt'],
    ['an action the service does not have', 'arn:aws:states:::aws-sdk:dynamodb:noSuchAction'],
    ['.sync, which AWS has not for SDK integrations', 'arn:aws:states:::aws-sdk:sfn:startExecution.sync'],
  ])('%s is refused (%s)', async (_why, resource) => {
    expect(
      await engine.create(jsonpath({ T: { Type: 'Task', Resource: resource, Parameters: {}, End: true } })),
    ).toMatchObject({ name: 'InvalidDefinition' });
  });

  it('an EXPRESS machine refuses aws-sdk .waitForTaskToken as it does every callback', async () => {
    const refused = await engine.create(
      jsonpath({
        T: {
          Type: 'Task',
          Resource: 'arn:aws:states:::aws-sdk:sqs:receiveMessage.waitForTaskToken',
          Parameters: {},
          End: true,
        },
      }),
      { type: 'EXPRESS' },
    );
    expect(refused).toMatchObject({ name: 'InvalidDefinition' });
    expect((refused as { message: string }).message).toContain(
      "Express state machine does not support '.waitForTaskToken' service integration",
    );
  });
});
