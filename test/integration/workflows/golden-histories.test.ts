/**
 * Golden histories of each example workflow's happy path (and the onboarding's rejection and timeout
 * paths), run for real on the local engine: the (event type, state) sequence of GetExecutionHistory must
 * equal test/fixtures/history/<workflow>[.<path>].history.json.
 * Regenerate with `UPDATE_GOLDEN=1 npx vitest run test/integration/workflows/golden-histories.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { days } from '@autosave/workflow/config';
import { clinicalTrialOnboarding, contractRenewal, researchAgent } from '../../../statemachines';
import { goldenEvents, goldenFor } from './support/golden-history';
import {
  approvalUrlOf,
  historyOf,
  postDecision,
  startWorkflowEngine,
  untilClosed,
  type WorkflowEngine,
} from './support/workflow-engine';

let engine: WorkflowEngine;
beforeAll(async () => {
  engine = await startWorkflowEngine();
});
afterAll(async () => {
  await engine?.close();
});

/** Each workflow's happy path (and the onboarding's other two): start, do what a user does, wait for the end. */
const paths: { workflow: string; path?: string; run(): Promise<string> }[] = [
  {
    workflow: clinicalTrialOnboarding.name,
    async run() {
      const executionArn = await engine.start(
        clinicalTrialOnboarding.name,
        'golden-onboarding',
        clinicalTrialOnboarding.exampleInput,
      );
      const decided = await postDecision(
        await approvalUrlOf(engine.sfn, executionArn),
        'approve',
        'coordinator@site-4412.example.org',
      );
      expect(decided.status).toBe(200);
      return executionArn;
    },
  },
  {
    workflow: clinicalTrialOnboarding.name,
    path: 'rejected',
    async run() {
      const executionArn = await engine.start(clinicalTrialOnboarding.name, 'golden-onboarding-rejected', {
        ...clinicalTrialOnboarding.exampleInput,
        siteId: 'site-0002',
      });
      const decided = await postDecision(
        await approvalUrlOf(engine.sfn, executionArn),
        'reject',
        'coordinator@site-4412.example.org',
      );
      expect(decided.status).toBe(200);
      return executionArn;
    },
  },
  {
    workflow: clinicalTrialOnboarding.name,
    path: 'approval-expired',
    async run() {
      const executionArn = await engine.start(clinicalTrialOnboarding.name, 'golden-onboarding-expired', {
        ...clinicalTrialOnboarding.exampleInput,
        siteId: 'site-0003',
      });
      await approvalUrlOf(engine.sfn, executionArn);
      await engine.advance(days(5));
      return executionArn;
    },
  },
  {
    workflow: contractRenewal.name,
    run: () => engine.start(contractRenewal.name, 'golden-renewal', contractRenewal.exampleInput),
  },
  {
    workflow: researchAgent.name,
    run: () => engine.start(researchAgent.name, 'golden-research', researchAgent.exampleInput),
  },
];

describe('golden histories of the example workflows', () => {
  for (const path of paths) {
    it(`${path.workflow}: the ${path.path ?? 'happy'} path's history matches its golden`, async () => {
      const executionArn = await path.run();
      const done = await untilClosed(engine.sfn, executionArn);
      expect(done.status).toBe('SUCCEEDED');
      const actual = goldenEvents(await historyOf(engine.sfn, executionArn));
      const golden = await goldenFor(path.workflow, actual, path.path);
      expect(actual).toEqual(golden.events);
      // The golden is a real run: it starts and ends as one.
      expect(actual[0]).toEqual({ type: 'ExecutionStarted' });
      expect(actual.at(-1)).toEqual({ type: 'ExecutionSucceeded' });
    });
  }
});
