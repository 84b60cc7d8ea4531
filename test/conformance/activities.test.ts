/**
 * Activities, through the HTTP endpoint with `@aws-sdk/client-sfn`, as AWS answers and records them.
 * Expected answers and histories are AWS's own, recorded in localstack's AWS-validated snapshots
 * (tests/aws/services/stepfunctions/v2/test_sfn_api_activities.snapshot.json and
 * activities/test_activities.snapshot.json: test_activity_task, _no_worker_name, _failure,
 * _with_heartbeat, _start_timeout, _on_deleted); the rest follows the API reference (CreateActivity is
 * idempotent on the name; GetActivityTask holds a poll up to 60 seconds and answers a null token when no
 * task came; SendTaskHeartbeat resets the heartbeat clock; an activity Task's timeout is its whole duration).
 */
import {
  ActivityAlreadyExists,
  ActivityDoesNotExist,
  CreateActivityCommand,
  CreateStateMachineCommand,
  DeleteActivityCommand,
  DescribeActivityCommand,
  DescribeExecutionCommand,
  GetActivityTaskCommand,
  GetExecutionHistoryCommand,
  InvalidArn,
  InvalidName,
  ListActivitiesCommand,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartExecutionCommand,
  TaskTimedOut,
  TooManyTags,
  type HistoryEvent,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../packages/workflow/src/config';
import { createLocalApiHandler, type LocalApiServer, startLocalApiServer } from '../../packages/local/src/api/server';
import { stepFunctionsService } from '../../packages/local/src/api/step-functions-service';
import { EngineHarness } from '../../packages/engine/test/support/engine-harness';
import { MockConfig } from '../../packages/engine/src/mocks';
import { oneCase } from './mock-config/support';

/** How long an empty poll is held here (AWS: 60 s; the engine option makes a test's empty poll short). */
const POLL_MILLIS = 300;
const harness = new EngineHarness({}, { activityPollMillis: POLL_MILLIS });
let api: LocalApiServer;
let sfn: SFNClient;
beforeAll(async () => {
  await harness.start();
  api = await startLocalApiServer(createLocalApiHandler({ services: [stepFunctionsService(harness.engine)] }), 0);
  sfn = new SFNClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: api.url, maxAttempts: 1 });
});
afterAll(async () => {
  sfn?.destroy();
  await api?.close();
  await harness?.close();
});

let names = 0;
const uniqueName = (prefix: string) => `${prefix}-${++names}`;
const newActivity = async (name = uniqueName('activity')) =>
  (await sfn.send(new CreateActivityCommand({ name }))).activityArn!;
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: Error) => ({ name: err.name, message: err.message, type: err.constructor }),
  );

/** The recorded machine: one Task on the activity, `extra` merged into it. */
async function activityMachine(
  activityArn: string,
  extra: object = {},
  more: Record<string, object> = {},
): Promise<string> {
  const definition = {
    StartAt: 'ActivityTask',
    States: { ActivityTask: { Type: 'Task', Resource: activityArn, End: true, ...extra }, ...more },
  };
  const out = await sfn.send(
    new CreateStateMachineCommand({
      name: uniqueName('machine'),
      definition: JSON.stringify(definition),
      roleArn: 'arn:aws:iam::123456789012:role/test',
    }),
  );
  return out.stateMachineArn!;
}
async function start(stateMachineArn: string, input: unknown = { Value1: 'Hello', Value2: 'World' }): Promise<string> {
  const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }));
  await harness.idle();
  return executionArn!;
}
async function advance(seconds: number): Promise<void> {
  await harness.clock.advance(seconds * 1000);
  await harness.idle();
}
const history = async (executionArn: string): Promise<HistoryEvent[]> =>
  (await sfn.send(new GetExecutionHistoryCommand({ executionArn }))).events!;
const types = (events: HistoryEvent[]) => events.map((e) => e.type);
const details = (events: HistoryEvent[], type: string): any => {
  const e = events.find((x) => x.type === type) as Record<string, unknown> | undefined;
  return e?.[`${type[0].toLowerCase()}${type.slice(1)}EventDetails`];
};
const status = async (executionArn: string) => sfn.send(new DescribeExecutionCommand({ executionArn }));

