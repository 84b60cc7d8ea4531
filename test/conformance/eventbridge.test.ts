/**
 * EventBridge from a workflow, as AWS records it (localstack's AWS-validated snapshots,
 * stepfunctions/v2/services/test_events_task_service.snapshot.json: test_put_events_base,
 * test_put_events_malformed_detail, test_put_events_no_source, test_put_events_mixed_malformed_detail), on the
 * emulated EventBridge: rules with event patterns deliver to an SQS queue, a Lambda function and a state machine.
 */
import { describe, expect, it } from 'vitest';
import { jsonata, jsonpath } from '../../packages/engine/test/support/engine-harness';
import { localServicesForTests } from './support/local-services';
import { recordedEngine } from './support/recorded-run';

const received: unknown[] = [];
const functions: Record<string, (payload: any) => unknown> = {
  listener: (event: unknown) => void received.push(event),
  echo: (payload: unknown) => payload,
};
const services = localServicesForTests(functions, {
  startExecution: async (stateMachineArn, input) =>
    void (await engine.harness.engine.handle('StartExecution', { stateMachineArn, input })),
});
const engine = recordedEngine(functions, { engine: services.engineOptions });

const putEvents = jsonpath({
  PutEvents: {
    Type: 'Task',
    Resource: 'arn:aws:states:::events:putEvents',
    Parameters: { 'Entries.$': '$.Entries' },
    End: true,
  },
});

async function rule(
  name: string,
  pattern: object,
  targets: { Id: string; Arn: string; InputPath?: string }[],
): Promise<void> {
  await services.eventbridge.call('PutRule', { Name: name, EventPattern: JSON.stringify(pattern) });
  await services.eventbridge.call('PutTargets', { Rule: name, Targets: targets });
}

describe('events:putEvents', () => {
  it('puts each entry, a Detail as JSON or as its text, and answers Entries and FailedEntryCount without HTTP metadata (test_put_events_base)', async () => {
    const queue = await services.queue('events-base');
    await rule('base', { source: ['some.source'] }, [{ Id: 'q', Arn: queue.arn }]);
    const entries = [
      { Detail: JSON.stringify({ Message: 'HelloWorld0' }), DetailType: 'TestType', Source: 'some.source' },
      { Detail: { Message: 'HelloWorld1' }, DetailType: 'TestType', Source: 'some.source' },
      {
        Detail: { Message: 'HelloWorld2' },
        DetailType: 'TestType',
        Source: 'some.source',
        Resources: ['https://queue.example/1'],
      },
    ];
    const run = await engine.run(putEvents, { Entries: entries });
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
    expect(run.events[2].taskScheduledEventDetails).toMatchObject({
      resourceType: 'events',
      resource: 'putEvents',
      parameters: { Entries: entries },
    });
    const output = (run.outcome as { output: { Entries: { EventId: string }[]; FailedEntryCount: number } }).output;
    expect(Object.keys(output)).toEqual(['Entries', 'FailedEntryCount']);
    expect(output.FailedEntryCount).toBe(0);
    expect(output.Entries.map((e) => Object.keys(e))).toEqual([['EventId'], ['EventId'], ['EventId']]);
    await services.settled();
    const events = (await queue.bodies()).map((b) => JSON.parse(b));
    const machine = (await engine.harness.engine.handle('ListStateMachines', {})) as {
      stateMachines: { stateMachineArn: string }[];
    };
    expect(events.map((e) => Object.keys(e))).toEqual(
      Array(3).fill(['version', 'id', 'detail-type', 'source', 'account', 'time', 'region', 'resources', 'detail']),
    );
    expect(events.map((e) => e.detail)).toEqual([
      { Message: 'HelloWorld0' },
      { Message: 'HelloWorld1' },
      { Message: 'HelloWorld2' },
    ]);
    expect(events.map((e) => e.id).sort()).toEqual(output.Entries.map((e) => e.EventId).sort());
    // Step Functions adds the state machine's and the execution's ARNs after the entry's own resources.
    const third = events.find((e) => e.detail.Message === 'HelloWorld2');
    expect(third.resources).toHaveLength(3);
    expect(third.resources[0]).toBe('https://queue.example/1');
    expect(machine.stateMachines.map((m) => m.stateMachineArn)).toContain(third.resources[1]);
    expect(third.resources[2]).toMatch(/^arn:aws:states:[a-z0-9-]+:\d{12}:execution:/);
  });

  it('a Detail that is not a JSON object fails the Task with EventBridge.FailedEntry, the answer as cause (test_put_events_malformed_detail)', async () => {
    const run = await engine.run(putEvents, {
      Entries: [{ Detail: JSON.stringify('jsonstring'), DetailType: 'TestType', Source: 'some.source' }],
    });
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskFailed',
      'ExecutionFailed',
    ]);
    const failed = run.events[4].taskFailedEventDetails as { error: string; cause: string };
    expect(failed).toMatchObject({ error: 'EventBridge.FailedEntry', resourceType: 'events', resource: 'putEvents' });
    expect(JSON.parse(failed.cause)).toEqual({
      Entries: [{ ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' }],
      FailedEntryCount: 1,
    });
  });

  it('an entry without Source fails alone: the other is put, the Task fails (test_put_events_no_source)', async () => {
    const queue = await services.queue('events-no-source');
    await rule('no-source', { detail: { Message: ['HelloWorld1'] } }, [{ Id: 'q', Arn: queue.arn }]);
    const run = await engine.run(putEvents, {
      Entries: [
        { Detail: { Message: 'HelloWorld1' }, DetailType: 'TestType', Source: 'some.source' },
        { Detail: { Message: 'HelloWorld' }, DetailType: 'TestType' },
      ],
    });
    const cause = JSON.parse((run.events[4].taskFailedEventDetails as { cause: string }).cause) as {
      Entries: Record<string, string>[];
    };
    expect(cause.Entries[1]).toEqual({
      ErrorCode: 'InvalidArgument',
      ErrorMessage: 'Parameter Source is not valid. Reason: Source is a required argument.',
    });
    expect(Object.keys(cause.Entries[0])).toEqual(['EventId']);
    await services.settled();
    expect((await queue.bodies()).map((b) => JSON.parse(b).detail)).toEqual([{ Message: 'HelloWorld1' }]);
  });

  it('rules deliver to a Lambda function (the event) and a state machine (the InputPath part as input)', async () => {
    const child = await engine.harness.machine(jsonata({ Echo: { Type: 'Pass', End: true } }), 'order-handler');
    await rule('orders', { source: ['shop'], detail: { total: [{ numeric: ['>', 100] }] } }, [
      { Id: 'fn', Arn: 'arn:aws:lambda:us-east-1:123456789012:function:listener' },
      { Id: 'sm', Arn: child, InputPath: '$.detail' },
    ]);
    const def = jsonata({
      Put: {
        Type: 'Task',
        Resource: 'arn:aws:states:::events:putEvents',
        Arguments: { Entries: [{ Source: 'shop', DetailType: 'Order', Detail: '{% $states.input %}' }] },
        End: true,
      },
    });
    await engine.run(def, { id: 'small', total: 5 });
    await engine.run(def, { id: 'big', total: 500 });
    await services.settled();
    expect(received.map((e) => (e as { detail: { id: string } }).detail.id)).toEqual(['big']);
    const runs = (await engine.harness.engine.handle('ListExecutions', { stateMachineArn: child })) as {
      executions: { executionArn: string }[];
    };
    expect(runs.executions).toHaveLength(1);
    const described = (await engine.harness.engine.handle('DescribeExecution', {
      executionArn: runs.executions[0].executionArn,
    })) as { input: string };
    expect(JSON.parse(described.input)).toEqual({ id: 'big', total: 500 });
  });

  it('.waitForTaskToken: the run waits for the token a target sends back', async () => {
    functions.worker = async (event: { detail: { token: string } }) => {
      await engine.harness.engine.handle('SendTaskSuccess', {
        taskToken: event.detail.token,
        output: JSON.stringify({ done: true }),
      });
    };
    await rule('work', { 'detail-type': ['Work'] }, [
      { Id: 'w', Arn: 'arn:aws:lambda:us-east-1:123456789012:function:worker' },
    ]);
    const def = jsonata({
      Put: {
        Type: 'Task',
        Resource: 'arn:aws:states:::events:putEvents.waitForTaskToken',
        Arguments: {
          Entries: [{ Source: 'jobs', DetailType: 'Work', Detail: { token: '{% $states.context.Task.Token %}' } }],
        },
        End: true,
      },
    });
    const run = await engine.run(def, {});
    expect(run.types).toContain('TaskSubmitted');
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: { done: true } });
  });
});

