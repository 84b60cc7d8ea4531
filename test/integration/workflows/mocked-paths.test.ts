/**
 * Every example workflow's Retry or Catch path, tested the way Step Functions users test theirs: a mock
 * config (fixtures/mock-config.json, Step Functions Local's format) loaded by the local engine, and runs
 * started on `<aliasArn>#<TestCase>`. States a test case does not map run for real (hybrid runs).
 */
import { join } from 'node:path';
import {
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
  StartSyncExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION, seconds } from '../../../packages/workflow/src/config';
import { clinicalTrialOnboarding, contractRenewal, researchAgent, supportTriage } from '../../../statemachines';
import {
  enteredStates,
  historyOf,
  scheduledPerState,
  startWorkflowEngine,
  type WorkflowEngine,
} from './support/workflow-engine';

const MOCK_CONFIG = join(import.meta.dirname, 'fixtures', 'mock-config.json');

let engine: WorkflowEngine;
beforeAll(async () => {
  engine = await startWorkflowEngine({ mockConfigFile: MOCK_CONFIG });
});
afterAll(async () => {
  await engine?.close();
});

/** Starts `workflow` under `testCase` and moves the virtual clock through its retry backoffs until it closes. */
async function runCase(workflow: string, testCase: string, input: unknown, name: string) {
  const { executionArn } = await engine.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: `${engine.aliasArn(workflow)}#${testCase}`,
      name,
      input: JSON.stringify(input),
    }),
  );
  for (let i = 0; i < 40; i++) {
    const run = await engine.sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (run.status !== 'RUNNING') return { run, events: await historyOf(engine.sfn, executionArn!) };
    await engine.advance(seconds(60));
  }
  throw new Error(`${executionArn} did not close`);
}

describe('contract-renewal', () => {
  it('Retry: a model step failing once (Lambda.ServiceException) is retried, and the real send-email tool mails the mocked draft', async () => {
    const { run, events } = await runCase(
      'contract-renewal',
      'ModelUnavailableOnce',
      contractRenewal.exampleInput,
      'model-retry',
    );
    expect(run.status).toBe('SUCCEEDED');
    expect(scheduledPerState(events)).toEqual({ 'draft-renewal-email': 2, 'send-renewal-email': 1 });
    const sent = (await engine.outbox()).filter((m) => m.body === 'Dear customer, shall we renew?');
    expect(sent).toHaveLength(1);
  });

  it('Retry: a ToolRejectedError is not retried (MaxAttempts 0): the run fails at send-renewal-email after one attempt', async () => {
    const { run, events } = await runCase(
      'contract-renewal',
      'SendRejected',
      contractRenewal.exampleInput,
      'send-rejected',
    );
    expect(run).toMatchObject({
      status: 'FAILED',
      error: 'ToolRejectedError',
      cause: 'The mail provider refused the recipient.',
    });
    expect(scheduledPerState(events)).toEqual({ 'draft-renewal-email': 1, 'send-renewal-email': 1 });
  });
});

describe('clinical-trial-onboarding', () => {
  it('Catch: an approval that times out (States.Timeout, not retried) is caught to notify-approval-expired', async () => {
    const { run, events } = await runCase(
      'clinical-trial-onboarding',
      'ApprovalExpired',
      clinicalTrialOnboarding.exampleInput,
      'approval-expired',
    );
    expect(run.status).toBe('SUCCEEDED');
    expect(enteredStates(events)).toEqual([
      'Start',
      'verify-site',
      'create-accounts',
      'request-irb-document',
      'coordinator-approval',
      'notify-approval-expired',
    ]);
    expect(scheduledPerState(events)['coordinator-approval']).toBe(1);
    // The mocked wait for the approval's token is recorded as AWS records the real one.
    expect(events.map((e) => e.type)).toContain('TaskSubmitted');
  });
});

describe('research-agent', () => {
  it('Retry: a model turn that finds its lease held (IdempotencyInProgressError) is retried and the loop ends on the final answer', async () => {
    const { run, events } = await runCase('research-agent', 'LeaseHeldOnce', researchAgent.exampleInput, 'lease-held');
    expect(run.status).toBe('SUCCEEDED');
    expect(scheduledPerState(events)).toEqual({ research: 2 });
    expect(enteredStates(events).at(-1)).toBe('Done');
  });
});

describe('support-triage', () => {
  it('Retry: a throttled classify-message (twice) answers on its third attempt, in a StartSyncExecution of the EXPRESS machine', async () => {
    // StartSyncExecution's `sync-` host prefix cannot reach a local endpoint: the client turns it off.
    const sfn = new SFNClient({
      endpoint: engine.local.url,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      disableHostPrefix: true,
    });
    let answered = false;
    const answer = sfn
      .send(
        new StartSyncExecutionCommand({
          stateMachineArn: `${engine.aliasArn('support-triage')}#ThrottledTwice`,
          input: JSON.stringify(supportTriage.exampleInput),
        }),
      )
      .finally(() => (answered = true));
    // The two retry backoffs pass on the virtual clock while the caller waits.
    for (let i = 0; i < 40 && !answered; i++) await engine.advance(seconds(60));
    const run = await answer;
    sfn.destroy();
    expect(run.status).toBe('SUCCEEDED');
    // The third response (numbers 0-1 throw, 2 returns) is the one the run kept.
    expect(JSON.parse(run.output!).steps['classify-message']).toEqual({ label: 'billing' });
  });
});