describe('the activity API', () => {
  it('CreateActivity answers the ARN and creation date; a second call with the same name answers the same ones (recorded: create_activity_response_duplicate)', async () => {
    const first = await sfn.send(new CreateActivityCommand({ name: 'greeter' }));
    expect(first.activityArn).toBe(`arn:aws:states:${LOCAL_REGION}:123456789012:activity:greeter`);
    expect(first.creationDate).toBeInstanceOf(Date);
    await advance(10);
    const again = await sfn.send(
      new CreateActivityCommand({ name: 'greeter', tags: [{ key: 'team', value: 'other' }] }),
    );
    expect(again).toMatchObject({ activityArn: first.activityArn, creationDate: first.creationDate });
  });

  it('an encryption configuration may not be updated: the same name with another one is ActivityAlreadyExists (API reference)', async () => {
    const name = uniqueName('encrypted');
    const encryptionConfiguration = { type: 'AWS_OWNED_KEY' as const };
    const created = await sfn.send(new CreateActivityCommand({ name, encryptionConfiguration }));
    expect(await sfn.send(new CreateActivityCommand({ name, encryptionConfiguration }))).toMatchObject({
      activityArn: created.activityArn,
    });
    const refused = await failureOf(sfn.send(new CreateActivityCommand({ name })));
    expect(refused).toMatchObject({ name: 'ActivityAlreadyExists', type: ActivityAlreadyExists });
    expect(await sfn.send(new DescribeActivityCommand({ activityArn: created.activityArn }))).toMatchObject({
      encryptionConfiguration,
    });
  });

  it('more than 50 tags is TooManyTags; a name over 80 characters is InvalidName', async () => {
    const tags = Array.from({ length: 51 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    expect(await failureOf(sfn.send(new CreateActivityCommand({ name: uniqueName('tagged'), tags })))).toMatchObject({
      name: 'TooManyTags',
      type: TooManyTags,
    });
    expect(await failureOf(sfn.send(new CreateActivityCommand({ name: 'a'.repeat(81) })))).toMatchObject({
      name: 'InvalidName',
    });
  });

  it('DescribeActivity answers its ARN, name and creation date (recorded: describe_activity_response)', async () => {
    const created = await sfn.send(new CreateActivityCommand({ name: 'describer' }));
    const described = await sfn.send(new DescribeActivityCommand({ activityArn: created.activityArn }));
    expect(described).toMatchObject({
      activityArn: created.activityArn,
      name: 'describer',
      creationDate: created.creationDate,
    });
  });

  it('a name that breaks the naming rules is refused with InvalidName, quoted as AWS quotes it (recorded: test_create_activity_invalid_name)', async () => {
    const refused = await failureOf(sfn.send(new CreateActivityCommand({ name: 'TestActivity InvalidName$' })));
    expect(refused).toMatchObject({
      name: 'InvalidName',
      message: "Invalid Name: 'TestActivity InvalidName$'",
      type: InvalidName,
    });
  });

  it('DeleteActivity answers {} whether or not the activity exists; a deleted activity is ActivityDoesNotExist to Describe and GetActivityTask (recorded)', async () => {
    const arn = await newActivity();
    await sfn.send(new DeleteActivityCommand({ activityArn: arn }));
    await sfn.send(new DeleteActivityCommand({ activityArn: arn }));
    const message = `Activity Does Not Exist: '${arn}'`;
    expect(await failureOf(sfn.send(new DescribeActivityCommand({ activityArn: arn })))).toMatchObject({
      name: 'ActivityDoesNotExist',
      message,
      type: ActivityDoesNotExist,
    });
    expect(await failureOf(sfn.send(new GetActivityTaskCommand({ activityArn: arn })))).toMatchObject({
      name: 'ActivityDoesNotExist',
      message,
    });
  });

  it.each([
    ['DescribeActivity', () => new DescribeActivityCommand({ activityArn: 'no_an_activity_arn' })],
    ['GetActivityTask', () => new GetActivityTaskCommand({ activityArn: 'no_an_activity_arn' })],
    ['DeleteActivity', () => new DeleteActivityCommand({ activityArn: 'no_an_activity_arn' })],
  ])(
    "%s on a string that is no ARN: InvalidArn 'Invalid ARN prefix' (recorded: test_describe_activity_invalid_arn, test_get_activity_task_invalid_arn)",
    async (_op, command) => {
      const refused = await failureOf(sfn.send(command() as never));
      expect(refused).toMatchObject({
        name: 'InvalidArn',
        message: "Invalid Arn: 'Invalid ARN prefix: no_an_activity_arn'",
        type: InvalidArn,
      });
    },
  );

  it("a state machine's ARN where an activity's is expected is InvalidArn", async () => {
    const refused = await failureOf(
      sfn.send(
        new DescribeActivityCommand({ activityArn: `arn:aws:states:${LOCAL_REGION}:123456789012:stateMachine:m` }),
      ),
    );
    expect(refused).toMatchObject({
      name: 'InvalidArn',
      message: "Invalid Arn: 'Resource type not valid in this context: stateMachine'",
    });
  });

  it('ListActivities lists every activity by name, in pages of maxResults joined by nextToken (recorded: test_list_activities)', async () => {
    const created = [];
    for (const name of ['list-c', 'list-a', 'list-b']) created.push(await newActivity(name));
    const listed: string[] = [];
    let nextToken: string | undefined;
    do {
      const page = await sfn.send(new ListActivitiesCommand({ maxResults: 2, ...(nextToken ? { nextToken } : {}) }));
      expect(page.activities!.length).toBeLessThanOrEqual(2);
      for (const a of page.activities!) {
        expect(Object.keys(a).sort()).toEqual(['activityArn', 'creationDate', 'name']);
        listed.push(a.name!);
      }
      nextToken = page.nextToken;
    } while (nextToken);
    expect(listed.filter((n) => n.startsWith('list-'))).toEqual(['list-a', 'list-b', 'list-c']);
    expect(listed).toEqual([...listed].sort());
  });

  it('GetActivityTask with no task scheduled holds the poll, then answers without a task token', async () => {
    const arn = await newActivity();
    const answer = await sfn.send(new GetActivityTaskCommand({ activityArn: arn, workerName: 'idle-worker' }));
    expect(answer.taskToken).toBeUndefined();
    expect(answer.input).toBeUndefined();
  });

  it('a worker name over 80 characters is refused with ValidationException', async () => {
    const arn = await newActivity();
    const refused = await failureOf(
      sfn.send(new GetActivityTaskCommand({ activityArn: arn, workerName: 'w'.repeat(81) })),
    );
    expect(refused).toMatchObject({ name: 'ValidationException' });
  });
});

describe('a Task state on an activity', () => {
  it('a worker takes the task and succeeds: ActivityScheduled, ActivityStarted with its name, ActivitySucceeded (recorded: test_activity_task)', async () => {
    const arn = await newActivity();
    const exec = await start(await activityMachine(arn));
    const task = await sfn.send(
      new GetActivityTaskCommand({ activityArn: arn, workerName: 'BASE_ID_ACTIVITY_CONSUMER' }),
    );
    expect(JSON.parse(task.input!)).toEqual({ Value1: 'Hello', Value2: 'World' });
    await sfn.send(new SendTaskSuccessCommand({ taskToken: task.taskToken, output: task.input }));
    await harness.idle();
    const events = await history(exec);
    expect(types(events)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'ActivityScheduled',
      'ActivityStarted',
      'ActivitySucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
    expect(events.map((e) => [e.id, e.previousEventId])).toEqual([
      [1, 0],
      [2, 0],
      [3, 2],
      [4, 3],
      [5, 4],
      [6, 5],
      [7, 6],
    ]);
    expect(details(events, 'ActivityScheduled')).toEqual({
      resource: arn,
      input: '{"Value1":"Hello","Value2":"World"}',
      inputDetails: { truncated: false },
    });
    expect(details(events, 'ActivityStarted')).toEqual({ workerName: 'BASE_ID_ACTIVITY_CONSUMER' });
    expect(details(events, 'ActivitySucceeded')).toEqual({
      output: '{"Value1":"Hello","Value2":"World"}',
      outputDetails: { truncated: false },
    });
    expect((await status(exec)).status).toBe('SUCCEEDED');
  });

  it('a worker that gives no name: ActivityStarted has empty details (recorded: test_activity_task_no_worker_name)', async () => {
    const arn = await newActivity();
    const exec = await start(await activityMachine(arn));
    const task = await sfn.send(new GetActivityTaskCommand({ activityArn: arn }));
    await sfn.send(new SendTaskSuccessCommand({ taskToken: task.taskToken, output: '{}' }));
    await harness.idle();
    const events = await history(exec);
    expect(details(events, 'ActivityStarted')).toEqual({});
  });

  it('a worker that fails the task: ActivityFailed with its error and cause, and the run fails with them (recorded: test_activity_task_failure)', async () => {
    const arn = await newActivity();
    const exec = await start(await activityMachine(arn));
    const task = await sfn.send(new GetActivityTaskCommand({ activityArn: arn, workerName: 'w' }));
    await sfn.send(
      new SendTaskFailureCommand({ taskToken: task.taskToken, error: 'Programmatic Error', cause: task.input }),
    );
    await harness.idle();
    const events = await history(exec);
    expect(types(events)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'ActivityScheduled',
      'ActivityStarted',
      'ActivityFailed',
      'ExecutionFailed',
    ]);
    expect(details(events, 'ActivityFailed')).toEqual({
      error: 'Programmatic Error',
      cause: '{"Value1":"Hello","Value2":"World"}',
    });
    expect(details(events, 'ExecutionFailed')).toEqual({
      error: 'Programmatic Error',
      cause: '{"Value1":"Hello","Value2":"World"}',
    });
  });

  it('HeartbeatSeconds and TimeoutSeconds are recorded on ActivityScheduled; heartbeats keep a long task alive (recorded: test_activity_task_with_heartbeat)', async () => {
    const arn = await newActivity();
    const exec = await start(await activityMachine(arn, { TimeoutSeconds: 60, HeartbeatSeconds: 10 }));
    const task = await sfn.send(new GetActivityTaskCommand({ activityArn: arn, workerName: 'beating' }));
    for (let i = 0; i < 4; i++) {
      await advance(8);
      await sfn.send(new SendTaskHeartbeatCommand({ taskToken: task.taskToken }));
    }
    expect((await status(exec)).status).toBe('RUNNING');
    await sfn.send(new SendTaskSuccessCommand({ taskToken: task.taskToken, output: '{"done":true}' }));
    await harness.idle();
    const events = await history(exec);
    expect(details(events, 'ActivityScheduled')).toEqual({
      resource: arn,
      input: '{"Value1":"Hello","Value2":"World"}',
      inputDetails: { truncated: false },
      timeoutInSeconds: 60,
      heartbeatInSeconds: 10,
    });
    expect((await status(exec)).status).toBe('SUCCEEDED');
  });

  it('a worker whose heartbeats stop: ActivityTimedOut with States.Timeout; a Catch on States.HeartbeatTimeout takes it', async () => {
    const arn = await newActivity();
    const caught = await start(
      await activityMachine(
        arn,
        {
          HeartbeatSeconds: 10,
          End: undefined,
          Next: 'Done',
          Catch: [{ ErrorEquals: ['States.HeartbeatTimeout'], Next: 'Handled' }],
        },
        {
          Done: { Type: 'Succeed' },
          Handled: { Type: 'Pass', End: true },
        },
      ),
    );
    const task = await sfn.send(new GetActivityTaskCommand({ activityArn: arn }));
    await advance(11);
    const events = await history(caught);
    expect(types(events)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'ActivityScheduled',
      'ActivityStarted',
      'ActivityTimedOut',
      'TaskStateExited',
      'PassStateEntered',
      'PassStateExited',
      'ExecutionSucceeded',
    ]);
    expect(details(events, 'ActivityTimedOut')).toEqual({ error: 'States.Timeout' });
    expect(JSON.parse((await status(caught)).output!)).toEqual({ Error: 'States.Timeout', Cause: '' });
    // The worker's late answer finds its task over.
    expect(
      await failureOf(sfn.send(new SendTaskSuccessCommand({ taskToken: task.taskToken, output: '{}' }))),
    ).toMatchObject({ name: 'TaskTimedOut', type: TaskTimedOut });
  });

  it('the heartbeat clock starts when a worker takes the task, not while it waits in the queue', async () => {
    const arn = await newActivity();
    const exec = await start(await activityMachine(arn, { HeartbeatSeconds: 10 }));
    await advance(30);
    expect((await status(exec)).status).toBe('RUNNING');
    const task = await sfn.send(new GetActivityTaskCommand({ activityArn: arn }));
    await advance(9);
    await sfn.send(new SendTaskSuccessCommand({ taskToken: task.taskToken, output: '{}' }));
    await harness.idle();
    expect((await status(exec)).status).toBe('SUCCEEDED');
  });

  it('TimeoutSeconds caps the task once started: ActivityTimedOut and ExecutionFailed carry States.Timeout and no cause (recorded: test_activity_task_start_timeout)', async () => {
    const arn = await newActivity();
    const exec = await start(await activityMachine(arn, { TimeoutSeconds: 5 }));
    await sfn.send(new GetActivityTaskCommand({ activityArn: arn, workerName: 'BASE_ID_ACTIVITY_CONSUMER' }));
    await advance(6);
    const events = await history(exec);
    expect(types(events)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'ActivityScheduled',
      'ActivityStarted',
      'ActivityTimedOut',
      'ExecutionFailed',
    ]);
    expect(details(events, 'ActivityScheduled')).toMatchObject({ timeoutInSeconds: 5 });
    expect(details(events, 'ActivityTimedOut')).toEqual({ error: 'States.Timeout' });
    expect(details(events, 'ExecutionFailed')).toEqual({ error: 'States.Timeout' });
  });

  it('TimeoutSeconds counts the wait for a worker too: a task nobody takes times out, and a later poll finds nothing', async () => {
    const arn = await newActivity();
    const exec = await start(await activityMachine(arn, { TimeoutSeconds: 5 }));
    await advance(6);
    expect(types(await history(exec))).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'ActivityScheduled',
      'ActivityTimedOut',
      'ExecutionFailed',
    ]);
    expect((await sfn.send(new GetActivityTaskCommand({ activityArn: arn }))).taskToken).toBeUndefined();
  });

  it('a Task on an activity that does not exist fails the run with States.Runtime, nothing scheduled (recorded: test_activity_task_on_deleted)', async () => {
    const arn = await newActivity();
    await sfn.send(new DeleteActivityCommand({ activityArn: arn }));
    const exec = await start(await activityMachine(arn));
    const events = await history(exec);
    expect(types(events)).toEqual(['ExecutionStarted', 'TaskStateEntered', 'ExecutionFailed']);
    expect(details(events, 'ExecutionFailed')).toEqual({
      error: 'States.Runtime',
      cause: `An error occurred while executing the state 'ActivityTask' (entered at the event id #2). The activity ${arn} does not exist.`,
    });
  });

  it('a poll open before the run starts takes the task as soon as it is scheduled', async () => {
    const arn = await newActivity();
    const machine = await activityMachine(arn);
    const polling = sfn.send(new GetActivityTaskCommand({ activityArn: arn, workerName: 'early' }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const exec = await start(machine, { n: 1 });
    const task = await polling;
    expect(JSON.parse(task.input!)).toEqual({ n: 1 });
    expect(details(await history(exec), 'ActivityStarted')).toEqual({ workerName: 'early' });
  });

  it('each task goes to one worker, oldest first: two tasks, three polls at once', async () => {
    const arn = await newActivity();
    const machine = await activityMachine(arn);
    const first = await start(machine, { n: 1 });
    await start(machine, { n: 2 });
    const answers = await Promise.all(
      ['a', 'b', 'c'].map((workerName) => sfn.send(new GetActivityTaskCommand({ activityArn: arn, workerName }))),
    );
    const taken = answers.filter((a) => a.taskToken !== undefined);
    expect(taken.map((a) => JSON.parse(a.input!).n).sort()).toEqual([1, 2]);
    expect(new Set(taken.map((a) => a.taskToken)).size).toBe(2);
    expect(types(await history(first)).filter((t) => t === 'ActivityStarted')).toHaveLength(1);
  });

  it('deleting an activity with a task pending: workers can no longer poll for it, the run waits for its timeout; created again, its task can be taken', async () => {
    const arn = await newActivity();
    const exec = await start(await activityMachine(arn, { TimeoutSeconds: 3600 }));
    await sfn.send(new DeleteActivityCommand({ activityArn: arn }));
    expect(await failureOf(sfn.send(new GetActivityTaskCommand({ activityArn: arn })))).toMatchObject({
      name: 'ActivityDoesNotExist',
    });
    expect((await status(exec)).status).toBe('RUNNING');
    await sfn.send(new CreateActivityCommand({ name: arn.split(':').at(-1) }));
    const task = await sfn.send(new GetActivityTaskCommand({ activityArn: arn }));
    expect(task.taskToken).toBeDefined();
    await sfn.send(new SendTaskSuccessCommand({ taskToken: task.taskToken, output: '{}' }));
    await harness.idle();
    expect((await status(exec)).status).toBe('SUCCEEDED');
  });

  it('a second answer on the same token is TaskTimedOut (the task is over)', async () => {
    const arn = await newActivity();
    await start(await activityMachine(arn));
    const task = await sfn.send(new GetActivityTaskCommand({ activityArn: arn }));
    await sfn.send(new SendTaskSuccessCommand({ taskToken: task.taskToken, output: '{}' }));
    expect(
      await failureOf(sfn.send(new SendTaskSuccessCommand({ taskToken: task.taskToken, output: '{}' }))),
    ).toMatchObject({ name: 'TaskTimedOut' });
  });
});

