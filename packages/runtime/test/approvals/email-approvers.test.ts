import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalEmailKey, emailApprovers, type ApprovalRecord } from '@autosave/runtime/approvals';
import { OutboxEmailProvider } from '@autosave/runtime/tools';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'autosave-approvers-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const approval: ApprovalRecord = {
  id: 'abc123',
  workflow: 'clinical-trial-onboarding',
  executionArn: 'arn:x',
  step: 'coordinator-approval',
  title: 'Approve site-4412',
  details: {},
  approvers: ['coord@example.com'],
  requestedAtMillis: 0,
  expiresAtSeconds: 432_000,
  status: 'PENDING',
};

describe('emailApprovers', () => {
  it('emails the link once per approval, under the key approval:<id>', async () => {
    const outbox = new OutboxEmailProvider(join(dir, 'a'));
    const notify = emailApprovers(outbox);
    await notify(approval, 'http://127.0.0.1:8083/approvals/abc123?sig=v1.1.x');
    await notify(approval, 'http://127.0.0.1:8083/approvals/abc123?sig=v1.1.x');
    const emails = await outbox.list();
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({
      idempotencyKey: approvalEmailKey('abc123'),
      to: ['coord@example.com'],
      subject: 'Approval needed: Approve site-4412',
    });
    expect(emails[0].body).toContain('http://127.0.0.1:8083/approvals/abc123?sig=v1.1.x');
    expect(emails[0].body).toContain('1970-01-06T00:00:00.000Z');
  });

  it('sends nothing when the request names no approvers', async () => {
    const outbox = new OutboxEmailProvider(join(dir, 'b'));
    await emailApprovers(outbox)({ ...approval, approvers: [] }, 'http://x');
    expect(await outbox.list()).toEqual([]);
  });
});
