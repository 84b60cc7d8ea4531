/**
 * 100 onboarding runs paused on their approvals at once: half are approved through their links (all at
 * once), the other half left to time out — one move of the virtual clock fires all 50 timeouts. Every
 * run ends on its own path with its one email.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { days } from '@autosave/workflow/config';
import { clinicalTrialOnboarding } from '../../../statemachines';
import {
  approvalUrlOf,
  enteredStates,
  eventually,
  executionsWith,
  historyOf,
  postDecision,
  startWorkflowEngine,
  type WorkflowEngine,
} from './support/workflow-engine';

const RUNS = 100;
/** ≈8 s alone; room for a loaded machine. */
const SCALE_DEADLINE_MILLIS = 150_000;
const siteIds = Array.from({ length: RUNS }, (_, i) => `site-s${String(i).padStart(3, '0')}`);

let engine: WorkflowEngine;
beforeAll(async () => {
  engine = await startWorkflowEngine();
});
afterAll(async () => {
  await engine?.close();
});

describe('approvals at scale', () => {
  it(
    'approves half through their links, times the other half out in one clock move',
    async () => {
      const stateMachineArn = engine.local.deployments.find(
        (d) => d.workflow === clinicalTrialOnboarding.name,
      )!.stateMachineArn;
      const runs = await Promise.all(
        siteIds.map((siteId) =>
          engine.start(clinicalTrialOnboarding.name, `onboard-${siteId}`, {
            ...clinicalTrialOnboarding.exampleInput,
            siteId,
          }),
        ),
      );
      const urls = await Promise.all(runs.map((executionArn) => approvalUrlOf(engine.sfn, executionArn)));
      expect(new Set(urls).size).toBe(RUNS);

      const approved = urls.filter((_, i) => i % 2 === 0);
      const answers = await Promise.all(approved.map((url) => postDecision(url, 'approve', 'coordinator@example.org')));
      expect(answers.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);

      await engine.advance(days(5));
      await eventually(
        'every run to close',
        async () => ((await executionsWith(engine.sfn, stateMachineArn, 'RUNNING')).length === 0 ? true : undefined),
        { timeoutMillis: SCALE_DEADLINE_MILLIS - 60_000 },
      );
      expect(await executionsWith(engine.sfn, stateMachineArn, 'SUCCEEDED')).toHaveLength(RUNS);

      const keys = new Set((await engine.outbox()).map((e) => e.idempotencyKey));
      siteIds.forEach((siteId, i) => {
        const expected = i % 2 === 0 ? `${siteId}:welcome` : `${siteId}:approval-expired`;
        const other = i % 2 === 0 ? `${siteId}:approval-expired` : `${siteId}:welcome`;
        expect(keys.has(expected), expected).toBe(true);
        expect(keys.has(other), other).toBe(false);
      });
      // Sampled: the timed-out runs took the declared timeout path.
      expect(enteredStates(await historyOf(engine.sfn, runs[1])).at(-1)).toBe('notify-approval-expired');
      expect(enteredStates(await historyOf(engine.sfn, runs[0])).at(-1)).toBe('schedule-kickoff');
    },
    SCALE_DEADLINE_MILLIS,
  );
});
