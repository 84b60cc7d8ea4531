/**
 * Approval links on the real local engine: a `.waitForTaskToken` task invokes approval-request, the link
 * (emailed to the approver through the outbox) is served by the engine's port through the approval-endpoint
 * handler, a GET shows the page and decides nothing, a POST resumes the run with {approved, by, at, comment};
 * and a link whose run has since timed out says so.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seconds, LOCAL_CREDENTIALS } from '@autosave/workflow/config';
import { OutboxEmailProvider } from '@autosave/runtime/tools';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { eventually } from '../../fixtures/wait';
import { exampleApp } from '../../fixtures/example-app';

let dir: string;
let local: LocalEngine;
let sfn: SFNClient;
let stateMachineArn: string;

const definition = (timeoutSeconds: number) => ({
  QueryLanguage: 'JSONata',
  StartAt: 'CoordinatorApproval',
  States: {
    CoordinatorApproval: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
      TimeoutSeconds: timeoutSeconds,
      Arguments: {
        FunctionName: 'arn:aws:lambda:us-east-1:123456789012:function:autosave-approval-request',
        Payload: {
          workflow: 'approval-check',
          executionArn: '{% $states.context.Execution.Id %}',
          step: 'CoordinatorApproval',
          taskToken: '{% $states.context.Task.Token %}',
          timeoutSeconds,
          title: '{% "Approve " & $states.input.siteId %}',
          details: '{% $states.input %}',
          approvers: ['{% $states.input.coordinator %}'],
        },
      },
      End: true,
    },
  },
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'autosave-approvals-'));
  local = await startLocal({
    ...(await exampleApp()),
    port: 0,
    dataDir: join(dir, 'data'),
    deployWorkflows: false,
    console: false,
    virtualClock: true,
    log: () => {},
  });
  sfn = new SFNClient({ endpoint: local.url, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
  ({ stateMachineArn } = (await sfn.send(
    new CreateStateMachineCommand({
      name: 'approval-check',
      definition: JSON.stringify(definition(3600)),
      roleArn: 'arn:aws:iam::123456789012:role/local',
    }),
  )) as { stateMachineArn: string });
});
afterAll(async () => {
  sfn?.destroy();
  await local?.stop();
  await rm(dir, { recursive: true, force: true });
});

const outbox = () => new OutboxEmailProvider(local.environment.AUTOSAVE_OUTBOX_DIR!);
const linkFor = (coordinator: string) =>
  eventually(`the approval email to ${coordinator}`, async () => {
    const email = (await outbox().list()).find((e) => e.to.includes(coordinator));
    return email && /(http:\/\/\S+\/approvals\/\S+)/.exec(email.body)?.[1];
  });
const status = (executionArn: string) => sfn.send(new DescribeExecutionCommand({ executionArn }));

describe('approvals on the local engine', () => {
  it('GET shows the page without deciding; POST resumes the run with the decision; a second POST is refused', async () => {
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({
        stateMachineArn,
        name: 'site-4412',
        input: JSON.stringify({ siteId: 'site-4412', coordinator: 'coord@site-4412.example' }),
      }),
    );
    const link = await linkFor('coord@site-4412.example');
    expect(link.startsWith(`${local.url}/approvals/`)).toBe(true);

    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Approve site-4412');
    expect((await status(executionArn!)).status).toBe('RUNNING');

    const form = new URLSearchParams({ decision: 'approve', by: 'coord@site-4412.example', comment: 'Go' });
    const decided = await fetch(link, { method: 'POST', body: form });
    expect(decided.status).toBe(200);
    const done = await eventually('the run to succeed', async () => {
      const run = await status(executionArn!);
      return run.status === 'SUCCEEDED' ? run : undefined;
    });
    expect(JSON.parse(done.output!)).toMatchObject({ approved: true, by: 'coord@site-4412.example', comment: 'Go' });

    expect((await fetch(link, { method: 'POST', body: form })).status).toBe(409);
  });

  it('a link whose run timed out answers 410 and says the run is no longer waiting', async () => {
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({
        stateMachineArn,
        name: 'site-5000',
        input: JSON.stringify({ siteId: 'site-5000', coordinator: 'coord@site-5000.example' }),
      }),
    );
    const link = await linkFor('coord@site-5000.example');
    await local.clock!.advance(seconds(3601));
    await eventually('the run to time out', async () =>
      ['TIMED_OUT', 'FAILED'].includes((await status(executionArn!)).status!) ? true : undefined,
    );

    const late = await fetch(link, { method: 'POST', body: new URLSearchParams({ decision: 'approve', by: 'late' }) });
    expect(late.status).toBe(410);
    expect(await late.text()).toContain('no longer waiting');
  });
});
