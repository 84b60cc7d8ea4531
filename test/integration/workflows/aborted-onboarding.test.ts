/**
 * An operator stops an onboarding that waits on its approval (StopExecution): the run is ABORTED and
 * dead-lettered, its link no longer decides anything; redriven (Step Functions redrives ABORTED runs too),
 * it asks for the approval again with a new link and completes — earlier steps not re-run.
 */
import { DescribeExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localFunctionName } from '@autosave/runtime/handlers';
import type { DeadLetterMessage } from '@autosave/runtime/dead-letters';
import { clinicalTrialOnboarding } from '../../../statemachines';
import {
  approvalUrlIn,
  approvalUrlOf,
  eventually,
  historyOf,
  postDecision,
  scheduledPerState,
  startWorkflowEngine,
  untilClosed,
  untilStatus,
  type WorkflowEngine,
} from './support/workflow-engine';

let engine: WorkflowEngine;
beforeAll(async () => {
  engine = await startWorkflowEngine();
});
afterAll(async () => {
  await engine?.close();
});

describe('a stopped onboarding', () => {
  it('is dead-lettered as ABORTED, its link goes stale, and a redrive asks again and completes', async () => {
    const executionArn = await engine.start(clinicalTrialOnboarding.name, 'onboard-site-4040', {
      ...clinicalTrialOnboarding.exampleInput,
      siteId: 'site-4040',
    });
    const firstUrl = await approvalUrlOf(engine.sfn, executionArn);

    await engine.sfn.send(
      new StopExecutionCommand({ executionArn, error: 'OperatorStop', cause: 'wrong coordinator on file' }),
    );
    expect((await untilStatus(engine.sfn, executionArn, ['ABORTED'])).status).toBe('ABORTED');

    const letters = await eventually('the dead letter', async () => {
      const out = await engine.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: engine.local.endpoints.dlqUrl, MaxNumberOfMessages: 10 }),
      );
      return out.Messages?.length ? out.Messages : undefined;
    });
    expect(letters).toHaveLength(1);
    expect(JSON.parse(letters[0].Body!) as DeadLetterMessage).toMatchObject({
      executionArn,
      status: 'ABORTED',
      redriveCount: 0,
    });

    const stale = await postDecision(firstUrl, 'approve', 'coordinator@site-4040.example.org');
    expect(stale.status).toBe(410);

    const redriven = await engine.local.lambdas.invoke({
      functionName: localFunctionName('redrive'),
      payload: { Records: [{ messageId: letters[0].MessageId!, body: letters[0].Body! }] },
    });
    expect(redriven.payload).toEqual({ batchItemFailures: [] });
    const secondUrl = await eventually('a new approval link', async () => {
      const url = approvalUrlIn(await historyOf(engine.sfn, executionArn));
      return url && url !== firstUrl ? url : undefined;
    });
    expect((await engine.sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('RUNNING');
    expect((await postDecision(secondUrl, 'approve', 'coordinator@site-4040.example.org')).status).toBe(200);

    const done = await untilClosed(engine.sfn, executionArn);
    expect(done).toMatchObject({ status: 'SUCCEEDED', redriveCount: 1 });
    const scheduled = scheduledPerState(await historyOf(engine.sfn, executionArn));
    expect(scheduled).toMatchObject({
      'verify-site': 1,
      'create-accounts': 1,
      'request-irb-document': 1,
      'coordinator-approval': 2,
      'email-welcome-pack': 1,
    });
    expect((await engine.outbox()).filter((e) => e.idempotencyKey === 'site-4040:welcome')).toHaveLength(1);
  });
});
