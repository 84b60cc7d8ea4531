/**
 * The documented mock-config cases whose real runs AWS recorded (LocalStack's AWS-validated
 * local_mocking/test_base_scenarios: each case's history on AWS with the real services, against which the
 * same definition under a mock config must match), reproduced here from those recordings with the recorded
 * inputs: the run's status, its output (less the metadata AWS adds to a real response, which a mock does not
 * invent: SdkHttpMetadata, SdkResponseMetadata, ExecutedVersion), its event types in order, and each event in
 * full against the recorded history (test/fixtures/history/aws-snapshots/local-mocking-base-scenarios.json,
 * compared as support/recorded-histories.ts says). The callback cases are in wait-for-task-token.test.ts, the
 * developer guide's in numbering.test.ts and hybrid.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { comparable, recordedHistories, withoutUnmocked } from '../support/recorded-histories';
import { mockedEngine, SwitchableMockConfig, uniqueName } from './support';

const mocks = new SwitchableMockConfig();
const engine = mockedEngine(mocks);

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:111111111111:function:lambda_function_name';
const STRING_BODY = { StatusCode: 200, Payload: { body: 'string body' } };
const task = ['TaskStateEntered', 'TaskScheduled', 'TaskStarted', 'TaskSucceeded', 'TaskStateExited'];

interface RecordedCase {
  readonly definition: object;
  /** State name -> the response's numbered entries. */
  readonly responses: Record<string, object>;
  readonly input: unknown;
  readonly types: readonly string[];
  readonly output: unknown;
  /** AWS records concurrent branches' events interleaved as they happen: compare them as a multiset. */
  readonly unordered?: boolean;
  /** Each event's `previousEventId`, in order, as recorded (absent where the snapshot normalised the ids). */
  readonly previousEventIds?: readonly number[];
}

