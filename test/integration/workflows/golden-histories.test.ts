/**
 * Golden histories of each example workflow's happy path, run for real on the local engine: the
 * (event type, state) sequence of GetExecutionHistory must equal test/fixtures/history/<workflow>.history.json.
 * Regenerate with `UPDATE_GOLDEN=1 npx vitest run test/integration/workflows/golden-histories.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clinicalTrialOnboarding, contractRenewal, researchAgent } from '../../../statemachines';
import { goldenEvents, goldenFor } from './support/golden-history';
import { approvalUrlOf, historyOf, postDecision, startWorkflowEngine, untilClosed, type WorkflowEngine } from './support/workflow-engine';

let engine: WorkflowEngine;
beforeAll(async () => {
  engine = await startWorkflowEngine();
});
afterAll(async () => {
  await engine?.close();
});

/** Each workflow's happy path: start with its example input, do what a user does, wait for the end. */
const happyPaths: { workflow: string; run(): Promise<string> }[] = [
  {
    workflow: clinicalTrialOnboarding.name,
    async run() {
      const executionArn = await engine.start(clinicalTrialOnboarding.name, 'golden-onboarding', clinicalTrialOnboarding.exampleInput);
      const decided = await postDecision(await approvalUrlOf(engine.sfn, executionArn), 'approve', 'coordinator@site-4412.example.org');
      expect(decided.status).toBe(200);
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
  for (const path of happyPaths) {
    it(`${path.workflow}: the happy path's history matches its golden`, async () => {
      const executionArn = await path.run();
      const done = await untilClosed(engine.sfn, executionArn);
      expect(done.status).toBe('SUCCEEDED');
      const actual = goldenEvents(await historyOf(engine.sfn, executionArn));
      const golden = await goldenFor(path.workflow, actual);
      expect(actual).toEqual(golden.events);
      // The golden is a real run: it starts and ends as one.
      expect(actual[0]).toEqual({ type: 'ExecutionStarted' });
      expect(actual.at(-1)).toEqual({ type: 'ExecutionSucceeded' });
    });
  }
});
