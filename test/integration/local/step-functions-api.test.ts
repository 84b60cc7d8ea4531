/**
 * The Step Functions API of the local engine over HTTP, through @aws-sdk/client-sfn: request and response
 * shapes, and the service's error `__type`s for bad input (malformed JSON, unknown ARNs, invalid
 * definitions, oversized input).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateStateMachineAliasCommand,
  CreateStateMachineCommand,
  DeleteStateMachineCommand,
  DescribeExecutionCommand,
  DescribeStateMachineAliasCommand,
  DescribeStateMachineCommand,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
  ListStateMachinesCommand,
  ListStateMachineVersionsCommand,
  PublishStateMachineVersionCommand,
  RedriveExecutionCommand,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
  UpdateStateMachineAliasCommand,
  UpdateStateMachineCommand,
} from '@aws-sdk/client-sfn';
import { AWS_JSON_CONTENT_TYPE } from '../../../packages/local/src/api/aws-json-protocol';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { invokeTask, jsonataMachine, sfnClient, untilClosed } from './sfn-helpers';
import { eventually } from '../../fixtures/wait';
import { exampleApp } from '../../fixtures/example-app';

const ROLE = 'arn:aws:iam::123456789012:role/test';
const ARN = 'arn:aws:states:us-east-1:123456789012';
const tokens = new Map<string, string>();
let flaky = { failuresLeft: 0 };
const calls: string[] = [];

class TemporarilyDownError extends Error {
  override readonly name = 'TemporarilyDownError';
}

const functions = {
  echo: async (event: unknown) => event,
  step: async (event: { name: string }) => {
    calls.push(event.name);
    return { done: event.name };
  },
  flaky: async () => {
    calls.push('flaky');
    if (flaky.failuresLeft > 0) {
      flaky.failuresLeft -= 1;
      throw new TemporarilyDownError('try again later');
    }
    return { ok: true };
  },
  park: async (event: { token: string; run: string }) => {
    tokens.set(event.run, event.token);
    return {};
  },
};

const echoMachine = jsonataMachine('Echo', { Echo: invokeTask('echo', '{% $states.input %}', { End: true }) });
const parkMachine = jsonataMachine('Park', {
  Park: {
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
    Arguments: {
      FunctionName: 'park',
      Payload: { token: '{% $states.context.Task.Token %}', run: '{% $states.context.Execution.Name %}' },
    },
    End: true,
  },
});

describe('the Step Functions API over HTTP', () => {
  let dataDir: string;
  let local: LocalEngine;
  let sfn: SFNClient;
  let echoArn: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'autosave-sfn-api-'));
    local = await startLocal({
      ...(await exampleApp()),
      port: 0,
      dataDir,
      functions,
      deployWorkflows: false,
      console: false,
      log: () => {},
    });
    sfn = sfnClient(local.url);
    echoArn = (await sfn.send(new CreateStateMachineCommand({ name: 'echo', definition: echoMachine, roleArn: ROLE })))
      .stateMachineArn!;
  });
  afterAll(async () => {
    sfn?.destroy();
    await local?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const parkAndToken = async (stateMachineArn: string, name: string) => {
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, name }));
    const token = await eventually(`${name} to get its task token`, () => tokens.get(name));
    return { executionArn: executionArn!, token };
  };

  describe('state machines', () => {
    it('creates, describes and lists state machines with the service shapes', async () => {
      const created = await sfn.send(
        new CreateStateMachineCommand({ name: 'shapes', definition: echoMachine, roleArn: ROLE, publish: true }),
      );
      expect(created.stateMachineArn).toBe(`${ARN}:stateMachine:shapes`);
      expect(created.stateMachineVersionArn).toBe(`${ARN}:stateMachine:shapes:1`);
      expect(created.creationDate).toBeInstanceOf(Date);

      const described = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: created.stateMachineArn }));
      expect(described).toMatchObject({
        name: 'shapes',
        status: 'ACTIVE',
        type: 'STANDARD',
        roleArn: ROLE,
        definition: echoMachine,
      });

      const page1 = await sfn.send(new ListStateMachinesCommand({ maxResults: 1 }));
      expect(page1.stateMachines).toHaveLength(1);
      expect(page1.nextToken).toBeTruthy();
      const page2 = await sfn.send(new ListStateMachinesCommand({ maxResults: 1, nextToken: page1.nextToken }));
      expect(page2.stateMachines![0].name).not.toBe(page1.stateMachines![0].name);
    });

    it.each([
      ['not JSON', '{"StartAt": '],
      ['a missing StartAt target', JSON.stringify({ StartAt: 'Nowhere', States: { A: { Type: 'Pass', End: true } } })],
      ['an unknown state type', JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Teleport', End: true } } })],
    ])('refuses a definition with %s as InvalidDefinition', async (_label, definition) => {
      await expect(
        sfn.send(new CreateStateMachineCommand({ name: 'bad', definition, roleArn: ROLE })),
      ).rejects.toMatchObject({ name: 'InvalidDefinition' });
    });

    it('refuses a bad name, a taken name and unknown or malformed ARNs', async () => {
      await expect(
        sfn.send(new CreateStateMachineCommand({ name: 'has space', definition: echoMachine, roleArn: ROLE })),
      ).rejects.toMatchObject({ name: 'InvalidName' });
      await expect(
        sfn.send(new CreateStateMachineCommand({ name: 'echo', definition: parkMachine, roleArn: ROLE })),
      ).rejects.toMatchObject({ name: 'StateMachineAlreadyExists' });
      await expect(
        sfn.send(new DescribeStateMachineCommand({ stateMachineArn: `${ARN}:stateMachine:nope` })),
      ).rejects.toMatchObject({ name: 'StateMachineDoesNotExist' });
      await expect(sfn.send(new DescribeStateMachineCommand({ stateMachineArn: 'not-an-arn' }))).rejects.toMatchObject({
        name: 'InvalidArn',
      });
      await expect(
        sfn.send(new DescribeExecutionCommand({ executionArn: `${ARN}:execution:echo:nope` })),
      ).rejects.toMatchObject({ name: 'ExecutionDoesNotExist' });
    });

    it('publishes versions and routes an alias by weight', async () => {
      const { stateMachineArn } = await sfn.send(
        new CreateStateMachineCommand({ name: 'versioned', definition: echoMachine, roleArn: ROLE }),
      );
      const v1 = (await sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn, description: 'first' })))
        .stateMachineVersionArn!;
      const v2 = (
        await sfn.send(new UpdateStateMachineCommand({ stateMachineArn, definition: parkMachine, publish: true }))
      ).stateMachineVersionArn!;
      expect([v1, v2]).toEqual([`${stateMachineArn}:1`, `${stateMachineArn}:2`]);
      const versions = await sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn }));
      expect(versions.stateMachineVersions!.map((v) => v.stateMachineVersionArn)).toEqual([v2, v1]);

      const { stateMachineAliasArn } = await sfn.send(
        new CreateStateMachineAliasCommand({
          name: 'live',
          routingConfiguration: [{ stateMachineVersionArn: v1, weight: 100 }],
        }),
      );
      expect(stateMachineAliasArn).toBe(`${stateMachineArn}:live`);
      await sfn.send(
        new UpdateStateMachineAliasCommand({
          stateMachineAliasArn,
          routingConfiguration: [
            { stateMachineVersionArn: v1, weight: 90 },
            { stateMachineVersionArn: v2, weight: 10 },
          ],
        }),
      );
      const alias = await sfn.send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn }));
      expect(alias).toMatchObject({ name: 'live', stateMachineAliasArn });
      expect(alias.routingConfiguration).toEqual([
        { stateMachineVersionArn: v1, weight: 90 },
        { stateMachineVersionArn: v2, weight: 10 },
      ]);
      await expect(
        sfn.send(
          new UpdateStateMachineAliasCommand({
            stateMachineAliasArn,
            routingConfiguration: [
              { stateMachineVersionArn: v1, weight: 50 },
              { stateMachineVersionArn: v2, weight: 10 },
            ],
          }),
        ),
      ).rejects.toMatchObject({ name: 'ValidationException' });
      await expect(
        sfn.send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn: `${stateMachineArn}:nope` })),
      ).rejects.toMatchObject({ name: 'ResourceNotFound' });
    });

    it('deletes a state machine', async () => {
      const { stateMachineArn } = await sfn.send(
        new CreateStateMachineCommand({ name: 'short-lived', definition: echoMachine, roleArn: ROLE }),
      );
      await sfn.send(new DeleteStateMachineCommand({ stateMachineArn }));
      const listed = await sfn.send(new ListStateMachinesCommand({}));
      expect(listed.stateMachines!.map((m) => m.name)).not.toContain('short-lived');
    });
  });

  describe('executions', () => {
    it('starts an execution and describes it with the service shapes', async () => {
      const { executionArn, startDate } = await sfn.send(
        new StartExecutionCommand({ stateMachineArn: echoArn, name: 'first', input: '{"siteId":"site-4412"}' }),
      );
      expect(executionArn).toBe(`${ARN}:execution:echo:first`);
      expect(startDate).toBeInstanceOf(Date);
      const d = await untilClosed(sfn, executionArn!);
      expect(d).toMatchObject({
        executionArn,
        stateMachineArn: echoArn,
        name: 'first',
        status: 'SUCCEEDED',
        input: '{"siteId":"site-4412"}',
      });
      expect(JSON.parse(d.output!)).toEqual({ siteId: 'site-4412' });
      expect(d.stopDate!.getTime()).toBeGreaterThanOrEqual(d.startDate!.getTime());
    });

    it('is idempotent by name: same input returns the same run, another input is ExecutionAlreadyExists', async () => {
      const { stateMachineArn } = await sfn.send(
        new CreateStateMachineCommand({ name: 'idem', definition: parkMachine, roleArn: ROLE }),
      );
      const a = await sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'once', input: '{"a":1}' }));
      const b = await sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'once', input: '{"a":1}' }));
      expect(b.executionArn).toBe(a.executionArn);
      expect(b.startDate).toEqual(a.startDate);
      await expect(
        sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'once', input: '{"a":2}' })),
      ).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
      await sfn.send(new StopExecutionCommand({ executionArn: a.executionArn }));
    });

    it('refuses input that is not JSON or is over 256 KiB', async () => {
      await expect(
        sfn.send(new StartExecutionCommand({ stateMachineArn: echoArn, input: '{nope' })),
      ).rejects.toMatchObject({ name: 'InvalidExecutionInput' });
      const big = JSON.stringify({ blob: 'x'.repeat(256 * 1024) });
      await expect(sfn.send(new StartExecutionCommand({ stateMachineArn: echoArn, input: big }))).rejects.toMatchObject(
        { name: 'InvalidExecutionInput' },
      );
    });

    it('lists executions by status, a page at a time', async () => {
      const { stateMachineArn } = await sfn.send(
        new CreateStateMachineCommand({ name: 'listing', definition: echoMachine, roleArn: ROLE }),
      );
      for (const name of ['l1', 'l2', 'l3'])
        await untilClosed(sfn, (await sfn.send(new StartExecutionCommand({ stateMachineArn, name }))).executionArn!);
      const page1 = await sfn.send(
        new ListExecutionsCommand({ stateMachineArn, statusFilter: 'SUCCEEDED', maxResults: 2 }),
      );
      expect(page1.executions).toHaveLength(2);
      const page2 = await sfn.send(
        new ListExecutionsCommand({
          stateMachineArn,
          statusFilter: 'SUCCEEDED',
          maxResults: 2,
          nextToken: page1.nextToken,
        }),
      );
      expect([...page1.executions!, ...page2.executions!].map((e) => e.name).sort()).toEqual(['l1', 'l2', 'l3']);
      expect(
        (await sfn.send(new ListExecutionsCommand({ stateMachineArn, statusFilter: 'RUNNING' }))).executions,
      ).toEqual([]);
    });

    it('returns the history with the real event types and ids, forwards, backwards and in pages', async () => {
      const { executionArn } = await sfn.send(
        new StartExecutionCommand({ stateMachineArn: echoArn, name: 'history', input: '{}' }),
      );
      await untilClosed(sfn, executionArn!);
      const { events } = await sfn.send(new GetExecutionHistoryCommand({ executionArn }));
      expect(events!.map((e) => e.type)).toEqual([
        'ExecutionStarted',
        'TaskStateEntered',
        'TaskScheduled',
        'TaskStarted',
        'TaskSucceeded',
        'TaskStateExited',
        'ExecutionSucceeded',
      ]);
      expect(events!.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(events![2].taskScheduledEventDetails).toMatchObject({ resourceType: 'lambda', resource: 'invoke' });
      const reversed = await sfn.send(
        new GetExecutionHistoryCommand({ executionArn, reverseOrder: true, maxResults: 3 }),
      );
      expect(reversed.events!.map((e) => e.id)).toEqual([7, 6, 5]);
      const rest = await sfn.send(
        new GetExecutionHistoryCommand({ executionArn, reverseOrder: true, nextToken: reversed.nextToken }),
      );
      expect(rest.events!.map((e) => e.id)).toEqual([4, 3, 2, 1]);
    });

    it('stops a running execution as ABORTED', async () => {
      const { stateMachineArn } = await sfn.send(
        new CreateStateMachineCommand({ name: 'stoppable', definition: parkMachine, roleArn: ROLE }),
      );
      const { executionArn } = await parkAndToken(stateMachineArn!, 'to-stop');
      await sfn.send(new StopExecutionCommand({ executionArn, error: 'Operator', cause: 'changed my mind' }));
      expect(await sfn.send(new DescribeExecutionCommand({ executionArn }))).toMatchObject({
        status: 'ABORTED',
        error: 'Operator',
        cause: 'changed my mind',
      });
    });

    it('redrives a failed execution from the failed state without re-running the steps before it', async () => {
      const definition = jsonataMachine('First', {
        First: invokeTask('step', { name: 'first' }, { Next: 'Flaky' }),
        Flaky: invokeTask('flaky', {}, { End: true }),
      });
      const { stateMachineArn } = await sfn.send(
        new CreateStateMachineCommand({ name: 'redrivable', definition, roleArn: ROLE }),
      );
      flaky = { failuresLeft: 1 };
      calls.length = 0;
      const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'redrive-me' }));
      const failed = await untilClosed(sfn, executionArn!);
      expect(failed).toMatchObject({ status: 'FAILED', error: 'TemporarilyDownError' });
      const { redriveDate } = await sfn.send(new RedriveExecutionCommand({ executionArn }));
      expect(redriveDate).toBeInstanceOf(Date);
      const done = await untilClosed(sfn, executionArn!);
      expect(done).toMatchObject({ status: 'SUCCEEDED', redriveCount: 1 });
      expect(calls).toEqual(['first', 'flaky', 'flaky']);
      await expect(sfn.send(new RedriveExecutionCommand({ executionArn }))).rejects.toMatchObject({
        name: 'ExecutionNotRedrivable',
      });
    });
  });

  describe('task tokens', () => {
    it('completes a waiting task with SendTaskSuccess, then answers the spent token with TaskTimedOut', async () => {
      const { stateMachineArn } = await sfn.send(
        new CreateStateMachineCommand({ name: 'tokens', definition: parkMachine, roleArn: ROLE }),
      );
      const { executionArn, token } = await parkAndToken(stateMachineArn!, 'approve-me');
      await sfn.send(new SendTaskHeartbeatCommand({ taskToken: token }));
      await sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: '{"approved":true}' }));
      expect(JSON.parse((await untilClosed(sfn, executionArn)).output!)).toEqual({ approved: true });
      await expect(sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: '{}' }))).rejects.toMatchObject({
        name: 'TaskTimedOut',
      });
    });

    it('fails a waiting task with SendTaskFailure under the given error name', async () => {
      const { executionArn, token } = await parkAndToken(`${ARN}:stateMachine:tokens`, 'reject-me');
      await sfn.send(
        new SendTaskFailureCommand({ taskToken: token, error: 'ApprovalRejected', cause: 'no IRB document' }),
      );
      expect(await untilClosed(sfn, executionArn)).toMatchObject({
        status: 'FAILED',
        error: 'ApprovalRejected',
        cause: 'no IRB document',
      });
    });

    it('answers a malformed token with InvalidToken and output that is not JSON with InvalidOutput', async () => {
      await expect(sfn.send(new SendTaskSuccessCommand({ taskToken: 'garbage', output: '{}' }))).rejects.toMatchObject({
        name: 'InvalidToken',
      });
      await expect(sfn.send(new SendTaskHeartbeatCommand({ taskToken: 'garbage' }))).rejects.toMatchObject({
        name: 'InvalidToken',
      });
      const { token } = await parkAndToken(`${ARN}:stateMachine:tokens`, 'bad-output');
      await expect(sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: '{nope' }))).rejects.toMatchObject({
        name: 'InvalidOutput',
      });
    });
  });

  describe('the wire', () => {
    const post = (target: string, body: string) =>
      fetch(local.url, {
        method: 'POST',
        headers: { 'content-type': AWS_JSON_CONTENT_TYPE, 'x-amz-target': target },
        body,
      });

    it('answers a malformed body with SerializationException and an unknown operation with UnknownOperationException', async () => {
      const malformed = await post('AWSStepFunctions.StartExecution', '{"stateMachineArn": ');
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toMatchObject({ __type: 'SerializationException' });
      const unknown = await post('AWSStepFunctions.TeleportExecution', '{}');
      expect(unknown.status).toBe(400);
      expect(await unknown.json()).toMatchObject({ __type: 'UnknownOperationException' });
    });

    it('answers a missing required field with ValidationException', async () => {
      const res = await post('AWSStepFunctions.StartExecution', '{}');
      expect(res.status).toBe(400);
      expect(((await res.json()) as { __type: string }).__type).toMatch(/^(ValidationException|InvalidArn)$/);
    });
  });
});
