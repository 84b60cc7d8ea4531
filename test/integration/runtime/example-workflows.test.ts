/**
 * The three example workflows (statemachines/) run on the local engine through the runtime's Lambdas with
 * their example inputs: the scripted model drafts the renewal and drives the research agent, the outbox
 * records each email once, and the onboarding run waits for its coordinator's approval link.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEmailProvider } from '@autosave/runtime/tools';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { clinicalTrialOnboarding, contractRenewal, researchAgent } from '../../../statemachines';
import { LOCAL_CREDENTIALS } from '@autosave/workflow/config';
import { eventually } from '../../fixtures/wait';
import { exampleApp } from '../../fixtures/example-app';

let dir: string;
let local: LocalEngine;
let sfn: SFNClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'autosave-examples-'));
  local = await startLocal({
    ...(await exampleApp()),
    port: 0,
    dataDir: join(dir, 'data'),
    console: false,
    log: () => {},
  });
  sfn = new SFNClient({ endpoint: local.url, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
});
afterAll(async () => {
  sfn?.destroy();
  await local?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function start(workflow: string, input: unknown, name: string): Promise<string> {
  const aliasArn = local.deployments.find((d) => d.workflow === workflow)!.aliasArn;
  return (await sfn.send(new StartExecutionCommand({ stateMachineArn: aliasArn, name, input: JSON.stringify(input) })))
    .executionArn!;
}

const closed = (executionArn: string) =>
  eventually(`${executionArn} to close`, async () => {
    const run = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    return run.status === 'RUNNING' ? undefined : run;
  });
const outbox = () => new OutboxEmailProvider(local.environment.AUTOSAVE_OUTBOX_DIR!);

describe('example workflows on the local engine', () => {
  it('contract-renewal: the recorded draft is sent once under renewal:{contractId}:{version}', async () => {
    const input = contractRenewal.exampleInput!;
    const run = await closed(await start('contract-renewal', input, 'renewal-1'));
    expect(run.status).toBe('SUCCEEDED');
    // A second run for the same contract version does not email the customer again.
    expect((await closed(await start('contract-renewal', input, 'renewal-2'))).status).toBe('SUCCEEDED');
    const sent = (await outbox().list()).filter(
      (e) => e.idempotencyKey === `renewal:${input.contractId}:${input.version}`,
    );
    expect(sent).toHaveLength(1);
    expect(sent[0].body).toContain('renewal');
  });

  it('research-agent: the scripted model calls tools over three turns and gives a final answer', async () => {
    const run = await closed(await start('research-agent', researchAgent.exampleInput, 'research-1'));
    expect(run.status).toBe('SUCCEEDED');
    expect(run.output).toContain('Final answer');
  });

  it('clinical-trial-onboarding: waits for the coordinator, then sends the welcome pack once', async () => {
    const input = clinicalTrialOnboarding.exampleInput as { siteId: string; coordinatorEmail: string };
    const executionArn = await start('clinical-trial-onboarding', input, input.siteId);
    const link = await eventually('the approval email', async () => {
      const email = (await outbox().list()).find((e) => e.idempotencyKey.startsWith('approval:'));
      return email && /(http:\/\/\S+\/approvals\/\S+)/.exec(email.body)?.[1];
    });
    expect(
      (
        await fetch(link, {
          method: 'POST',
          body: new URLSearchParams({ decision: 'approve', by: input.coordinatorEmail }),
        })
      ).status,
    ).toBe(200);
    const run = await closed(executionArn);
    expect(run.status).toBe('SUCCEEDED');
    expect((await outbox().list()).filter((e) => e.idempotencyKey === `${input.siteId}:welcome`)).toHaveLength(1);
  });
});
