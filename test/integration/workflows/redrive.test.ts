/**
 * Redrive, whole: the onboarding's `provision-edc-access` fails permanently (its provider is down) after
 * the coordinator approved; retries run out on the virtual clock and the run FAILS at that step; the
 * run-monitor puts one message on the engine's DLQ (received here with @aws-sdk/client-sqs); once the
 * cause is fixed the redrive handler takes that message and the run resumes at the failed step — no earlier
 * step (nor the approval) runs again — and SUCCEEDS with redriveCount 1.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { DeleteMessageCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localFunctionName } from '@autosave/runtime/handlers';
import { MAX_ATTEMPTS } from '@autosave/workflow/config';
import type { DeadLetterMessage } from '@autosave/runtime/dead-letters';
import { clinicalTrialOnboarding } from '../../../statemachines';
import { faultLog, setFaultPlan } from './fixtures/fault-functions';
import {
  approvalUrlOf,
  eventually,
  historyOf,
  postDecision,
  scheduledPerState,
  startWorkflowEngine,
  untilClosed,
  type WorkflowEngine,
} from './support/workflow-engine';

const FAULT_FUNCTIONS = new URL('./fixtures/fault-functions.ts', import.meta.url).pathname;
const FAILING_STEP = 'provision-edc-access';
const BEFORE = ['verify-site', 'create-accounts', 'request-irb-document'] as const;
const AFTER = ['email-welcome-pack', 'schedule-kickoff'] as const;

let engine: WorkflowEngine;
let providerFixed = false;
beforeAll(async () => {
  setFaultPlan({ providerDown: (e) => e.step === FAILING_STEP && !providerFixed });
  engine = await startWorkflowEngine({ functionsModule: FAULT_FUNCTIONS });
});
afterAll(async () => {
  setFaultPlan({});
  await engine?.close();
});

/** Receives what is on the DLQ now (no wait). */
async function receiveDeadLetters(): Promise<Message[]> {
  const out = await engine.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: engine.local.endpoints.dlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
  );
  return out.Messages ?? [];
}

/** Entries a recording fake tool keeps (one file per idempotency key). */
async function actionsOf(tool: string): Promise<number> {
  const names = await readdir(join(engine.dataDir, 'actions', tool)).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith('.json')).length;
}

describe('a failed onboarding: dead letter, fix, redrive', () => {
  it('fails at the step, is dead-lettered once, and the redrive resumes it there without re-running earlier steps', async () => {
    const input = { ...clinicalTrialOnboarding.exampleInput, siteId: 'site-9001' };
    const executionArn = await engine.start(clinicalTrialOnboarding.name, 'onboard-site-9001', input);
    expect(
      (
        await postDecision(
          await approvalUrlOf(engine.sfn, executionArn),
          'approve',
          'coordinator@site-9001.example.org',
        )
      ).status,
    ).toBe(200);

    // Every retry fails too; their backoff passes on the virtual clock.
    const failed = await eventually('the run to fail', async () => {
      await engine.advance({ seconds: 60 });
      const run = await engine.sfn.send(new DescribeExecutionCommand({ executionArn }));
      return run.status === 'RUNNING' ? undefined : run;
    });
    expect(failed).toMatchObject({ status: 'FAILED', error: 'ProviderDown' });
    expect(faultLog().toolInvocations.get(FAILING_STEP)).toBe(1 + MAX_ATTEMPTS);

    // One dead letter, with what an operator needs to redrive.
    const letters = await eventually('the dead letter', async () => {
      const received = await receiveDeadLetters();
      return received.length > 0 ? received : undefined;
    });
    expect(letters).toHaveLength(1);
    const letter = JSON.parse(letters[0].Body!) as DeadLetterMessage;
    expect(letter).toMatchObject({
      executionArn,
      workflow: clinicalTrialOnboarding.name,
      status: 'FAILED',
      error: 'ProviderDown',
      failedState: FAILING_STEP,
      redriveCount: 0,
    });

    // The operator fixes the provider; the redrive handler takes the message, as the DLQ's event source would.
    providerFixed = true;
    const sqsEvent = { Records: [{ messageId: letters[0].MessageId!, body: letters[0].Body! }] };
    const redriven = await engine.local.lambdas.invoke({
      functionName: localFunctionName('redrive'),
      payload: sqsEvent,
    });
    expect(redriven.functionError).toBeUndefined();
    expect(redriven.payload).toEqual({ batchItemFailures: [] });
    await engine.sqs.send(
      new DeleteMessageCommand({ QueueUrl: engine.local.endpoints.dlqUrl, ReceiptHandle: letters[0].ReceiptHandle! }),
    );

    const done = await untilClosed(engine.sfn, executionArn);
    expect(done.status).toBe('SUCCEEDED');
    expect(done.redriveCount).toBe(1);

    // Earlier steps and the approval ran once (history), their tools acted once (invocations and action logs).
    const events = await historyOf(engine.sfn, executionArn);
    expect(events.filter((e) => e.type === 'ExecutionRedriven')).toHaveLength(1);
    const scheduled = scheduledPerState(events);
    for (const step of [...BEFORE, 'coordinator-approval', ...AFTER]) expect(scheduled[step], step).toBe(1);
    expect(scheduled[FAILING_STEP]).toBe(1 + MAX_ATTEMPTS + 1);
    for (const step of BEFORE) {
      expect(faultLog().toolInvocations.get(step), step).toBe(1);
      expect(await actionsOf(step), step).toBe(1);
    }
    expect(faultLog().toolInvocations.get(FAILING_STEP)).toBe(1 + MAX_ATTEMPTS + 1);
    expect(await actionsOf(FAILING_STEP)).toBe(1);
    // The coordinator was asked once, and welcomed once.
    const outbox = await engine.outbox();
    expect(outbox.filter((e) => e.idempotencyKey.startsWith('approval:'))).toHaveLength(1);
    expect(outbox.filter((e) => e.idempotencyKey === 'site-9001:welcome')).toHaveLength(1);

    // A succeeded run leaves nothing on the DLQ, and the same letter redelivered does not redrive again.
    expect(await receiveDeadLetters()).toHaveLength(0);
    const again = await engine.local.lambdas.invoke({ functionName: localFunctionName('redrive'), payload: sqsEvent });
    expect(again.payload).toEqual({ batchItemFailures: [] });
    expect((await engine.sfn.send(new DescribeExecutionCommand({ executionArn }))).redriveCount).toBe(1);
  });
});