describe('aws-sdk:eventbridge', () => {
  it('putRule refuses a pattern EventBridge would, as EventBridge.InvalidEventPatternException', async () => {
    const def = jsonata({
      Rule: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:eventbridge:putRule',
        Arguments: { Name: 'bad', EventPattern: '{"source":"not-a-list"}' },
        End: true,
      },
    });
    const run = await engine.run(def);
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'EventBridge.InvalidEventPatternException' });
    expect((run.outcome as { cause: string }).cause).toMatch(
      /^Event pattern is not valid\. Reason: "source" must be an object or an array \(Service: EventBridge, Status Code: 400, Request ID: /,
    );
  });

  it('putEvents through the SDK answers the response as it is, a failed entry included (no FailedEntry error)', async () => {
    const def = jsonata({
      Put: {
        Type: 'Task',
        Resource: 'arn:aws:states:::aws-sdk:eventbridge:putEvents',
        Arguments: { Entries: [{ Source: 's', DetailType: 'd', Detail: '"text"' }] },
        End: true,
      },
    });
    const run = await engine.run(def);
    expect(run.outcome).toEqual({
      status: 'SUCCEEDED',
      output: {
        Entries: [{ ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' }],
        FailedEntryCount: 1,
      },
    });
  });
});

describe('EventBridge limits', () => {
  // EventBridge API reference, PutEvents: the entries of a request hold at most 256 KB together, counted as
  // the user guide's "Calculating PutEvents event entry size" says.
  it('refuses entries over 256 KB together with ValidationException, and takes them at the limit', async () => {
    const entry = (detailBytes: number) => ({
      Source: 's',
      DetailType: 't',
      Detail: JSON.stringify({ d: 'x'.repeat(detailBytes - 8) }),
    });
    await expect(services.eventbridge.call('PutEvents', { Entries: [entry(300 * 1024)] })).rejects.toMatchObject({
      code: 'ValidationException',
      message: 'Total size of the entries in the request is over the limit.',
    });
    await expect(
      services.eventbridge.call('PutEvents', { Entries: [entry(150 * 1024), entry(150 * 1024)] }),
    ).rejects.toMatchObject({ code: 'ValidationException' });
    await expect(services.eventbridge.call('PutEvents', { Entries: [entry(262_144 - 2)] })).resolves.toMatchObject({
      FailedEntryCount: 0,
    });
  });
});
