/**
 * A deploy while onboarding runs wait on their approvals: a new definition of the workflow (same name, a
 * changed welcome email) is published and the `live` alias moves to it. The run that was waiting finishes
 * on the definition it started on; a run started after the deploy uses the new one.
 */
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineWorkflow, tool } from '@autosave/workflow';
import { clinicalTrialOnboarding } from '../../../statemachines';
import {
  approvalUrlOf,
  postDecision,
  startWorkflowEngine,
  untilClosed,
  type WorkflowEngine,
} from './support/workflow-engine';

const SITE_NAME = String(clinicalTrialOnboarding.exampleInput?.siteName);
const NEW_SUBJECT_PREFIX = 'You are live on the trial';

/** The onboarding as the next release ships it: the welcome email says something else. */
const nextRelease = defineWorkflow({
  ...clinicalTrialOnboarding,
  version: '1.1.0',
  steps: clinicalTrialOnboarding.steps.map((step) =>
    step.name === 'email-welcome-pack'
      ? tool('email-welcome-pack', {
          tool: 'send-email',
          idempotencyKey: '{siteId}:welcome',
          input: {
            to: '{coordinatorEmail}',
            subject: `${NEW_SUBJECT_PREFIX}, {siteName}`,
            body: 'Site {siteId}: accounts and EDC access are ready.',
          },
        })
      : step,
  ),
});

let engine: WorkflowEngine;
beforeAll(async () => {
  engine = await startWorkflowEngine();
});
afterAll(async () => {
  await engine?.close();
});

describe('a deploy while runs wait on approvals', () => {
  it('finishes the waiting run on its own version and starts new runs on the new one', async () => {
    const start = (siteId: string) =>
      engine.start(clinicalTrialOnboarding.name, `onboard-${siteId}`, {
        ...clinicalTrialOnboarding.exampleInput,
        siteId,
      });
    const before = await start('site-1100');
    const beforeUrl = await approvalUrlOf(engine.sfn, before);

    const deployment = await engine.deploy(nextRelease);
    expect(deployment.change).toBe('updated');
    const after = await start('site-1200');
    const afterUrl = await approvalUrlOf(engine.sfn, after);

    const [oldRun, newRun] = await Promise.all(
      [before, after].map((executionArn) => engine.sfn.send(new DescribeExecutionCommand({ executionArn }))),
    );
    expect(oldRun.stateMachineVersionArn).not.toBe(newRun.stateMachineVersionArn);
    expect(newRun.stateMachineVersionArn).toBe(deployment.versionArn);

    for (const url of [beforeUrl, afterUrl])
      expect((await postDecision(url, 'approve', 'coordinator@example.org')).status).toBe(200);
    for (const executionArn of [before, after])
      expect((await untilClosed(engine.sfn, executionArn)).status).toBe('SUCCEEDED');

    const subjectOf = async (key: string) => (await engine.outbox()).find((e) => e.idempotencyKey === key)?.subject;
    expect(await subjectOf('site-1100:welcome')).toBe(`Welcome to the trial, ${SITE_NAME}`);
    expect(await subjectOf('site-1200:welcome')).toBe(`${NEW_SUBJECT_PREFIX}, ${SITE_NAME}`);
  });
});