describe('a worker that is itself a state machine (aws-sdk:sfn, as the recorded tests consume activities)', () => {
  it('getActivityTask then sendTaskSuccess through the SDK integration completes the activity Task', async () => {
    const arn = await newActivity();
    const exec = await start(await activityMachine(arn));
    const consumer = {
      StartAt: 'GetActivityTask',
      States: {
        GetActivityTask: {
          Type: 'Task',
          Resource: 'arn:aws:states:::aws-sdk:sfn:getActivityTask',
          Parameters: { ActivityArn: arn, WorkerName: 'consumer' },
          Next: 'SendTaskSuccess',
        },
        SendTaskSuccess: {
          Type: 'Task',
          Resource: 'arn:aws:states:::aws-sdk:sfn:sendTaskSuccess',
          Parameters: { 'Output.$': '$.Input', 'TaskToken.$': '$.TaskToken' },
          End: true,
        },
      },
    };
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: uniqueName('consumer'),
        definition: JSON.stringify(consumer),
        roleArn: 'arn:aws:iam::123456789012:role/test',
      }),
    );
    const consumed = await start(stateMachineArn!, {});
    expect((await status(consumed)).status).toBe('SUCCEEDED');
    expect(details(await history(exec), 'ActivityStarted')).toEqual({ workerName: 'consumer' });
    expect(JSON.parse((await status(exec)).output!)).toEqual({ Value1: 'Hello', Value2: 'World' });
  });
});

