/**
 * The onboarding seed scenario at the Lambda level: the tool-step process is killed after the welcome
 * email is sent and before its result is saved; the retry with key `site-4412:welcome` reconciles, and the
 * outbox holds exactly one email.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_SAFETY_MARGIN_MILLIS } from '@autosave/runtime/idempotency';
import { RecordTable } from '@autosave/runtime/records';
import { CRASH_POINT_ENV, CrashPoint } from '@autosave/runtime/crash-points';
import { MetricName } from '@autosave/runtime/metrics';
import { OutboxEmailProvider } from '@autosave/runtime/tools';
import { startLocalAws, type LocalAws } from '../../fixtures/runtime/local-aws';
import { runTsx } from '../../fixtures/runtime/spawn-tsx';

let aws: LocalAws;
beforeAll(async () => {
  aws = await startLocalAws();
});
afterAll(() => aws.close());

const event = {
  workflow: 'clinical-trial-onboarding',
  executionArn: 'arn:aws:states:us-east-1:123456789012:execution:clinical-trial-onboarding:site-4412',
  step: 'EmailWelcomePack',
  tool: 'send-email',
  idempotencyKey: 'site-4412:welcome',
  input: {
    to: ['coordinator@site-4412.example'],
    subject: 'Welcome to the trial',
    body: 'Your welcome pack is attached.',
  },
};

const invoke = (env: Record<string, string>) =>
  runTsx('test/fixtures/runtime/invoke-handler.ts', ['tool-step', JSON.stringify(event)], { ...aws.env, ...env });

describe('seed scenario: crash between the send and the COMPLETED write', () => {
  it('sends exactly one welcome email across the crash and the retry', async () => {
    const outbox = new OutboxEmailProvider(aws.env.AUTOSAVE_OUTBOX_DIR);
    const table = new RecordTable(aws.dynamodb, aws.table);

    // Attempt 1: the Lambda has 1 ms of lease left after the margin, so its claim is stale by the time
    // anyone retries; it is SIGKILLed right after the provider accepted the email.
    const crashed = await invoke({
      [CRASH_POINT_ENV]: CrashPoint.AfterActBeforeComplete,
      TEST_REMAINING_MILLIS: String(LEASE_SAFETY_MARGIN_MILLIS + 1),
    });
    expect(crashed.signal).toBe('SIGKILL');
    expect(crashed.stdout).not.toContain('RESULT');
    expect(await outbox.list()).toHaveLength(1);
    expect((await table.get('idem#site-4412:welcome'))?.status).toBe('IN_PROGRESS');

    // Attempt 2 (the state machine's retry): takes over the expired claim, reconciles, does not resend.
    const retried = await invoke({});
    expect(retried.code).toBe(0);
    const result = JSON.parse(retried.stdout.split('\nRESULT ')[1]);
    const emails = await outbox.list();
    expect(emails).toHaveLength(1);
    expect(result).toMatchObject({
      result: { messageId: emails[0].messageId, provider: 'outbox' },
      source: 'reconciled',
    });
    expect(retried.stdout).toContain(`"${MetricName.Reconciled}"`);
    expect((await table.get('idem#site-4412:welcome'))?.status).toBe('COMPLETED');

    // Attempt 3 (e.g. a redrive): replays the stored result.
    const replayed = await invoke({});
    expect(JSON.parse(replayed.stdout.split('\nRESULT ')[1])).toEqual({ result: result.result, source: 'replayed' });
    expect(replayed.stdout).toContain(`"${MetricName.DuplicateSuppressed}"`);
    expect(await outbox.list()).toHaveLength(1);
  });
});
