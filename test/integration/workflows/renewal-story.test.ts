/**
 * THE RENEWAL STORY: "a renewal agent once emailed 340 customers twice because it sent before it
 * checkpointed". 340 contract-renewal runs (distinct contracts) on the local engine with the real
 * compiled workflow; the first send attempt of every run dies AFTER the provider accepted the email and
 * BEFORE the step's result was recorded (the Lambda is timed out with the claim in progress). The engine
 * retries with backoff on the virtual clock; each retry finds the expired claim, reconciles with the
 * provider, and returns the first send's receipt without sending again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DescribeExecutionCommand, type ExecutionStatus } from '@aws-sdk/client-sfn';
import { minutes } from '@autosave/workflow/config';
import { contractRenewal } from '../../../statemachines';
import { faultLog, setFaultPlan } from './fixtures/fault-functions';
import { contractIdsFrom, renewalInput, renewalKey, renewalRunName } from './support/renewal-runs';
import {
  eventually,
  executionsWith as listExecutionsWith,
  historyOf,
  startWorkflowEngine,
  type WorkflowEngine,
} from './support/workflow-engine';

const RUNS = 340;
/** ≈16 s alone on 2 cores; the bound leaves room for a loaded machine (a bound, not a timing assertion). */
const STORY_DEADLINE_MILLIS = 150_000;
const FAULT_FUNCTIONS = new URL('./fixtures/fault-functions.ts', import.meta.url).pathname;
const SEND_STEP = 'send-renewal-email';

const contractIds = contractIdsFrom(10_000, RUNS);
const keyOf = renewalKey;

let engine: WorkflowEngine;
beforeAll(async () => {
  setFaultPlan({ dieAfterSend: (key) => key.startsWith('renewal:') });
  engine = await startWorkflowEngine({ functionsModule: FAULT_FUNCTIONS });
});
afterAll(async () => {
  setFaultPlan({});
  await engine?.close();
});

/** Every renewal run with that status. */
const executionsWith = (status: ExecutionStatus) =>
  listExecutionsWith(
    engine.sfn,
    engine.local.deployments.find((d) => d.workflow === contractRenewal.name)!.stateMachineArn,
    status,
  );

describe('the renewal story: 340 sends that died before their checkpoint', () => {
  it(
    'every run succeeds and every customer gets exactly one email',
    async () => {
      const executionArns = await Promise.all(
        contractIds.map((contractId) =>
          engine.start(contractRenewal.name, renewalRunName(contractId), renewalInput(contractId)),
        ),
      );
      expect(new Set(executionArns).size).toBe(RUNS);

      // Every first send is accepted by the provider and then its attempt dies (real seconds: the Lambda timeout).
      // Retries wait out their backoff on the virtual clock: move it until every run has closed. (On a loaded
      // machine an attempt can also time out before it sends: it then never sends, as on Lambda, and a retry does.)
      await eventually(
        'every run to close',
        async () => {
          await engine.advance(minutes(1));
          const running = await executionsWith('RUNNING');
          return running.length === 0 ? true : undefined;
        },
        { timeoutMillis: STORY_DEADLINE_MILLIS - 30_000 },
      );

      expect(await executionsWith('SUCCEEDED')).toHaveLength(RUNS);
      expect(await executionsWith('FAILED')).toHaveLength(0);

      // The outbox: exactly 340 emails, one per renewal key.
      const outbox = await engine.outbox();
      expect(outbox).toHaveLength(RUNS);
      expect(outbox.map((e) => e.idempotencyKey).sort()).toEqual(contractIds.map(keyOf).sort());

      // The decisive count (the outbox honours keys too, so it alone would hide a second send): the provider
      // was asked to send once per key, and every retry reconciled instead of sending.
      const log = faultLog();
      expect([...log.sends].filter(([, n]) => n !== 1)).toEqual([]);
      expect([...log.sends.keys()].sort()).toEqual(contractIds.map(keyOf).sort());
      expect(log.reconciles.size).toBe(RUNS);
      // Each run drafted its email once: the retried send reused the recorded draft.
      expect(log.modelCalls.size).toBe(RUNS);
      expect([...log.modelCalls].filter(([, n]) => n !== 1)).toEqual([]);

      // Every run really failed at the send once and was retried (sampled histories, and the run's result
      // is the first send's receipt).
      for (const executionArn of executionArns.filter((_, i) => i % 34 === 0)) {
        const events = await historyOf(engine.sfn, executionArn);
        const failures = events.filter((e) => e.type === 'TaskFailed').map((e) => e.taskFailedEventDetails?.error);
        expect(failures).toContain('Sandbox.Timedout');
        // Only the dead attempt's timeout, and (on a loaded machine) attempts that timed out before sending or
        // waited for the dead attempt's lease.
        expect(
          failures.filter((error) => error !== 'Sandbox.Timedout' && error !== 'IdempotencyInProgressError'),
        ).toEqual([]);
        const run = await engine.sfn.send(new DescribeExecutionCommand({ executionArn }));
        const output = JSON.parse(run.output!) as {
          input: { contractId: string };
          steps: Record<string, { messageId: string }>;
        };
        const email = outbox.find((e) => e.idempotencyKey === keyOf(output.input.contractId))!;
        expect(output.steps[SEND_STEP].messageId).toBe(email.messageId);
      }
      expect(log.toolInvocations.get(SEND_STEP)).toBeGreaterThanOrEqual(2 * RUNS);
    },
    STORY_DEADLINE_MILLIS,
  );

  it('a fresh run for a contract version already emailed succeeds without emailing again', async () => {
    const contractId = contractIds[7];
    const executionArn = await engine.start(
      contractRenewal.name,
      renewalRunName(contractId, '-again'),
      renewalInput(contractId),
    );
    const run = await eventually('the second run to close', async () => {
      const r = await engine.sfn.send(new DescribeExecutionCommand({ executionArn }));
      return r.status === 'RUNNING' ? undefined : r;
    });
    expect(run.status).toBe('SUCCEEDED');
    const outbox = await engine.outbox();
    expect(outbox).toHaveLength(RUNS);
    const output = JSON.parse(run.output!) as { steps: Record<string, { messageId: string }> };
    expect(output.steps[SEND_STEP].messageId).toBe(
      outbox.find((e) => e.idempotencyKey === keyOf(contractId))!.messageId,
    );
    expect(faultLog().sends.get(keyOf(contractId))).toBe(1);
  });
});
