/**
 * TestState mocks (API_MockInput; recorded: LocalStack's AWS-validated test_test_state_mock_scenarios,
 * test_state_mock_validation, test_field_validation_mode{,_present,_none}; ../shared/TESTING-APIS.md A5):
 * a mocked result stands in for the service response and flows through the state's real data flow; a
 * mocked Map or Parallel result must have the state's result form; `fieldValidationMode` checks a Task's
 * mocked result against the integration's API output shape from the AWS SDK's own models.
 */
import { describe, expect, it } from 'vitest';
import { testStateEngine } from './support';

const { testState, refusal } = testStateEngine();

const task = (resource: string, extra: object = {}) => ({
  Type: 'Task',
  Resource: `arn:aws:states:::${resource}`,
  Parameters: {},
  End: true,
  ...extra,
});
const BRANCH = (name: string) => ({ StartAt: name, States: { [name]: { Type: 'Pass', End: true } } });
const schemaError = (message: string) => ({
  name: 'ValidationException',
  message: `Mock result schema validation error: ${message}`,
});

describe('a mocked Task result goes through the real data flow', () => {
  it('JSONPath: ResultSelector, ResultPath and OutputPath apply to the mock (recorded: io_dynamodb_service_task_state)', async () => {
    const definition = task('dynamodb:getItem', {
      ResultSelector: { 'item.$': '$.Item' },
      ResultPath: '$.got',
      OutputPath: '$.got.item',
    });
    const answer = await testState({ definition, input: { id: 'a' }, mock: { result: { Item: { id: { S: 'a' } } } } });
    expect(answer).toEqual({ status: 'SUCCEEDED', output: { id: { S: 'a' } } });
  });

  it('JSONata: Output and Assign see the mock as $states.result; afterArguments still shows the evaluated request', async () => {
    const definition = {
      QueryLanguage: 'JSONata',
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Arguments: { FunctionName: 'f', Payload: '{% $states.input.n + 1 %}' },
      Output: '{% $states.result.Payload * 10 %}',
      End: true,
    };
    const answer = await testState({
      definition,
      input: { n: 1 },
      inspectionLevel: 'DEBUG',
      mock: { result: { StatusCode: 200, Payload: 7 } },
    });
    expect(answer).toEqual({
      status: 'SUCCEEDED',
      output: 70,
      inspectionData: {
        input: { n: 1 },
        afterArguments: { FunctionName: 'f', Payload: 2 },
        result: { StatusCode: 200, Payload: 7 },
      },
    });
  });

  it('for .waitForTaskToken the mock is the callback result, no call is made', async () => {
    const definition = {
      Type: 'Task',
      Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
      Parameters: {
        QueueUrl: 'https://sqs.us-east-1.amazonaws.com/111111111111/q',
        MessageBody: { 'TaskToken.$': '$$.Task.Token' },
      },
      ResultPath: '$.SQS',
      Next: 'NEXT_STATE',
    };
    expect(await testState({ definition, mock: { result: { pokemon: ['pikachu'] } } })).toEqual({
      status: 'SUCCEEDED',
      output: { SQS: { pokemon: ['pikachu'] } },
      nextState: 'NEXT_STATE',
    });
  });
});

describe('a Task the engine does not run', () => {
  it('runs with a mock: an HTTP Task (arn:aws:states:::http:invoke) answers its mocked response (recorded: the blog-post scenario)', async () => {
    const definition = {
      QueryLanguage: 'JSONata',
      Type: 'Task',
      Resource: 'arn:aws:states:::http:invoke',
      Arguments: {
        Method: 'POST',
        ApiEndpoint: 'example.execute-api.us-east-1.amazonaws.com',
        Path: '/approval',
        RequestBody: '{% $states.input %}',
        AuthType: 'NO_AUTH',
      },
      Output: '{% $merge([$states.result, {"approved_by": "Mary"}]) %}',
      Next: 'Check Approval',
    };
    const answer = await testState({
      definition,
      input: { cost: 10 },
      inspectionLevel: 'DEBUG',
      mock: { result: { approval: true } },
    });
    expect(answer).toEqual({
      status: 'SUCCEEDED',
      output: { approval: true, approved_by: 'Mary' },
      nextState: 'Check Approval',
      inspectionData: {
        input: { cost: 10 },
        afterArguments: {
          Method: 'POST',
          ApiEndpoint: 'example.execute-api.us-east-1.amazonaws.com',
          Path: '/approval',
          RequestBody: { cost: 10 },
          AuthType: 'NO_AUTH',
        },
        result: { approval: true },
      },
    });
  });
});

