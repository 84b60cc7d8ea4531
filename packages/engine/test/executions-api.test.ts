import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineHarness, invokeTask, jsonata } from './support/engine-harness';

describe('execution operations', () => {
  let h: EngineHarness;
  let machine: string;
  let approvalToken: string | undefined;
  beforeEach(async () => {
    approvalToken = undefined;
    h = await new EngineHarness({
      echo: (p) => p,
      ask: (p) => {
        approvalToken = p.token;
        return {};
      },
    }).start();
    machine = await h.machine(
      jsonata({
        Ask: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
          Arguments: { FunctionName: 'ask', Payload: { token: '{% $states.context.Task.Token %}' } },
          Next: 'Echo',
        },
        Echo: invokeTask('echo', { End: true }),
      }),
      'orders',
    );
  });
  afterEach(() => h.close());

  it('starts, describes and finishes an execution with the service shapes', async () => {
    const started = await h.call('StartExecution', { stateMachineArn: machine, name: 'run-1', input: '{"a":1}' });
    expect(started).toEqual({
      executionArn: 'arn:aws:states:us-east-1:123456789012:execution:orders:run-1',
      startDate: expect.any(Number),
    });
    await h.idle();
    expect(await h.describe(started.executionArn)).toMatchObject({
      executionArn: started.executionArn,
      stateMachineArn: machine,
      name: 'run-1',
      status: 'RUNNING',
      input: '{"a":1}',
      redriveCount: 0,
      redriveStatus: 'NOT_REDRIVABLE',
    });
    await h.call('SendTaskSuccess', { taskToken: approvalToken, output: '{"ok":true}' });
    await h.idle();
    const done = await h.describe(started.executionArn);
    expect(done).toMatchObject({ status: 'SUCCEEDED', output: '{"ok":true}', stopDate: expect.any(Number) });
  });

  it('returns the same execution for the same name and input while it runs', async () => {
    const a = await h.call('StartExecution', { stateMachineArn: machine, name: 'same', input: '{"a":1}' });
    const b = await h.call('StartExecution', { stateMachineArn: machine, name: 'same', input: '{"a":1}' });
    expect(b).toEqual(a);
    await h.idle();
    expect(h.count('ask')).toBe(1);
  });

  it('refuses the same name with another input, or once closed, with ExecutionAlreadyExists', async () => {
    await h.call('StartExecution', { stateMachineArn: machine, name: 'same', input: '{"a":1}' });
    await expect(
      h.call('StartExecution', { stateMachineArn: machine, name: 'same', input: '{"a":2}' }),
    ).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
    await h.idle();
    await h.call('SendTaskSuccess', { taskToken: approvalToken, output: '{}' });
    await h.idle();
    await expect(
      h.call('StartExecution', { stateMachineArn: machine, name: 'same', input: '{"a":1}' }),
    ).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
  });

  it.each([
    ['malformed JSON', '{"a":'],
    ['input over 256 KiB', JSON.stringify({ big: 'x'.repeat(256 * 1024) })],
  ])('refuses %s with InvalidExecutionInput', async (_what, input) => {
    await expect(h.call('StartExecution', { stateMachineArn: machine, input })).rejects.toMatchObject({
      name: 'InvalidExecutionInput',
    });
  });

  it.each(['bad name', 'a:b', 'x'.repeat(81), 'tab\tname', 'star*'])(
    'refuses the execution name %j with InvalidName',
    async (name) => {
      await expect(h.call('StartExecution', { stateMachineArn: machine, name })).rejects.toMatchObject({
        name: 'InvalidName',
      });
    },
  );

  it('answers unknown ARNs with the service errors', async () => {
    await expect(h.call('StartExecution', { stateMachineArn: `${machine}x` })).rejects.toMatchObject({
      name: 'StateMachineDoesNotExist',
    });
    await expect(
      h.call('DescribeExecution', { executionArn: 'arn:aws:states:us-east-1:123456789012:execution:orders:nope' }),
    ).rejects.toMatchObject({
      name: 'ExecutionDoesNotExist',
    });
    await expect(h.call('DescribeExecution', { executionArn: 'nope' })).rejects.toMatchObject({ name: 'InvalidArn' });
    await expect(h.call('ListExecutions', { stateMachineArn: `${machine}:nope` })).rejects.toMatchObject({
      name: 'ResourceNotFound',
    });
  });

  it('lists executions newest first, by status, page by page', async () => {
    for (const n of ['e1', 'e2', 'e3']) await h.call('StartExecution', { stateMachineArn: machine, name: n });
    await h.idle();
    await h.call('StopExecution', {
      executionArn: `${machine.replace('stateMachine', 'execution')}:e2`,
      error: 'Stop',
      cause: 'test',
    });
    const all = await h.call('ListExecutions', { stateMachineArn: machine });
    expect(all.executions.map((e: any) => e.name)).toEqual(['e3', 'e2', 'e1']);
    const aborted = await h.call('ListExecutions', { stateMachineArn: machine, statusFilter: 'ABORTED' });
    expect(aborted.executions.map((e: any) => [e.name, e.status])).toEqual([['e2', 'ABORTED']]);
    const page1 = await h.call('ListExecutions', { stateMachineArn: machine, maxResults: 2 });
    const page2 = await h.call('ListExecutions', {
      stateMachineArn: machine,
      maxResults: 2,
      nextToken: page1.nextToken,
    });
    expect([...page1.executions, ...page2.executions].map((e: any) => e.name)).toEqual(['e3', 'e2', 'e1']);
    expect(page2.nextToken).toBeUndefined();
  });

  it.each([
    [
      { statusFilter: 'DONE' },
      "Value 'DONE' at 'statusFilter' failed to satisfy constraint: Member must satisfy enum value set: [RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED, PENDING_REDRIVE]",
    ],
    [
      { redriveFilter: 'arn:aws:states:us-east-1:123456789012:stateMachine:orders' },
      "at 'redriveFilter' failed to satisfy constraint: Member must satisfy enum value set: [REDRIVEN, NOT_REDRIVEN]",
    ],
    // The API reference: PENDING_REDRIVE lists a Map Run's child executions, and needs mapRunArn.
    [{ statusFilter: 'PENDING_REDRIVE' }, 'PENDING_REDRIVE'],
    [
      { mapRunArn: 'arn:aws:states:us-east-1:123456789012:mapRun:orders/Each:1' },
      'either a mapRunArn or a stateMachineArn',
    ],
  ])(
    'refuses ListExecutions %j of a state machine with ValidationException, as the service does',
    async (filters, message) => {
      await expect(h.call('ListExecutions', { stateMachineArn: machine, ...filters })).rejects.toMatchObject({
        name: 'ValidationException',
        message: expect.stringContaining(message),
      });
    },
  );

  it('stops an execution: ABORTED with error and cause, and its token answers TaskTimedOut', async () => {
    const arn = await h.run(machine, {});
    const stopped = await h.call('StopExecution', { executionArn: arn, error: 'Operator', cause: 'no longer needed' });
    expect(stopped.stopDate).toEqual(expect.any(Number));
    expect(await h.describe(arn)).toMatchObject({
      status: 'ABORTED',
      error: 'Operator',
      cause: 'no longer needed',
      redriveStatus: 'REDRIVABLE',
    });
    expect((await h.eventTypes(arn)).at(-1)).toBe('ExecutionAborted');
    await expect(h.call('SendTaskSuccess', { taskToken: approvalToken, output: '{}' })).rejects.toMatchObject({
      name: 'TaskTimedOut',
    });
  });

  it.each([
    ['error', 257, 256],
    ['cause', 32_769, 32_768],
  ])(
    "refuses a StopExecution %s of %i characters with ValidationException (the API reference's bound, %i), leaving the run running",
    async (field, length, max) => {
      const arn = await h.run(machine, {});
      await expect(h.call('StopExecution', { executionArn: arn, [field]: 'x'.repeat(length) })).rejects.toMatchObject({
        name: 'ValidationException',
        message: `1 validation error detected: Value at '${field}' failed to satisfy constraint: Member must have length less than or equal to ${max}`,
      });
      expect((await h.describe(arn)).status).toBe('RUNNING');
      await h.call('StopExecution', { executionArn: arn, [field]: 'x'.repeat(max) });
      expect(await h.describe(arn)).toMatchObject({ status: 'ABORTED', [field]: 'x'.repeat(max) });
    },
  );

  it('pages history forwards and backwards, with or without execution data', async () => {
    const arn = await h.run(machine, { secret: 1 });
    const events = await h.history(arn);
    expect(events.map((e) => e.type)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSubmitted',
    ]);
    expect(events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);
    expect(events.map((e) => e.previousEventId)).toEqual([0, 0, 2, 3, 4]); // the service's own numbering
    expect(events[0].executionStartedEventDetails).toMatchObject({
      input: '{"secret":1}',
      roleArn: expect.any(String),
    });
    expect(events[2].taskScheduledEventDetails).toMatchObject({
      resourceType: 'lambda',
      resource: 'invoke.waitForTaskToken',
      region: 'us-east-1',
    });
    const reversed = await h.call('GetExecutionHistory', { executionArn: arn, reverseOrder: true, maxResults: 2 });
    expect(reversed.events.map((e: any) => e.id)).toEqual([5, 4]);
    const rest = await h.call('GetExecutionHistory', {
      executionArn: arn,
      reverseOrder: true,
      maxResults: 2,
      nextToken: reversed.nextToken,
    });
    expect(rest.events.map((e: any) => e.id)).toEqual([3, 2]);
    const noData = await h.call('GetExecutionHistory', { executionArn: arn, includeExecutionData: false });
    expect(noData.events[0].executionStartedEventDetails.input).toBeUndefined();
  });
});
