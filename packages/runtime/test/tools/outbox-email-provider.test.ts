import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEmailProvider, sendEmailTool } from '@autosave/runtime/tools';
import { runTsx } from '../../../../test/fixtures/runtime/spawn-tsx';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'autosave-outbox-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const welcome = { to: ['pi@site.example'], subject: 'Welcome', body: 'Welcome to the trial' };

describe('OutboxEmailProvider', () => {
  it('records a send on disk and honours the idempotency key', async () => {
    const outbox = new OutboxEmailProvider(join(dir, 'a'));
    const first = await outbox.send(welcome, 'site-1:welcome');
    const second = await outbox.send({ ...welcome, body: 'again' }, 'site-1:welcome');
    expect(second).toEqual(first);
    const emails = await outbox.list();
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({
      idempotencyKey: 'site-1:welcome',
      body: 'Welcome to the trial',
      to: ['pi@site.example'],
    });
  });

  it('finds what was sent under a key, and nothing for an unknown key', async () => {
    const outbox = new OutboxEmailProvider(join(dir, 'b'));
    const sent = await outbox.send(welcome, 'k1');
    expect(await outbox.find('k1')).toEqual(sent);
    expect(await outbox.find('k2')).toBeUndefined();
  });

  it('keeps exactly one email when several processes send under one key at once', async () => {
    const target = join(dir, 'concurrent');
    const results = await Promise.all(
      [1, 2, 3].map((n) => runTsx('test/fixtures/runtime/outbox-send.ts', [target, 'site-9:welcome', `process-${n}`])),
    );
    expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
    expect(new Set(results.map((r) => r.stdout)).size).toBe(1);
    const emails = await new OutboxEmailProvider(target).list();
    expect(emails).toHaveLength(1);
    // No temporary files are left behind.
    expect((await readdir(target)).filter((f) => !f.endsWith('.json'))).toEqual([]);
  });
});

describe('send-email tool', () => {
  it('passes the key to the provider and reconciles through it', async () => {
    const outbox = new OutboxEmailProvider(join(dir, 'tool'));
    const tool = sendEmailTool(outbox);
    expect(await tool.reconcile!('renewal:c-1:3')).toEqual({ found: false });
    const sent = await tool.execute({ to: 'buyer@example.com', subject: 'Renewal', body: 'Hi' }, 'renewal:c-1:3');
    expect(await tool.reconcile!('renewal:c-1:3')).toEqual({ found: true, result: sent });
  });

  it('refuses input without to, subject or body as InvalidStepInputError', async () => {
    const tool = sendEmailTool(new OutboxEmailProvider(join(dir, 'bad')));
    await expect(tool.execute({ to: [], subject: 's', body: 'b' }, 'k')).rejects.toMatchObject({
      name: 'InvalidStepInputError',
    });
  });
});