describe('a mocked Map result', () => {
  const map = (extra: object = {}) => ({
    QueryLanguage: 'JSONata',
    Type: 'Map',
    Items: '{% $states.input.Values %}',
    ItemProcessor: BRANCH('P'),
    End: true,
    ...extra,
  });

  it('is the array of iteration results, the ItemProcessor is not run, Output applies', async () => {
    const answer = await testState({
      definition: map({ Output: '{% $count($states.result) %}' }),
      input: { Values: [1, 2, 3] },
      mock: { result: [1, 4, 9] },
    });
    expect(answer).toEqual({ status: 'SUCCEEDED', output: 3 });
  });

  it('must be an array without a ResultWriter', async () => {
    expect(await refusal({ definition: map(), input: { Values: [1] }, mock: { result: { a: 1 } } })).toEqual({
      name: 'ValidationException',
      message: 'Mocked result must be an array.',
    });
  });

  it('must be a JSON object with a ResultWriter', async () => {
    const withWriter = map({
      ItemProcessor: { ...BRANCH('P'), ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' } },
      ResultWriter: { Resource: 'arn:aws:states:::s3:putObject', Arguments: { Bucket: 'b', Prefix: 'p' } },
    });
    expect(await refusal({ definition: withWriter, input: { Values: [1] }, mock: { result: [1] } })).toEqual({
      name: 'ValidationException',
      message: 'Mocked result must be a JSON object.',
    });
  });
});

describe('a mocked Parallel result', () => {
  const parallel = { Type: 'Parallel', Branches: [BRANCH('B1'), BRANCH('B2')], ResultPath: '$.branches', End: true };

  it('has one item per branch, the branches are not run, ResultPath applies (recorded: io_parallel_state)', async () => {
    expect(await testState({ definition: parallel, input: { a: 1 }, mock: { result: ['x', 'y'] } })).toEqual({
      status: 'SUCCEEDED',
      output: { a: 1, branches: ['x', 'y'] },
    });
  });

  it('must be an array', async () => {
    expect(await refusal({ definition: parallel, mock: { result: { a: 1 } } })).toEqual({
      name: 'ValidationException',
      message: 'Mocked result must be an array.',
    });
  });

  it('must have as many items as the state has branches', async () => {
    expect(await refusal({ definition: parallel, mock: { result: [1, 2, 3] } })).toEqual({
      name: 'ValidationException',
      message: 'Mocked result must contain the same number of items as number of Parallel branches.',
    });
  });
});

/**
 * The model's length and value bounds, checked in STRICT and PRESENT alike (recorded:
 * test_strict_mode_aws_sdk_kms_task / test_present_mode_aws_sdk_kms_task[wrong_blob_length_less_than_minimum],
 * test_{strict,present}_mode_aws_sdk_lambda_get_function_task[integer_{less,more}_than_{minimum,maximum}_allowed]).
 * The recording's too-large MemorySize was 10241 (recorded 2025-12-03), refused although the public Lambda model
 * had said 32,768 since 2025-12-01 (botocore c18b100b8): the service checks against its own copy, whose bound is
 * the recorded 10,240 (scripts/api-output-constraints.mjs RECORDED_BOUNDS).
 *
 * The model's `pattern` traits are checked as AWS services apply them, against the whole value (a Lambda function
 * name with a space is refused by its pattern `...([a-zA-Z0-9-_]+)...`, which a part of it would match). No
 * recording shows TestState's words for a value off its pattern: the message is ours, in the form of the others.
 */
const BOUNDS: readonly [string, string, object, string][] = [
  [
    'aws-sdk:kms:encrypt CiphertextBlob shorter than its 1-byte minimum',
    'aws-sdk:kms:encrypt',
    { CiphertextBlob: '' },
    "Field 'CiphertextBlob' is smaller than the minimum length",
  ],
  [
    'aws-sdk:lambda:getFunction MemorySize below 128',
    'aws-sdk:lambda:getFunction',
    { Configuration: { MemorySize: 127 } },
    "Field 'MemorySize' is less than the minimum value",
  ],
  [
    'aws-sdk:lambda:getFunction MemorySize 10241, above the recorded maximum',
    'aws-sdk:lambda:getFunction',
    { Configuration: { MemorySize: 10241 } },
    "Field 'MemorySize' exceeds the maximum value",
  ],
  [
    'aws-sdk:kms:encrypt EncryptionAlgorithm not an enum value',
    'aws-sdk:kms:encrypt',
    { CiphertextBlob: 'AQID', EncryptionAlgorithm: 'ROT13' },
    "Field 'EncryptionAlgorithm' is not an expected value",
  ],
  [
    'aws-sdk:lambda:getFunction FunctionArn off its pattern',
    'aws-sdk:lambda:getFunction',
    { Configuration: { FunctionArn: 'not-an-arn' } },
    "Field 'FunctionArn' does not match the expected pattern",
  ],
  [
    'aws-sdk:lambda:getFunction Handler matching its pattern in part only',
    'aws-sdk:lambda:getFunction',
    { Configuration: { Handler: 'index.handler extra' } },
    "Field 'Handler' does not match the expected pattern",
  ],
  [
    'aws-sdk:kms:decrypt KeyMaterialId of the right length off its pattern',
    'aws-sdk:kms:decrypt',
    { KeyMaterialId: 'g'.repeat(64) },
    "Field 'KeyMaterialId' does not match the expected pattern",
  ],
  [
    'aws-sdk:lambda:listFunctions: a pattern checked in the 2nd list item',
    'aws-sdk:lambda:listFunctions',
    { Functions: [{ Role: 'arn:aws:iam::111111111111:role/r' }, { Role: 'r' }] },
    "Field 'Role' does not match the expected pattern",
  ],
  [
    "aws-sdk:lambda:getAlias Name all digits, which its pattern's lookahead forbids",
    'aws-sdk:lambda:getAlias',
    { Name: '123' },
    "Field 'Name' does not match the expected pattern",
  ],
  [
    "aws-sdk:eventbridge:listTargetsByRule a blank PathParameterValues item, which its pattern's lookahead forbids",
    'aws-sdk:eventbridge:listTargetsByRule',
    {
      Targets: [
        {
          Id: 't',
          Arn: 'arn:aws:events:us-east-1:111111111111:api-destination/d/1',
          HttpParameters: { PathParameterValues: ['  '] },
        },
      ],
    },
    "Field 'PathParameterValues' does not match the expected pattern",
  ],
];

describe('fieldValidationMode STRICT (the default): required members present, present members of their type', () => {
  it.each([
    [
      'aws-sdk:sqs:sendMessageBatch: array elements are checked one by one, the 2nd can fail',
      'aws-sdk:sqs:sendMessageBatch',
      {
        Successful: [
          { Id: 'a', MessageId: 'm', MD5OfMessageBody: 'x' },
          { Id: 2, MessageId: 'm', MD5OfMessageBody: 'x' },
        ],
        Failed: [],
      },
      "Field 'Id' must be a string",
    ],
    ['events:putEvents Entries not an array', 'events:putEvents', { Entries: 'x' }, "Field 'Entries' must be an array"],
    [
      'events:putEvents EventId not a string',
      'events:putEvents',
      { Entries: [{ EventId: 1 }] },
      "Field 'EventId' must be a string",
    ],
    [
      'events:putEvents: the 2nd array element is checked too',
      'events:putEvents',
      { Entries: [{ EventId: 'a' }, { EventId: 2 }] },
      "Field 'EventId' must be a string",
    ],
    [
      'aws-sdk:kms:encrypt CiphertextBlob a number',
      'aws-sdk:kms:encrypt',
      { CiphertextBlob: 1 },
      "Field 'CiphertextBlob' must be a string",
    ],
    ['states:startExecution with no fields', 'states:startExecution', {}, "Required field 'ExecutionArn' is missing"],
    [
      'states:startExecution fields not in the API case',
      'states:startExecution',
      { executionArn: 'a', startDate: 'b' },
      "Required field 'ExecutionArn' is missing",
    ],
    [
      'states:startExecution StartDate a boolean',
      'states:startExecution',
      { ExecutionArn: 'a', StartDate: true },
      "Field 'StartDate' must be a string",
    ],
    [
      'states:startExecution StartDate a number',
      'states:startExecution',
      { ExecutionArn: 'a', StartDate: 1764103483 },
      "Field 'StartDate' must be a string",
    ],
    [
      'lambda:invoke StatusCode a string',
      'lambda:invoke',
      { StatusCode: '200' },
      "Field 'StatusCode' must be a number",
    ],
    [
      'dynamodb:putItem CapacityUnits a string',
      'dynamodb:putItem',
      { ConsumedCapacity: { CapacityUnits: '1.0' } },
      "Field 'CapacityUnits' must be a number",
    ],
    [
      'aws-sdk:s3:getObject ContentLength a string',
      'aws-sdk:s3:getObject',
      { ContentLength: '12' },
      "Field 'ContentLength' must be a number",
    ],
    [
      'aws-sdk:s3:getObject StorageClass not an enum value',
      'aws-sdk:s3:getObject',
      { StorageClass: 'NOT_A_CLASS' },
      "Field 'StorageClass' is not an expected value",
    ],
    // SNS: no JS SDK client in the engine, its output shapes come from botocore's model (api-output-shapes.json).
    ['sns:publish MessageId a number', 'sns:publish', { MessageId: 1 }, "Field 'MessageId' must be a string"],
    [
      'aws-sdk:sns:listTopics Topics not an array',
      'aws-sdk:sns:listTopics',
      { Topics: 'x' },
      "Field 'Topics' must be an array",
    ],
    [
      'aws-sdk:sns:listTopics TopicArn of the 2nd item a number',
      'aws-sdk:sns:listTopics',
      { Topics: [{ TopicArn: 'a' }, { TopicArn: 2 }] },
      "Field 'TopicArn' must be a string",
    ],
    ...BOUNDS,
  ])('refuses %s', async (_name, resource, result, message) => {
    expect(await refusal({ definition: task(resource), mock: { result } })).toEqual(schemaError(message));
  });

  it.each([
    ['members not in the shape are ignored', 'lambda:invoke', { random: 'json' }],
    ['an empty object when nothing is required', 'lambda:invoke', {}],
    ['a lambda:invoke Payload of any JSON', 'lambda:invoke', { StatusCode: 200, Payload: { any: ['json'] } }],
    ['a valid events:putEvents answer', 'events:putEvents', { Entries: [{ EventId: 'a' }], FailedEntryCount: 0 }],
    [
      'a valid sns:publish answer',
      'sns:publish',
      { MessageId: '11112222-3333-4444-5555-666677778888', SequenceNumber: '1' },
    ],
    [
      'a valid states:startExecution answer',
      'states:startExecution',
      { ExecutionArn: 'arn:aws:states:us-east-1:111111111111:execution:m:e', StartDate: '2025-01-01T00:00:00Z' },
    ],
    [
      'values on the bounds of the model',
      'aws-sdk:lambda:getFunction',
      { Configuration: { FunctionName: 'f', MemorySize: 128 } },
    ],
    ['MemorySize 10240, the recorded maximum', 'aws-sdk:lambda:getFunction', { Configuration: { MemorySize: 10240 } }],
    ["an alias Name with a letter, past its pattern's lookahead", 'aws-sdk:lambda:getAlias', { Name: '1live' }],
    [
      'values matching their patterns',
      'aws-sdk:lambda:getFunction',
      {
        Configuration: {
          FunctionArn: 'arn:aws:lambda:us-east-1:111111111111:function:f',
          Handler: 'index.handler',
          Role: 'arn:aws:iam::111111111111:role/r',
          Version: '$LATEST',
        },
      },
    ],
    ['a blob bounded in bytes, not in base64 characters', 'aws-sdk:kms:encrypt', { CiphertextBlob: 'A'.repeat(8192) }],
  ])('takes %s', async (_name, resource, result) => {
    expect(await testState({ definition: task(resource), mock: { result } })).toEqual({
      status: 'SUCCEEDED',
      output: result,
    });
  });
});

describe('fieldValidationMode PRESENT: present members only', () => {
  it('takes a result missing required members, or naming them in another case', async () => {
    for (const result of [{}, { executionArn: 'a', startDate: 'b' }]) {
      expect(
        (
          await testState({
            definition: task('states:startExecution'),
            mock: { result, fieldValidationMode: 'PRESENT' },
          })
        ).status,
      ).toBe('SUCCEEDED');
    }
  });

  it.each(BOUNDS)('still checks the bounds of a present member: %s', async (_name, resource, result, message) => {
    expect(await refusal({ definition: task(resource), mock: { result, fieldValidationMode: 'PRESENT' } })).toEqual(
      schemaError(message),
    );
  });

  it('still checks the type of a present member', async () => {
    expect(
      await refusal({
        definition: task('states:startExecution'),
        mock: { result: { ExecutionArn: 1 }, fieldValidationMode: 'PRESENT' },
      }),
    ).toEqual(schemaError("Field 'ExecutionArn' must be a string"));
  });
});

describe('fieldValidationMode NONE: no check', () => {
  it('takes a result of any shape', async () => {
    const result = { ExecutionArn: 'a', StartDate: true };
    expect(
      await testState({ definition: task('states:startExecution'), mock: { result, fieldValidationMode: 'NONE' } }),
    ).toEqual({ status: 'SUCCEEDED', output: result });
  });
});
