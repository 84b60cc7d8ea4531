import Database from 'better-sqlite3';
import { join } from 'node:path';
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
  RedriveExecutionCommand,
  SFNClient,
  StartExecutionCommand,
  StartSyncExecutionCommand,
  StopExecutionCommand,
  ValidateStateMachineDefinitionCommand,
} from '@aws-sdk/client-sfn';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seconds } from '../../workflow/src/config/duration';
import { createLocalApiHandler, startLocalApiServer, type LocalApiServer } from '../../local/src/api/server';
import { stepFunctionsService } from '../../local/src/api/step-functions-service';
import { ENGINE_DB_FILE } from '../src/store';
import { EngineHarness, jsonpath, SHARED_STORE } from './support/engine-harness';

const ROLE = 'arn:aws:iam::123456789012:role/test';
const fn = (name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`;
const EXPRESS_ARN = /^arn:aws:states:us-east-1:123456789012:express:drafts:[^:]+:[0-9a-f-]{36}$/;

/** Draft, then classify: the shape of a short agent workflow. */
const draftAndClassify = jsonpath({
  Draft: { Type: 'Task', Resource: fn('draft'), ResultPath: '$.draft', Next: 'Classify' },
  Classify: { Type: 'Task', Resource: fn('classify'), ResultPath: '$.label', End: true },
});

describe('EXPRESS workflows through @aws-sdk/client-sfn', () => {
  let h: EngineHarness;
  let api: LocalApiServer;
  let sfn: SFNClient;

  beforeEach(async () => {
    h = await new EngineHarness(
      {
        draft: async (p: { topic: string }) => ({ text: `About ${p.topic}` }),
        classify: async (p: { draft: { text: string } }) => (p.draft.text.includes('refund') ? 'billing' : 'general'),
        explode: async () => {
          throw Object.assign(new Error('the model refused'), { name: 'ModelRefused' });
        },
      },
      SHARED_STORE,
    ).start();
    api = await startLocalApiServer(createLocalApiHandler({ services: [stepFunctionsService(h.engine)] }), 0);
    // The SDK sends StartSyncExecution to the `sync-` host prefix; a local endpoint has none of it.
    sfn = new SFNClient({
      endpoint: api.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      disableHostPrefix: true,
    });
  });
  afterEach(async () => {
    sfn.destroy();
    await api.close();
    await h.close();
  });

  const create = async (name: string, definition: object, type: 'EXPRESS' | 'STANDARD' = 'EXPRESS') =>
    (
      await sfn.send(
        new CreateStateMachineCommand({ name, definition: JSON.stringify(definition), roleArn: ROLE, type }),
      )
    ).stateMachineArn!;

  it('StartSyncExecution answers with the status, output and billing of the finished run', async () => {
    const machine = await create('drafts', draftAndClassify);
    const out = await sfn.send(
      new StartSyncExecutionCommand({ stateMachineArn: machine, input: JSON.stringify({ topic: 'a refund' }) }),
    );
    expect(out.status).toBe('SUCCEEDED');
    expect(JSON.parse(out.output!)).toEqual({ topic: 'a refund', draft: { text: 'About a refund' }, label: 'billing' });
    expect(out.outputDetails).toEqual({ included: true });
    expect(out.input).toBe('{"topic":"a refund"}');
    expect(out.executionArn).toMatch(EXPRESS_ARN);
    expect(out.stateMachineArn).toBe(machine);
    expect(out.startDate).toBeInstanceOf(Date);
    expect(out.stopDate).toBeInstanceOf(Date);
    expect(out.billingDetails?.billedMemoryUsedInMB).toBe(64);
    expect(out.billingDetails?.billedDurationInMilliseconds).toBeGreaterThanOrEqual(100);
    expect(out.billingDetails!.billedDurationInMilliseconds! % 100).toBe(0);
  });

  it('a failed express run still answers 200, with FAILED and the error and cause', async () => {
    const machine = await create('drafts', jsonpath({ Draft: { Type: 'Task', Resource: fn('explode'), End: true } }));
    const out = await sfn.send(new StartSyncExecutionCommand({ stateMachineArn: machine, input: '{}' }));
    expect(out.status).toBe('FAILED');
    expect(out.error).toBe('ModelRefused');
    expect(out.cause).toContain('the model refused');
    expect(out.output).toBeUndefined();
  });

  it('StartSyncExecution on a STANDARD machine is StateMachineTypeNotSupported', async () => {
    const machine = await create('standard', draftAndClassify, 'STANDARD');
    await expect(
      sfn.send(new StartSyncExecutionCommand({ stateMachineArn: machine, input: '{}' })),
    ).rejects.toMatchObject({
      name: 'StateMachineTypeNotSupported',
    });
    expect(h.count('draft')).toBe(0);
  });

  it('StartExecution on an EXPRESS machine runs asynchronously, under an express ARN, names not unique', async () => {
    const machine = await create('drafts', draftAndClassify);
    const first = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: machine, name: 'same', input: JSON.stringify({ topic: 'x' }) }),
    );
    const second = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: machine, name: 'same', input: JSON.stringify({ topic: 'y' }) }),
    );
    expect(first.executionArn).toMatch(EXPRESS_ARN);
    expect(second.executionArn).not.toBe(first.executionArn);
    await h.idle();
    expect(h.count('draft')).toBe(2);
    expect(h.count('classify')).toBe(2);
  });

  it('express runs are never written to the durable store', async () => {
    const machine = await create('drafts', draftAndClassify);
    await sfn.send(new StartSyncExecutionCommand({ stateMachineArn: machine, input: JSON.stringify({ topic: 'x' }) }));
    await sfn.send(new StartExecutionCommand({ stateMachineArn: machine, input: JSON.stringify({ topic: 'y' }) }));
    await h.idle();
    const db = new Database(join(h.dataDir, ENGINE_DB_FILE), { readonly: true });
    try {
      const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
      expect({ executions: count('executions'), events: count('events'), frames: count('frames') }).toEqual({
        executions: 0,
        events: 0,
        frames: 0,
      });
    } finally {
      db.close();
    }
  });

  it('Describe, history, stop and redrive of an express run, and listing an EXPRESS machine, get the service errors', async () => {
    const machine = await create('drafts', draftAndClassify);
    const { executionArn } = await sfn.send(
      new StartSyncExecutionCommand({ stateMachineArn: machine, input: JSON.stringify({ topic: 'x' }) }),
    );
    const invalidArn = {
      name: 'InvalidArn',
      message: "Invalid Arn: 'Resource type not valid in this context: express'",
    };
    await expect(sfn.send(new DescribeExecutionCommand({ executionArn }))).rejects.toMatchObject(invalidArn);
    await expect(sfn.send(new GetExecutionHistoryCommand({ executionArn }))).rejects.toMatchObject(invalidArn);
    await expect(sfn.send(new StopExecutionCommand({ executionArn }))).rejects.toMatchObject(invalidArn);
    await expect(sfn.send(new RedriveExecutionCommand({ executionArn }))).rejects.toMatchObject(invalidArn);
    await expect(sfn.send(new ListExecutionsCommand({ stateMachineArn: machine }))).rejects.toMatchObject({
      name: 'StateMachineTypeNotSupported',
      message: 'This operation is not supported by this type of state machine',
    });
  });

  it.each([
    [
      '.waitForTaskToken',
      'arn:aws:states:::lambda:invoke.waitForTaskToken',
      { FunctionName: fn('draft'), Payload: { 'token.$': '$$.Task.Token' } },
    ],
    [
      '.sync',
      'arn:aws:states:::states:startExecution.sync:2',
      { StateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:child' },
    ],
  ])('an EXPRESS machine with a %s Task is InvalidDefinition', async (suffix, resource, parameters) => {
    const definition = jsonpath({ Wait: { Type: 'Task', Resource: resource, Parameters: parameters, End: true } });
    await expect(create('callbacks', definition)).rejects.toMatchObject({
      name: 'InvalidDefinition',
      message: expect.stringContaining(`Express state machine does not support '${suffix}' service integration`),
    });
    // The same definition is fine for STANDARD, and ValidateStateMachineDefinition says FAIL for EXPRESS only.
    await expect(create('callbacks', definition, 'STANDARD')).resolves.toContain(':stateMachine:callbacks');
    const verdict = (type: 'EXPRESS' | 'STANDARD') =>
      sfn.send(new ValidateStateMachineDefinitionCommand({ definition: JSON.stringify(definition), type }));
    expect((await verdict('EXPRESS')).result).toBe('FAIL');
    expect((await verdict('STANDARD')).result).toBe('OK');
  });

  it('an express run is timed out at five minutes whatever its definition says', async () => {
    const machine = await create(
      'drafts',
      jsonpath({ Nap: { Type: 'Wait', Seconds: 600, End: true } }, { TimeoutSeconds: 3600 }),
    );
    // In process, so the run has started before the clock moves (a request over HTTP might not have).
    const pending = h.call('StartSyncExecution', { stateMachineArn: machine, input: '{}' });
    await h.idle();
    await h.clock.advance(seconds(299));
    let settled = false;
    void pending.finally(() => (settled = true));
    await h.idle();
    expect(settled).toBe(false);
    await h.clock.advance(seconds(2));
    const out = await pending;
    expect(out.status).toBe('TIMED_OUT');
    expect(out.error).toBe('States.Timeout');
  });

  it('an express run is not held to the 25,000-event quota of Standard histories (a 7,000-item inline Map, ~28,000 events)', async () => {
    // Step Functions guide, "Standard and Express": Express histories are not kept by the service, so the
    // history quota does not apply to them (FACTS.md).
    const machine = await create(
      'wide-map',
      jsonpath({
        Each: {
          Type: 'Map',
          ItemsPath: '$.items',
          ItemProcessor: { StartAt: 'Item', States: { Item: { Type: 'Pass', End: true } } },
          End: true,
        },
      }),
    );
    const items = Array.from({ length: 7_000 }, (_, i) => i);
    const out = await sfn.send(
      new StartSyncExecutionCommand({ stateMachineArn: machine, input: JSON.stringify({ items }) }),
    );
    expect({ status: out.status, cause: out.cause }).toEqual({ status: 'SUCCEEDED', cause: undefined });
    expect(JSON.parse(out.output!)).toHaveLength(7_000);
  }, 120_000);
});
