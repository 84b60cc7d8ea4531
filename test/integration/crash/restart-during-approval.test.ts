/**
 * Onboarding runs paused on the coordinator's approval survive an engine restart (stop, start on the same
 * data directory and port): the link issued before the restart still decides its run, the 5-day timeout
 * set before the restart still fires at its time (virtual clock, persisted), and the approval request is
 * not sent again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { days } from '@autosave/workflow/config';
import { clinicalTrialOnboarding } from '../../../statemachines';
import {
  approvalUrlOf,
  enteredStates,
  historyOf,
  postDecision,
  scheduledPerState,
  startWorkflowEngine,
  untilClosed,
  type WorkflowEngine,
} from '../workflows/support/workflow-engine';

let engine: WorkflowEngine;
beforeAll(async () => {
  engine = await startWorkflowEngine();
});
afterAll(async () => {
  await engine?.close();
});

describe('onboarding across an engine restart', () => {
  it('keeps paused runs paused: the old link approves one, the timeout of the other fires after the restart', async () => {
    const start = (siteId: string) =>
      engine.start(clinicalTrialOnboarding.name, `onboard-${siteId}`, {
        ...clinicalTrialOnboarding.exampleInput,
        siteId,
      });
    const approved = await start('site-6100');
    const expiring = await start('site-6200');
    const url = await approvalUrlOf(engine.sfn, approved);
    await approvalUrlOf(engine.sfn, expiring);
    // Two days pass before the restart: the timeout is due three days after it.
    await engine.advance(days(2));

    await engine.restart();

    for (const executionArn of [approved, expiring]) {
      expect((await engine.sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('RUNNING');
    }
    expect((await postDecision(url, 'approve', 'coordinator@site-6100.example.org')).status).toBe(200);
    expect((await untilClosed(engine.sfn, approved)).status).toBe('SUCCEEDED');

    await engine.advance(days(3));
    expect((await untilClosed(engine.sfn, expiring)).status).toBe('SUCCEEDED');
    expect(enteredStates(await historyOf(engine.sfn, expiring)).at(-1)).toBe('notify-approval-expired');

    // Each approval was requested once (the restart did not ask again), and each run sent its one email.
    for (const executionArn of [approved, expiring]) {
      expect(scheduledPerState(await historyOf(engine.sfn, executionArn))['coordinator-approval']).toBe(1);
    }
    const keys = (await engine.outbox()).map((e) => e.idempotencyKey);
    expect(keys.filter((k) => k.startsWith('approval:'))).toHaveLength(2);
    expect(keys.filter((k) => k.startsWith('site-6')).sort()).toEqual([
      'site-6100:welcome',
      'site-6200:approval-expired',
    ]);
  });
});
