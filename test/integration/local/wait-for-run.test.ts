/**
 * The engine's wait for a run (issue 34, Deliver 3): `GET /_autosave/wait` answers DescribeExecution's
 * shape the moment the run's close is committed — one request where polling costs one per poll and sees
 * the close a poll late — or after waitSeconds with the run still RUNNING; a missing run is the service's
 * ExecutionDoesNotExist. The client (waitForRunToClose) is what the CLI and the test environment use.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateStateMachineCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { WAIT_ROUTE } from '../../../packages/local/src/api/server';
import { RunWaitError, waitForRunToClose } from '../../../packages/local/src/api/wait-for-run';
import { jsonataMachine, sfnClient } from './sfn-helpers';
import { eventually } from '../../fixtures/wait';

const ROLE = 'arn:aws:iam::123456789012:role/test';
const tokens = new Map<string, string>();
const functions = {
  park: async (event: { token: string; run: string }) => {
    tokens.set(event.run, event.token);
    return {};
  },
};
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

describe('the wait for a run', () => {
  let dataDir: string;
  let local: LocalEngine;
  let sfn: SFNClient;
  let parkArn: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'autosave-wait-'));
    local = await startLocal({ port: 0, dataDir, functions, deployWorkflows: false, console: false, log: () => {} });
    sfn = sfnClient(local.url);
    parkArn = (await sfn.send(new CreateStateMachineCommand({ name: 'park', definition: parkMachine, roleArn: ROLE })))
      .stateMachineArn!;
  });
  afterAll(async () => {
    sfn?.destroy();
    await local?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const wait = (executionArn: string, waitSeconds: number) =>
    fetch(`${local.url}${WAIT_ROUTE}?executionArn=${encodeURIComponent(executionArn)}&waitSeconds=${waitSeconds}`);

  it('answers the moment the run closes, in one request, with the DescribeExecution shape', async () => {
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: parkArn, name: 'closes', input: '{"a":1}' }),
    );
    const token = await eventually('the task token', () => tokens.get('closes'));
    const answered = wait(executionArn!, 30).then(async (res) => ({
      at: performance.now(),
      status: res.status,
      body: (await res.json()) as Record<string, unknown>,
    }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sent = performance.now();
    await sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: '{"ok":true}' }));
    const { at, status, body } = await answered;
    expect(status).toBe(200);
    expect(body).toMatchObject({ executionArn, status: 'SUCCEEDED', input: '{"a":1}', output: '{"ok":true}' });
    expect(typeof body.stopDate).toBe('number');
    // Held until the close (not answered at once), then answered well within a second of it.
    expect(at).toBeGreaterThan(sent);
    expect(at - sent).toBeLessThan(1_000);
  });

  it('answers RUNNING after waitSeconds when the run is still open, at once when it is closed', async () => {
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: parkArn, name: 'stays-open' }),
    );
    await eventually('the task token', () => tokens.get('stays-open'));
    const t = performance.now();
    const open = (await (await wait(executionArn!, 0.2)).json()) as { status: string };
    expect(open.status).toBe('RUNNING');
    expect(performance.now() - t).toBeGreaterThanOrEqual(190);
    await sfn.send(new SendTaskSuccessCommand({ taskToken: tokens.get('stays-open')!, output: '{}' }));
    expect(await waitForRunToClose(local.url, executionArn!, 5_000)).toBe('SUCCEEDED');
    const t2 = performance.now();
    expect(((await (await wait(executionArn!, 30)).json()) as { status: string }).status).toBe('SUCCEEDED');
    expect(performance.now() - t2).toBeLessThan(1_000);
  });

  it('refuses a missing run and a bad waitSeconds as the service would', async () => {
    const missing = `${parkArn.replace(':stateMachine:', ':execution:')}:nobody`;
    const res = await wait(missing, 1);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { __type: string }).__type).toBe('ExecutionDoesNotExist');
    await expect(waitForRunToClose(local.url, missing, 1_000)).rejects.toSatisfy(
      (e: unknown) => e instanceof RunWaitError && e.name === 'ExecutionDoesNotExist',
    );
    expect((await wait(missing, 61)).status).toBe(400);
    expect((await wait(missing, Number.NaN)).status).toBe(400);
  });

  it('says undefined where no engine serves the wait, for the caller to poll', async () => {
    const { createServer } = await import('node:http');
    const other = createServer((_req, res) => res.writeHead(404).end('{}')).listen(0, '127.0.0.1');
    await new Promise((resolve) => other.once('listening', resolve));
    const port = (other.address() as { port: number }).port;
    try {
      expect(await waitForRunToClose(`http://127.0.0.1:${port}`, 'arn:x', 1_000)).toBeUndefined();
    } finally {
      other.close();
    }
  });
});