describe('a worker state machine polling on a virtual clock', () => {
  // The service's 60-second poll: a poll that waited with the clock held would keep the engine busy for it.
  const patient = new EngineHarness();
  beforeAll(() => patient.start());
  afterAll(() => patient.close());

  it('lets the virtual clock go while its getActivityTask waits: the engine is idle, and a task scheduled later is taken', async () => {
    const { activityArn } = await patient.call('CreateActivity', { name: 'patient' });
    const consumer = {
      StartAt: 'Poll',
      States: {
        Poll: {
          Type: 'Task',
          Resource: 'arn:aws:states:::aws-sdk:sfn:getActivityTask',
          Parameters: { ActivityArn: activityArn, WorkerName: 'patient-worker' },
          End: true,
        },
      },
    };
    const consumed = await patient.run(await patient.machine(consumer), {});
    expect((await patient.describe(consumed)).status).toBe('RUNNING');
    const producer = await patient.run(
      await patient.machine({ StartAt: 'Work', States: { Work: { Type: 'Task', Resource: activityArn, End: true } } }),
      { job: 7 },
    );
    await expect.poll(async () => (await patient.describe(consumed)).status).toBe('SUCCEEDED');
    expect(JSON.parse(JSON.parse((await patient.describe(consumed)).output).Input)).toEqual({ job: 7 });
    expect(await patient.eventTypes(producer)).toContain('ActivityStarted');
  });
});

