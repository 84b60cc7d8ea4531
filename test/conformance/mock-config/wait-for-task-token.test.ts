/**
 * `.waitForTaskToken` and `.sync` mocked as their final result (Step Functions Local docs: the `Return` is
 * the callback's success payload, a `Throw` its failure; LocalStack: the `.sync` Return is the final job
 * description). The histories have the event types AWS recorded for the real calls (LocalStack's
 * AWS-validated local_mocking/test_base_callbacks: test_sqs_wait_for_task_token, _task_failure,
 * test_sfn_start_execution_sync[SFN_SYNC, SFN_SYNC2]), TaskSubmitted included.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jsonpath } from '../../../packages/engine/test/support/engine-harness';
import { comparable, recordedHistories } from '../support/recorded-histories';
import { mockedEngine, oneCase, SwitchableMockConfig, uniqueName } from './support';

const mocks = new SwitchableMockConfig();
const engine = mockedEngine(mocks);

const sendWithWait = (rest: object = {}) => ({
  Type: 'Task',
  Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
  Parameters: { 'QueueUrl.$': '$.QueueUrl', MessageBody: { 'Message.$': '$.Message', 'TaskToken.$': '$$.Task.Token' } },
  ...rest,
});
const INPUT = { QueueUrl: 'https://sqs.us-east-1.amazonaws.com/111111111111/queue', Message: 'string-literal' };

describe('.waitForTaskToken', () => {
  it("a Return is the callback's result: TaskSubmitted then TaskSucceeded, with no callback sent (test_sqs_wait_for_task_token)", async () => {
    const name = uniqueName('Wait');
    mocks.use(
      oneCase(
        name,
        'TestCaseName',
        { SendMessageWithWait: 'task_success' },
        { task_success: { '0': { Return: 'string-literal' } } },
      ),
    );
    const run = await engine.run(jsonpath({ SendMessageWithWait: sendWithWait({ End: true }) }), INPUT, {
      machineName: name,
      testCase: 'TestCaseName',
    });
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
    expect(run.events[5].taskSucceededEventDetails).toEqual({
      resourceType: 'sqs',
      resource: 'sendMessage.waitForTaskToken',
      output: 'string-literal',
      outputDetails: { truncated: false },
    });
    // TaskSubmitted carries SendMessage's own response, as recorded (less the HTTP metadata a mock does not invent).
    const body = JSON.stringify(
      (run.events[2].taskScheduledEventDetails as { parameters: { MessageBody: object } }).parameters.MessageBody,
    );
    expect(run.events[4].taskSubmittedEventDetails).toEqual({
      resourceType: 'sqs',
      resource: 'sendMessage.waitForTaskToken',
      output: {
        MD5OfMessageBody: createHash('md5').update(body).digest('hex'),
        MessageId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
      outputDetails: { truncated: false },
    });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: 'string-literal' });
    // The token is made up and handed to the request as for a real call.
    const scheduled = run.events[2].taskScheduledEventDetails as { parameters: { MessageBody: { TaskToken: string } } };
    expect(scheduled.parameters.MessageBody.TaskToken).toMatch(/\S{20,}/);
  });

  it("a Throw is the callback's failure: TaskSubmitted then TaskFailed, caught as AWS records it (test_sqs_wait_for_task_token_task_failure)", async () => {
    const name = uniqueName('WaitFail');
    mocks.use(
      oneCase(
        name,
        'TestCaseName',
        { SendMessageWithWait: 'task_failure' },
        { task_failure: { '0': { Throw: { Error: 'Failure error', Cause: 'Failure cause' } } } },
      ),
    );
    const def = jsonpath({
      SendMessageWithWait: sendWithWait({
        Parameters: { 'QueueUrl.$': '$.QueueUrl', MessageBody: { 'Context.$': '$', 'TaskToken.$': '$$.Task.Token' } },
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.states_all_error', Next: 'CaughtStatesALL' }],
        End: true,
      }),
      CaughtStatesALL: { Type: 'Pass', End: true },
    });
    const run = await engine.run(def, INPUT, { machineName: name, testCase: 'TestCaseName' });
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSubmitted',
      'TaskFailed',
      'TaskStateExited',
      'PassStateEntered',
      'PassStateExited',
      'ExecutionSucceeded',
    ]);
    expect(run.events[5].taskFailedEventDetails).toEqual({
      resourceType: 'sqs',
      resource: 'sendMessage.waitForTaskToken',
      error: 'Failure error',
      cause: 'Failure cause',
    });
    expect(Object.keys((run.events[4].taskSubmittedEventDetails as { output: object }).output).sort()).toEqual([
      'MD5OfMessageBody',
      'MessageId',
    ]);
    expect(run.outcome).toEqual({
      status: 'SUCCEEDED',
      output: { ...INPUT, states_all_error: { Error: 'Failure error', Cause: 'Failure cause' } },
    });
  });
});

describe('.sync', () => {
  const describeOutput = {
    ExecutionArn: 'arn:aws:states:us-east-1:111111111111:execution:target:TestStartTarget',
    Input: '{}',
    InputDetails: { Included: true },
    Name: 'TestStartTarget',
    Output: '{"Arg1":"argument1"}',
    OutputDetails: { Included: true },
    StartDate: 1700000000000,
    StateMachineArn: 'arn:aws:states:us-east-1:111111111111:stateMachine:target',
    Status: 'SUCCEEDED',
    StopDate: 1700000001000,
  };

  it.each(['startExecution.sync', 'startExecution.sync:2'])(
    'states:%s: the Return is the final DescribeExecution-shaped result, after TaskSubmitted; no child run starts (test_sfn_start_execution_sync)',
    async (resource) => {
      const name = uniqueName('Sync');
      mocks.use(
        oneCase(
          name,
          'TestCaseName',
          { StartExecution: 'mocked_response' },
          { mocked_response: { '0': { Return: describeOutput } } },
        ),
      );
      const def = jsonpath({
        StartExecution: {
          Type: 'Task',
          Resource: `arn:aws:states:::states:${resource}`,
          Parameters: { 'StateMachineArn.$': '$.StateMachineArn', 'Input.$': '$.Input', 'Name.$': '$.Name' },
          End: true,
        },
      });
      const run = await engine.run(
        def,
        {
          StateMachineArn: 'arn:aws:states:us-east-1:111111111111:stateMachine:target',
          Input: null,
          Name: 'TestStartTarget',
        },
        { machineName: name, testCase: 'TestCaseName' },
      );
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
      expect(run.events[3].taskStartedEventDetails).toEqual({ resourceType: 'states', resource });
      // TaskSubmitted carries StartExecution's own response, as recorded (less the HTTP metadata).
      expect(run.events[4].taskSubmittedEventDetails).toEqual({
        resourceType: 'states',
        resource,
        output: { ExecutionArn: describeOutput.ExecutionArn, StartDate: describeOutput.StartDate },
        outputDetails: { truncated: false },
      });
      expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: describeOutput });
    },
  );
});

/**
 * The four recorded callback runs, event by event
 * (test/fixtures/history/aws-snapshots/local-mocking-base-callbacks.json, compared as
 * support/recorded-histories.ts says), each with its recorded input and LocalStack's mocked response for it.
 */