const CASES: Record<string, RecordedCase> = {
  test_lambda_invoke: {
    definition: { StartAt: 'step1', States: { step1: { Type: 'Task', Resource: FUNCTION_ARN, End: true } } },
    responses: { step1: { '0': { Return: STRING_BODY } } },
    input: { body: 'string body' },
    types: [
      'ExecutionStarted',
      'TaskStateEntered',
      'LambdaFunctionScheduled',
      'LambdaFunctionStarted',
      'LambdaFunctionSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ],
    previousEventIds: [0, 0, 2, 3, 4, 5, 6],
    output: { body: 'string body' },
  },
  test_lambda_service_invoke: {
    definition: {
      StartAt: 'Start',
      States: {
        Start: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke',
          Parameters: { 'FunctionName.$': '$.FunctionName', 'Payload.$': '$.Payload' },
          Next: 'EndWithFinal',
        },
        EndWithFinal: { Type: 'Pass', ResultPath: '$.final', End: true },
      },
    },
    responses: { Start: { '0': { Return: STRING_BODY } } },
    input: { FunctionName: 'lambda_function_name', Payload: { body: 'string body' } },
    types: ['ExecutionStarted', ...task, 'PassStateEntered', 'PassStateExited', 'ExecutionSucceeded'],
    previousEventIds: [0, 0, 2, 3, 4, 5, 6, 7, 8],
    output: {
      Payload: { body: 'string body' },
      StatusCode: 200,
      final: { Payload: { body: 'string body' }, StatusCode: 200 },
    },
  },
  test_sqs_send_message: {
    definition: {
      StartAt: 'SendSQS',
      States: {
        SendSQS: {
          Type: 'Task',
          Resource: 'arn:aws:states:::sqs:sendMessage',
          Parameters: { 'QueueUrl.$': '$.QueueUrl', 'MessageBody.$': '$.MessageBody' },
          End: true,
        },
      },
    },
    responses: {
      SendSQS: {
        '0': {
          Return: {
            MD5OfMessageBody: '3bcb6e8e-7h85-4375-b0bc-1a59812c6e51',
            MessageId: '11112222-3333-4444-5555-666677778888',
          },
        },
      },
    },
    input: { QueueUrl: 'sqs-queue-url', MessageBody: 'test_message_body' },
    types: ['ExecutionStarted', ...task, 'ExecutionSucceeded'],
    previousEventIds: [0, 0, 2, 3, 4, 5, 6],
    output: { MD5OfMessageBody: expect.any(String), MessageId: expect.any(String) },
  },
  test_sns_publish_base: {
    definition: {
      StartAt: 'Publish',
      States: {
        Publish: {
          Type: 'Task',
          Resource: 'arn:aws:states:::sns:publish',
          Parameters: { 'TopicArn.$': '$.TopicArn', 'Message.$': '$.Message' },
          End: true,
        },
      },
    },
    responses: { Publish: { '0': { Return: { MessageId: '11112222-3333-4444-5555-666677778888' } } } },
    input: { TopicArn: 'topic-arn', Message: { message: 'string-literal' } },
    types: ['ExecutionStarted', ...task, 'ExecutionSucceeded'],
    previousEventIds: [0, 0, 2, 3, 4, 5, 6],
    output: { MessageId: expect.any(String) },
  },
  test_events_put_events: {
    definition: {
      StartAt: 'PutEvents',
      States: {
        PutEvents: {
          Type: 'Task',
          Resource: 'arn:aws:states:::events:putEvents',
          Parameters: { 'Entries.$': '$.Entries' },
          End: true,
        },
      },
    },
    responses: {
      PutEvents: {
        '0': { Return: { FailedEntryCount: 0, Entries: [{ EventId: '11111111-2222-3333-4444-555555555555' }] } },
      },
    },
    input: { Entries: [{ Detail: '{"Message": "string-literal"}', DetailType: 'detail-type', Source: 'some.source' }] },
    types: ['ExecutionStarted', ...task, 'ExecutionSucceeded'],
    previousEventIds: [0, 0, 2, 3, 4, 5, 6],
    output: { Entries: [{ EventId: expect.any(String) }], FailedEntryCount: 0 },
  },
  test_dynamodb_put_get_item: {
    definition: {
      StartAt: 'PutItem',
      States: {
        PutItem: {
          Type: 'Task',
          Resource: 'arn:aws:states:::dynamodb:putItem',
          Parameters: { 'TableName.$': '$.TableName', 'Item.$': '$.Item' },
          ResultPath: '$.putItemOutput',
          Next: 'GetItem',
        },
        GetItem: {
          Type: 'Task',
          Resource: 'arn:aws:states:::dynamodb:getItem',
          ResultPath: '$.getItemOutput',
          Parameters: { 'TableName.$': '$.TableName', 'Key.$': '$.Key' },
          End: true,
        },
      },
    },
    responses: {
      PutItem: { '0': { Return: {} } },
      GetItem: { '0': { Return: { Item: { data: { S: 'string-literal' }, id: { S: 'id1' } } } } },
    },
    input: {
      TableName: 'table-name',
      Item: { data: { S: 'string-literal' }, id: { S: 'id1' } },
      Key: { id: { S: 'id1' } },
    },
    types: ['ExecutionStarted', ...task, ...task, 'ExecutionSucceeded'],
    previousEventIds: [0, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    output: {
      TableName: 'table-name',
      Item: { data: { S: 'string-literal' }, id: { S: 'id1' } },
      Key: { id: { S: 'id1' } },
      putItemOutput: {},
      getItemOutput: { Item: { data: { S: 'string-literal' }, id: { S: 'id1' } } },
    },
  },
  test_map_state_lambda: {
    definition: {
      StartAt: 'StartState',
      States: {
        StartState: {
          Type: 'Pass',
          Parameters: { Iterations: 2, Values: [{ body: 'string body' }] },
          Next: 'BeforeIteration',
        },
        BeforeIteration: {
          Type: 'Pass',
          Parameters: { 'Iterations.$': 'States.MathAdd($.Iterations, -1)', 'Values.$': '$.Values' },
          Next: 'IterationBody',
        },
        IterationBody: {
          Type: 'Map',
          MaxConcurrency: 1,
          ItemsPath: '$.Values',
          ItemProcessor: {
            ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
            StartAt: 'ProcessValue',
            States: { ProcessValue: { Type: 'Task', Resource: FUNCTION_ARN, End: true } },
          },
          ResultPath: '$.Values',
          Next: 'CheckIteration',
        },
        CheckIteration: {
          Type: 'Choice',
          Choices: [{ Variable: '$.Iterations', NumericEquals: 0, Next: 'Terminate' }],
          Default: 'BeforeIteration',
        },
        Terminate: { Type: 'Succeed' },
      },
    },
    // The state runs once per Map run, in two Map runs: invocations 0 and 1.
    responses: { ProcessValue: { '0-1': { Return: STRING_BODY } } },
    input: {},
    types: [
      'ExecutionStarted',
      'PassStateEntered',
      'PassStateExited',
      'PassStateEntered',
      'PassStateExited',
      'MapStateEntered',
      'MapStateStarted',
      'MapRunStarted',
      'MapRunSucceeded',
      'MapStateSucceeded',
      'MapStateExited',
      'ChoiceStateEntered',
      'ChoiceStateExited',
      'PassStateEntered',
      'PassStateExited',
      'MapStateEntered',
      'MapStateStarted',
      'MapRunStarted',
      'MapRunSucceeded',
      'MapStateSucceeded',
      'MapStateExited',
      'ChoiceStateEntered',
      'ChoiceStateExited',
      'SucceedStateEntered',
      'SucceedStateExited',
      'ExecutionSucceeded',
    ],
    previousEventIds: [0, 0, 2, 3, 4, 5, 6, 7, 8, 9, 8, 11, 12, 13, 14, 15, 16, 17, 18, 19, 18, 21, 22, 23, 24, 25],
    output: { Values: [{ body: 'string body' }], Iterations: 0 },
  },
  test_parallel_state_lambda: {
    definition: {
      StartAt: 'ParallelState',
      States: {
        ParallelState: {
          Type: 'Parallel',
          End: true,
          Branches: [
            {
              StartAt: 'Branch1',
              States: {
                Branch1: {
                  Type: 'Task',
                  Resource: 'arn:aws:states:::lambda:invoke',
                  Parameters: { 'FunctionName.$': '$.FunctionNameBranch1', 'Payload.$': '$.Payload' },
                  End: true,
                },
              },
            },
            {
              StartAt: 'Branch2',
              States: {
                Branch2: {
                  Type: 'Task',
                  Resource: 'arn:aws:states:::lambda:invoke',
                  Parameters: { 'FunctionName.$': '$.FunctionNameBranch2', 'Payload.$': '$.Payload' },
                  End: true,
                },
              },
            },
          ],
        },
      },
    },
    responses: {
      Branch1: { '0': { Return: { StatusCode: 200, Payload: ['string-literal'] } } },
      Branch2: { '0': { Return: { StatusCode: 200, Payload: "input-event-['string-literal']" } } },
    },
    input: {
      FunctionNameBranch1: 'function_name_branch1',
      FunctionNameBranch2: 'function_name_branch2',
      Payload: ['string-literal'],
    },
    types: [
      'ExecutionStarted',
      'ParallelStateEntered',
      'ParallelStateStarted',
      ...task,
      ...task,
      'ParallelStateSucceeded',
      'ParallelStateExited',
      'ExecutionSucceeded',
    ],
    output: [
      { Payload: ['string-literal'], StatusCode: 200 },
      { Payload: "input-event-['string-literal']", StatusCode: 200 },
    ],
    // LocalStack's snapshot normalises a Parallel's branch events and leaves ParallelStateSucceeded out (its
    // id is the gap before ParallelStateExited); AWS writes it (history-events.test.ts, test_parallel_state_order).
    unordered: true,
  },
  test_numbered_mock_responses_multiple_success_invocations: {
    definition: {
      QueryLanguage: 'JSONata',
      StartAt: 'LambdaState',
      States: {
        LambdaState: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke',
          Arguments: {
            FunctionName: FUNCTION_ARN,
            Payload: { status: "{% $exists($status) ? 'completed' : 'running' %}" },
          },
          Assign: { status: '{% $states.result.Payload.status %}' },
          Next: 'CheckCompleted',
        },
        CheckCompleted: {
          Type: 'Choice',
          Choices: [{ Condition: "{% $status = 'completed' %}", Next: 'Finish' }],
          Default: 'LambdaState',
        },
        Finish: { Type: 'Succeed' },
      },
    },
    responses: {
      LambdaState: {
        '0': { Return: { StatusCode: 200, Payload: { status: 'running' } } },
        '1': { Return: { StatusCode: 200, Payload: { status: 'completed' } } },
      },
    },
    input: {},
    types: [
      'ExecutionStarted',
      ...task,
      'ChoiceStateEntered',
      'ChoiceStateExited',
      ...task,
      'ChoiceStateEntered',
      'ChoiceStateExited',
      'SucceedStateEntered',
      'SucceedStateExited',
      'ExecutionSucceeded',
    ],
    previousEventIds: [0, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
    output: { Payload: { status: 'completed' }, StatusCode: 200 },
  },
};

describe('documented mock-config cases against the histories AWS recorded for their real runs', () => {
  it.each(Object.entries(CASES))('%s: status, output, event types and their previousEventIds match', async (_, c) => {
    const name = uniqueName('Recorded');
    const states = Object.fromEntries(Object.keys(c.responses).map((s) => [s, s]));
    mocks.use({ StateMachines: { [name]: { TestCases: { TestCaseName: states } } }, MockedResponses: c.responses });
    const run = await engine.run(c.definition, c.input, { machineName: name, testCase: 'TestCaseName' });
    expect(run.outcome.status).toBe('SUCCEEDED');
    expect(withoutUnmocked((run.outcome as { output: unknown }).output)).toEqual(c.output);
    if (c.unordered) expect([...run.types].sort()).toEqual([...c.types].sort());
    else expect(run.types).toEqual(c.types);
    if (c.previousEventIds) expect(run.events.map((e) => e.previousEventId)).toEqual(c.previousEventIds);
  });
});

const RECORDED = recordedHistories('local-mocking-base-scenarios.json');

describe('documented mock-config cases, event by event against the recorded histories', () => {
  it.each(Object.keys(RECORDED))('%s: every event and its details as recorded', async (key) => {
    const c = CASES[key];
    const name = uniqueName('Recorded');
    const states = Object.fromEntries(Object.keys(c.responses).map((s) => [s, s]));
    mocks.use({ StateMachines: { [name]: { TestCases: { TestCaseName: states } } }, MockedResponses: c.responses });
    const run = await engine.run(c.definition, c.input, { machineName: name, testCase: 'TestCaseName' });
    expect(run.events.map((e) => comparable(e as Record<string, unknown>))).toEqual(
      RECORDED[key].map((e) => comparable(e, true)),
    );
  });
});