describe('an activity state in a mock config', () => {
  // Step Functions Local: "Activity state cannot be mocked" (../shared/TESTING-APIS.md B2; aws-samples/aws-stepfunctions-examples#69).
  const mocked = new EngineHarness(
    {},
    {
      mockConfig: MockConfig.from(
        oneCase('MockedActivity', 'Happy', { ActivityTask: 'Done' }, { Done: { '0': { Return: { ok: true } } } }),
      ),
    },
  );
  beforeAll(() => mocked.start());
  afterAll(() => mocked.close());

  it('fails the run with States.Runtime, as Step Functions Local refuses to mock an activity; unmocked, the same machine waits for a worker', async () => {
    const { activityArn } = await mocked.call('CreateActivity', { name: 'mocked' });
    const arn = await mocked.machine(
      { StartAt: 'ActivityTask', States: { ActivityTask: { Type: 'Task', Resource: activityArn, End: true } } },
      'MockedActivity',
    );
    const run = await mocked.run(`${arn}#Happy`, {});
    expect(await mocked.describe(run)).toMatchObject({
      status: 'FAILED',
      error: 'States.Runtime',
      cause: expect.stringContaining(
        'Activity state cannot be mocked. Please remove mocks mapped for all activity state in the mock config file.',
      ),
    });
    expect(await mocked.eventTypes(run)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'ActivityScheduled',
      'ActivityFailed',
      'ExecutionFailed',
    ]);
    const plain = await mocked.run(arn, {});
    expect(await mocked.eventTypes(plain)).toEqual(['ExecutionStarted', 'TaskStateEntered', 'ActivityScheduled']);
  });
});
