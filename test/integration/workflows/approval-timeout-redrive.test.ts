/**
 * An approval with no declared timeout path (the builder's default): when nobody decides in time the run
 * FAILS at the approval step and is dead-lettered; a redrive asks again with a new token and a new link,
 * the old link no longer decides anything, the new one does, and the steps before the approval do not
 * run again. Built with the builder, deployed on the local engine, driven through the Step Functions API.
 */
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localFunctionName } from '@autosave/runtime/handlers';
import { days } from '@autosave/workflow/config';
import type { DeadLetterMessage } from '@autosave/runtime/dead-letters';
import { approval, defineWorkflow, tool } from '@autosave/workflow';
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

const signOff = defineWorkflow({
  name: 'release-sign-off',
  version: '1.0.0',
  steps: [
    tool('prepare', { tool: 'verify-site', idempotencyKey: '{siteId}:prepare', input: { siteId: '{siteId}' } }),
    approval('sign-off', { title: 'Sign off {siteId}', timeout: days(1) }),
    tool('announce', {
      tool: 'send-email',
      idempotencyKey: '{siteId}:announce',
      input: { to: 'team@example.org', subject: '{siteId} signed off', body: 'Signed off by {steps.sign-off.by}.' },
    }),
  ],
});

let engine: WorkflowEngine;
beforeAll(async () => {
  engine = await startWorkflowEngine();
  await engine.deploy(signOff);
});
afterAll(async () => {
  await engine?.close();
});

describe('an approval that times out with no timeout path', () => {
  it('fails at the approval, is dead-lettered, and a redrive asks again with a new link', async () => {
    const executionArn = await engine.start(signOff.name, 'sign-off-site-3300', { siteId: 'site-3300' });
    const firstUrl = await approvalUrlOf(engine.sfn, executionArn);

    await engine.advance(days(1));
    const failed = await untilStatus(engine.sfn, executionArn, ['FAILED']);
    expect(failed.error).toBe('States.Timeout');

    const letter = await eventually('the dead letter', async () => {
      const out = await engine.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: engine.local.endpoints.dlqUrl, MaxNumberOfMessages: 10 }),
      );
      return out.Messages?.length ? out.Messages : undefined;
    });
    expect(letter).toHaveLength(1);
    expect(JSON.parse(letter[0].Body!) as DeadLetterMessage).toMatchObject({
      executionArn,
      status: 'FAILED',
      error: 'States.Timeout',
      failedState: 'sign-off',
    });

    const redriven = await engine.local.lambdas.invoke({
      functionName: localFunctionName('redrive'),
      payload: { Records: [{ messageId: letter[0].MessageId!, body: letter[0].Body! }] },
    });
    expect(redriven.payload).toEqual({ batchItemFailures: [] });

    // A new request, with a new link.
    const secondUrl = await eventually('the second approval link', async () => {
      const url = approvalUrlIn(await historyOf(engine.sfn, executionArn));
      return url && url !== firstUrl ? url : undefined;
    });
    expect((await engine.sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('RUNNING');
    // The old link's task is gone: it decides nothing.
    const stale = await postDecision(firstUrl, 'approve', 'late@example.org');
    expect(stale.status).toBe(410);
    expect((await engine.sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('RUNNING');

    expect((await postDecision(secondUrl, 'approve', 'lead@example.org')).status).toBe(200);
    const done = await untilClosed(engine.sfn, executionArn);
    expect(done.status).toBe('SUCCEEDED');
    expect(done.redriveCount).toBe(1);

    const scheduled = scheduledPerState(await historyOf(engine.sfn, executionArn));
    expect(scheduled).toMatchObject({ prepare: 1, 'sign-off': 2, announce: 1 });
    const announced = (await engine.outbox()).filter((e) => e.idempotencyKey === 'site-3300:announce');
    expect(announced).toHaveLength(1);
    expect(announced[0].body).toBe('Signed off by lead@example.org.');
  });
});