describe('.waitForTaskToken and .sync, event by event against the recorded histories', () => {
  const RECORDED = recordedHistories('local-mocking-base-callbacks.json');
  const SQS_INPUT = { QueueUrl: 'sqs_queue_url', Message: 'string-literal' };
  const SYNC_INPUT = {
    StateMachineArn: 'arn:aws:states:us-east-1:111111111111:stateMachine:Part',
    Input: null,
    Name: 'TestStartTarget',
  };
  const startExecution = (resource: string) =>
    jsonpath({
      StartExecution: {
        Type: 'Task',
        Resource: `arn:aws:states:::states:${resource}`,
        Parameters: { 'StateMachineArn.$': '$.StateMachineArn', 'Input.$': '$.Input', 'Name.$': '$.Name' },
        End: true,
      },
    });
  const describeExecution = (input: unknown, output: unknown) => ({
    ExecutionArn: 'arn:aws:states:us-east-1:111111111111:execution:Part:TestStartTarget',
    Input: input,
    InputDetails: { Included: true },
    Name: 'TestStartTarget',
    Output: output,
    OutputDetails: { Included: true },
    StateMachineArn: 'arn:aws:states:us-east-1:111111111111:stateMachine:Part',
    StartDate: '1745486528077',
    StopDate: '1745486528078',
    Status: 'SUCCEEDED',
  });
  const CALLBACK_CASES: Record<string, { state: string; definition: object; input: object; response: object }> = {
    'test_sfn_start_execution_sync[SFN_SYNC]': {
      state: 'StartExecution',
      definition: startExecution('startExecution.sync'),
      input: SYNC_INPUT,
      response: { '0': { Return: describeExecution('{}', '{"Arg1":"argument1"}') } },
    },
    'test_sfn_start_execution_sync[SFN_SYNC2]': {
      state: 'StartExecution',
      definition: startExecution('startExecution.sync:2'),
      input: SYNC_INPUT,
      response: { '0': { Return: describeExecution({}, { Arg1: 'argument1' }) } },
    },
    test_sqs_wait_for_task_token: {
      state: 'SendMessageWithWait',
      definition: jsonpath({ SendMessageWithWait: sendWithWait({ End: true }) }),
      input: SQS_INPUT,
      response: { '0': { Return: 'string-literal' } },
    },
    test_sqs_wait_for_task_token_task_failure: {
      state: 'SendMessageWithWait',
      definition: jsonpath({
        SendMessageWithWait: sendWithWait({
          Parameters: { 'QueueUrl.$': '$.QueueUrl', MessageBody: { 'Context.$': '$', 'TaskToken.$': '$$.Task.Token' } },
          Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.states_all_error', Next: 'CaughtStatesALL' }],
          End: true,
        }),
        CaughtStatesALL: { Type: 'Pass', End: true },
      }),
      input: SQS_INPUT,
      response: { '0': { Throw: { Error: 'Failure error', Cause: 'Failure cause' } } },
    },
  };

  it.each(Object.keys(RECORDED))('%s: every event and its details as recorded', async (key) => {
    const c = CALLBACK_CASES[key];
    const name = uniqueName('RecordedCallback');
    mocks.use(oneCase(name, 'TestCaseName', { [c.state]: 'mocked_response' }, { mocked_response: c.response }));
    const run = await engine.run(c.definition, c.input, { machineName: name, testCase: 'TestCaseName' });
    expect(run.events.map((e) => comparable(e as Record<string, unknown>))).toEqual(
      RECORDED[key].map((e) => comparable(e, true)),
    );
  });
});
