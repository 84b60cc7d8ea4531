import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalLinkSigner, ApprovalService, SigningKeys } from '@autosave/runtime/approvals';
import { loadRuntimeConfig } from '@autosave/runtime/endpoints';
import { RecordTable } from '@autosave/runtime/records';
import { Runtime, approvalService } from '@autosave/runtime/lambda';
import { startLocalAws, type LocalAws } from '../../../../test/fixtures/runtime/local-aws';

const clock = {
  millis: 1_000_000,
  now() {
    return this.millis;
  },
};

describe('SigningKeys: the approval keys of a long-lived process', () => {
  it('never keeps a failed read: the next call reads again', async () => {
    let reads = 0;
    const keys = new SigningKeys({
      clock,
      load: async () => (++reads === 1 ? Promise.reject(new Error('ThrottlingException')) : ['k1']),
    });
    await expect(keys.current()).rejects.toThrow('ThrottlingException');
    await expect(keys.current()).resolves.toEqual(['k1']);
    expect(reads).toBe(2);
  });

  it('reads again after the TTL, so a rotation reaches a warm container', async () => {
    let value = ['old'];
    const keys = new SigningKeys({ clock, ttlMillis: 60_000, load: async () => value });
    expect(await keys.current()).toEqual(['old']);
    value = ['new', 'old'];
    clock.millis += 59_000;
    expect(await keys.current()).toEqual(['old']);
    clock.millis += 2_000;
    expect(await keys.current()).toEqual(['new', 'old']);
  });

  it('keeps using the keys it has when a later read fails', async () => {
    let fail = false;
    const keys = new SigningKeys({
      clock,
      ttlMillis: 1,
      load: async () => (fail ? Promise.reject(new Error('down')) : ['k1']),
    });
    await keys.current();
    fail = true;
    clock.millis += 10;
    expect(await keys.current()).toEqual(['k1']);
  });

  it('shares one read between concurrent callers, and forces one on refresh no more than once per interval', async () => {
    let reads = 0;
    const keys = new SigningKeys({ clock, minRefreshMillis: 30_000, load: async () => [`k${++reads}`] });
    expect(await Promise.all([keys.current(), keys.current(), keys.current()])).toEqual([['k1'], ['k1'], ['k1']]);
    expect(await keys.refresh()).toEqual(['k1']);
    clock.millis += 30_000;
    expect(await keys.refresh()).toEqual(['k2']);
    expect(reads).toBe(2);
  });
});

describe('Runtime: a failed secret read does not poison the container', () => {
  const dir = mkdtempSync(join(tmpdir(), 'autosave-keys-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a first read that fails (the data dir cannot be created) is retried on the next request', async () => {
    const blocker = join(dir, 'not-yet');
    writeFileSync(blocker, 'a file where the data directory should be');
    const runtime = new Runtime(loadRuntimeConfig({ AUTOSAVE_DATA_DIR: join(blocker, 'data') }));
    await expect(approvalService(runtime)).rejects.toThrow();
    rmSync(blocker);
    await expect(approvalService(runtime)).resolves.toBeInstanceOf(ApprovalService);
  });
});

describe('ApprovalService: a link signed with a key this process has not loaded yet', () => {
  let aws: LocalAws;
  beforeAll(async () => {
    aws = await startLocalAws();
  });
  afterAll(async () => aws.close());

  it('re-reads the keys once before answering forged, and still refuses a forgery', async () => {
    const table = new RecordTable(aws.dynamodb, aws.table);
    const sfn = new SFNClient({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9',
      credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
    });
    let stored = ['old'];
    const keys = new SigningKeys({ clock, minRefreshMillis: 0, load: async () => stored });
    const service = new ApprovalService({
      table,
      signer: new ApprovalLinkSigner(await keys.current()),
      sfn,
      baseUrl: 'http://127.0.0.1:1',
      clock,
      reverify: async (id, sig, now) => new ApprovalLinkSigner(await keys.refresh()).verify(id, sig, now),
    });
    const issued = await service.request({
      workflow: 'w',
      executionArn: 'arn:aws:states:us-east-1:123456789012:execution:w:r',
      step: 's',
      taskToken: 'token-1',
      timeoutSeconds: 3600,
      title: 'Approve',
    });
    // The key rotates: another container signs with the new key first.
    stored = ['new', 'old'];
    const signedWithNew = new ApprovalLinkSigner(['new']).sign(issued.approvalId, issued.expiresAtSeconds);
    expect((await service.view(issued.approvalId, signedWithNew)).kind).toBe('pending');
    const forged = new ApprovalLinkSigner(['attacker']).sign(issued.approvalId, issued.expiresAtSeconds);
    const refused = await service.view(issued.approvalId, forged);
    expect(refused.kind).toBe('forged');
  });
});
