import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RECORD_TTL_SECONDS, type Clock } from '@autosave/workflow/config';
import { isRetryableError } from '@autosave/workflow/errors';
import {
  DEFAULT_LEASE_MILLIS,
  DynamoDbLedgerStore,
  IdempotencyInProgressError,
  IdempotencyKeyMismatchError,
  IdempotencyLedger,
  LEASE_SAFETY_MARGIN_MILLIS,
  leaseFor,
} from '@autosave/runtime/idempotency';
import { RecordTable } from '@autosave/runtime/records';
import { InMemoryMetrics, MetricName } from '@autosave/runtime/metrics';
import { startLocalAws, type LocalAws } from '../../../../test/fixtures/runtime/local-aws';

let aws: LocalAws;
let store: DynamoDbLedgerStore;
let table: RecordTable;
let keyCounter = 0;
const freshKey = () => `site-${++keyCounter}:welcome`;

/** A clock that only moves when the test says so. */
class TestClock implements Clock {
  constructor(public millis = Date.UTC(2026, 10, 30, 12)) {}
  now = () => this.millis;
  advance(ms: number) {
    this.millis += ms;
  }
}

beforeAll(async () => {
  aws = await startLocalAws();
  store = new DynamoDbLedgerStore(aws.dynamodb, aws.table);
  table = new RecordTable(aws.dynamodb, aws.table);
});
afterAll(() => aws.close());

function ledger(clock = new TestClock()) {
  const metrics = new InMemoryMetrics();
  return { ledger: new IdempotencyLedger({ store, clock, metrics }), metrics, clock };
}

describe('IdempotencyLedger.run', () => {
  it('acts once, then returns the stored result without acting and counts a suppressed duplicate', async () => {
    const { ledger: l, metrics } = ledger();
    const key = freshKey();
    let acted = 0;
    const act = async () => ({ sent: ++acted });
    expect(await l.run({ key, payload: { to: 'a' }, act })).toEqual({ result: { sent: 1 }, source: 'executed' });
    expect(await l.run({ key, payload: { to: 'a' }, act })).toEqual({ result: { sent: 1 }, source: 'replayed' });
    expect(acted).toBe(1);
    expect(metrics.get(MetricName.DuplicateSuppressed)).toBe(1);
  });

  it('lets two concurrent invocations with one key act once; the loser gets the retryable in-progress error', async () => {
    const { ledger: l } = ledger();
    const key = freshKey();
    let acted = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const act = async () => {
      acted++;
      await gate;
      return 'done';
    };
    const attempts = [l.run({ key, payload: 1, act }), l.run({ key, payload: 1, act })];
    // The winner is held inside its action until the loser has been turned away.
    await Promise.race(attempts).catch(() => undefined);
    release();
    const outcomes = await Promise.allSettled(attempts);
    expect(acted).toBe(1);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(IdempotencyInProgressError);
    expect(isRetryableError(rejected.reason.name)).toBe(true);
    // The state machine's retry after backoff gets the stored result.
    expect(await l.run({ key, payload: 1, act })).toEqual({ result: 'done', source: 'replayed' });
  });

  it('refuses the same key with a different payload, with a non-retryable error', async () => {
    const { ledger: l } = ledger();
    const key = freshKey();
    await l.run({ key, payload: { to: 'a' }, act: async () => 1 });
    const error = await l.run({ key, payload: { to: 'b' }, act: async () => 2 }).catch((e) => e);
    expect(error).toBeInstanceOf(IdempotencyKeyMismatchError);
    expect(isRetryableError(error.name)).toBe(false);
  });

  it('hashes payloads canonically (key order does not matter)', async () => {
    const { ledger: l } = ledger();
    const key = freshKey();
    await l.run({ key, payload: { a: 1, b: 2 }, act: async () => 'x' });
    expect((await l.run({ key, payload: { b: 2, a: 1 }, act: async () => 'y' })).result).toBe('x');
  });

  it('commits the claim before acting, so no action happens without a record', async () => {
    const { ledger: l } = ledger();
    const key = freshKey();
    let seen: unknown;
    await l.run({ key, payload: null, act: async () => ((seen = (await table.get(`idem#${key}`))?.status), 'ok') });
    expect(seen).toBe('IN_PROGRESS');
    expect((await table.get(`idem#${key}`))?.status).toBe('COMPLETED');
  });

  it('releases the claim when the action fails, so a retry acts at once', async () => {
    const { ledger: l } = ledger();
    const key = freshKey();
    await expect(
      l.run({ key, payload: 1, act: async () => Promise.reject(new Error('provider down')) }),
    ).rejects.toThrow('provider down');
    expect(await l.run({ key, payload: 1, act: async () => 'second try' })).toEqual({
      result: 'second try',
      source: 'executed',
    });
  });

  it('after a failed action, the retry reconciles before acting: a provider that timed out after accepting did act', async () => {
    const { ledger: l } = ledger();
    const key = freshKey();
    const provider = new Map<string, string>();
    const reconcile = async () =>
      provider.has(key) ? { found: true as const, result: provider.get(key)! } : { found: false as const };
    let acted = 0;
    const act = async () => {
      acted++;
      provider.set(key, 'sent');
      throw new Error('provider timed out after accepting');
    };
    await expect(l.run({ key, payload: 1, act, reconcile })).rejects.toThrow('timed out');
    // The retry does not wait out the lease, and it asks the provider before acting.
    const retry = await l.run({ key, payload: 1, act: async () => (acted++, 'sent again'), reconcile });
    expect(retry).toEqual({ result: 'sent', source: 'reconciled' });
    expect(acted).toBe(1);
  });

  it('keeps an abandoned claim locked until its lease runs out', async () => {
    const { ledger: l, clock } = ledger();
    const key = freshKey();
    await l.claim(key, 1, 10_000);
    clock.advance(9_999);
    await expect(l.run({ key, payload: 1, act: async () => 'x' })).rejects.toBeInstanceOf(IdempotencyInProgressError);
  });

  it('reconciles after taking over an expired claim, and does not act when the provider has a record', async () => {
    const { ledger: l, clock, metrics } = ledger();
    const key = freshKey();
    await l.claim(key, 1, 10_000); // an attempt that acted and died before completing
    clock.advance(10_001);
    let acted = 0;
    const out = await l.run<number | string>({
      key,
      payload: 1,
      act: async () => ++acted,
      reconcile: async () => ({ found: true, result: 'already sent' }),
    });
    expect(out).toEqual({ result: 'already sent', source: 'reconciled' });
    expect(acted).toBe(0);
    expect(metrics.get(MetricName.Reconciled)).toBe(1);
    expect((await l.run({ key, payload: 1, act: async () => ++acted })).result).toBe('already sent');
  });

  it('does not act past its own deadline: a stalled attempt leaves the key to the retry, which reconciles', async () => {
    const { ledger: l, clock } = ledger();
    const key = freshKey();
    await l.claim(key, 1, 10_000);
    clock.advance(10_001);
    let acted = 0;
    // The reconcile outlasts the attempt's deadline (a stalled sandbox, or one the local runner timed out):
    // a retry may already hold the key, so acting now could reach the provider twice.
    const deadlineMillis = Date.now() + 50;
    const slowReconcile = async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { found: false } as const;
    };
    const attempt = l.run({ key, payload: 1, deadlineMillis, act: async () => ++acted, reconcile: slowReconcile });
    await expect(attempt).rejects.toMatchObject({ name: 'IdempotencyAttemptTimedOutError' });
    expect(acted).toBe(0);
    expect(isRetryableError('IdempotencyAttemptTimedOutError')).toBe(true);
    // The retry takes the claim over, reconciles, and acts once.
    const retry = await l.run({
      key,
      payload: 1,
      deadlineMillis: Date.now() + 60_000,
      act: async () => ++acted,
      reconcile: async () => ({ found: false }),
    });
    expect(retry).toEqual({ result: 1, source: 'executed' });
  });

  it('acts after reconciling when the provider has no record', async () => {
    const { ledger: l, clock } = ledger();
    const key = freshKey();
    await l.claim(key, 1, 10_000);
    clock.advance(10_001);
    const out = await l.run({
      key,
      payload: 1,
      act: async () => 'sent now',
      reconcile: async () => ({ found: false }),
    });
    expect(out).toEqual({ result: 'sent now', source: 'executed' });
  });

  it('does not let a different payload take over an expired claim; the original payload still reconciles', async () => {
    const { ledger: l, clock } = ledger();
    const key = freshKey();
    await l.claim(key, { to: 'a' }, 1_000);
    clock.advance(1_001);
    await expect(l.run({ key, payload: { to: 'b' }, act: async () => 'b' })).rejects.toBeInstanceOf(
      IdempotencyKeyMismatchError,
    );
    const out = await l.run({
      key,
      payload: { to: 'a' },
      act: async () => 'acted',
      reconcile: async () => ({ found: true, result: 'found' }),
    });
    expect(out).toEqual({ result: 'found', source: 'reconciled' });
  });

  it('keeps the claim IN_PROGRESS when recording the result fails after the action, so a retry reconciles instead of acting', async () => {
    const clock = new TestClock();
    const failingComplete = Object.assign(Object.create(store), {
      complete: async () => Promise.reject(new Error('DynamoDB unavailable')),
    });
    const l = new IdempotencyLedger({ store: failingComplete, clock });
    const key = freshKey();
    await expect(l.run({ key, payload: 1, act: async () => 'sent', leaseMillis: 1_000 })).rejects.toThrow(
      'DynamoDB unavailable',
    );
    expect((await table.get(`idem#${key}`))?.status).toBe('IN_PROGRESS');
    clock.advance(1_001);
    let acted = 0;
    const retry = await new IdempotencyLedger({ store, clock }).run<number | string>({
      key,
      payload: 1,
      act: async () => ++acted,
      reconcile: async () => ({ found: true, result: 'sent' }),
    });
    expect(retry).toEqual({ result: 'sent', source: 'reconciled' });
    expect(acted).toBe(0);
  });

  it('does not reconcile on a first claim', async () => {
    const { ledger: l } = ledger();
    let reconciled = 0;
    await l.run({
      key: freshKey(),
      payload: 1,
      act: async () => 'x',
      reconcile: async () => (reconciled++, { found: false }),
    });
    expect(reconciled).toBe(0);
  });

  it('does not let a claim that lost its lease overwrite the new holder', async () => {
    const { ledger: l, clock } = ledger();
    const key = freshKey();
    const first = await l.claim(key, 1, 1_000);
    clock.advance(1_001);
    const second = await l.claim(key, 1, 1_000);
    if (first.kind !== 'claimed' || second.kind !== 'claimed') throw new Error('expected claims');
    expect(second.claim.tookOverExpiredClaim).toBe(true);
    expect(await l.complete(first.claim, 'late')).toBe(false);
    expect(await l.complete(second.claim, 'current')).toBe(true);
    expect(await l.claim(key, 1)).toEqual({ kind: 'completed', result: 'current' });
  });

  it('writes the TTL attribute `expiration` DEFAULT_RECORD_TTL_SECONDS ahead, and treats an expired record as absent', async () => {
    const { ledger: l, clock } = ledger();
    const key = freshKey();
    await l.run({ key, payload: 1, act: async () => 'old' });
    const item = await table.get(`idem#${key}`);
    expect(item?.expiration).toBe(Math.floor(clock.now() / 1000) + DEFAULT_RECORD_TTL_SECONDS);
    clock.advance((DEFAULT_RECORD_TTL_SECONDS + 1) * 1000);
    expect(await l.run({ key, payload: 2, act: async () => 'new' })).toEqual({ result: 'new', source: 'executed' });
  });

  it('honours a configured TTL', async () => {
    const clock = new TestClock();
    const l = new IdempotencyLedger({ store, clock, ttlSeconds: 60 });
    const key = freshKey();
    await l.run({ key, payload: 1, act: async () => 'x' });
    expect((await table.get(`idem#${key}`))?.expiration).toBe(Math.floor(clock.now() / 1000) + 60);
  });

  it('never lets a TTL shorter than the lease expire a live claim: a second attempt waits instead of acting', async () => {
    const clock = new TestClock();
    const l = new IdempotencyLedger({ store, clock, ttlSeconds: 60 });
    const key = freshKey();
    const first = await l.claim(key, { to: 'a' }, 10 * 60_000); // a slow attempt, still acting
    expect(first.kind).toBe('claimed');
    clock.advance(2 * 60_000); // past the record's TTL, well inside the lease
    let acted = 0;
    await expect(l.run({ key, payload: { to: 'a' }, act: async () => ++acted })).rejects.toBeInstanceOf(
      IdempotencyInProgressError,
    );
    await expect(l.run({ key, payload: { to: 'b' }, act: async () => ++acted })).rejects.toBeInstanceOf(
      IdempotencyKeyMismatchError,
    );
    expect(acted).toBe(0);
  });
});

describe('IdempotencyLedger: runs restarted from scratch', () => {
  const run1 = 'arn:aws:states:us-east-1:123456789012:execution:clinical-trial-onboarding:site-4412';
  const run2 = 'arn:aws:states:us-east-1:123456789012:execution:clinical-trial-onboarding:site-4412-again';

  it("stores the claiming execution as the record's owner", async () => {
    const { ledger: l } = ledger();
    const key = freshKey();
    await l.run({ key, payload: 1, owner: run1, act: async () => 'sent' });
    expect((await table.get(`idem#${key}`))?.owner).toBe(run1);
    expect((await store.get(key))?.owner).toBe(run1);
  });

  it('a retry or redrive (same execution) replaying a completed key is a suppressed duplicate only', async () => {
    const { ledger: l, metrics } = ledger();
    const key = freshKey();
    await l.run({ key, payload: 1, owner: run1, act: async () => 'sent' });
    expect(await l.run({ key, payload: 1, owner: run1, act: async () => 'again' })).toEqual({
      result: 'sent',
      source: 'replayed',
    });
    expect(metrics.get(MetricName.DuplicateSuppressed)).toBe(1);
    expect(metrics.get(MetricName.RunRestartedFromScratch)).toBe(0);
  });

  it('a different execution finding the key completed counts a suppressed duplicate and a run restarted from scratch', async () => {
    const { ledger: l, metrics } = ledger();
    const key = freshKey();
    let acted = 0;
    await l.run({ key, payload: 1, owner: run1, act: async () => ++acted });
    expect(await l.run({ key, payload: 1, owner: run2, act: async () => ++acted })).toEqual({
      result: 1,
      source: 'replayed',
    });
    expect(acted).toBe(1);
    expect(metrics.get(MetricName.DuplicateSuppressed)).toBe(1);
    expect(metrics.get(MetricName.RunRestartedFromScratch)).toBe(1);
  });

  it('the owner is whoever claimed last: an execution that took over an expired claim and completed it', async () => {
    const { ledger: l, clock, metrics } = ledger();
    const key = freshKey();
    await l.claim(key, 1, 1_000, run1); // run1 died holding the claim
    clock.advance(1_001);
    await l.run({
      key,
      payload: 1,
      owner: run2,
      act: async () => 'sent by run2',
      reconcile: async () => ({ found: false }),
    });
    expect((await store.get(key))?.owner).toBe(run2);
    await l.run({ key, payload: 1, owner: run2, act: async () => 'again' });
    expect(metrics.get(MetricName.RunRestartedFromScratch)).toBe(0);
  });

  it('does not count a restart when either side has no owner', async () => {
    const { ledger: l, metrics } = ledger();
    const ownerless = freshKey();
    await l.run({ key: ownerless, payload: 1, act: async () => 'x' });
    await l.run({ key: ownerless, payload: 1, owner: run2, act: async () => 'y' });
    const owned = freshKey();
    await l.run({ key: owned, payload: 1, owner: run1, act: async () => 'x' });
    await l.run({ key: owned, payload: 1, act: async () => 'y' });
    expect(metrics.get(MetricName.DuplicateSuppressed)).toBe(2);
    expect(metrics.get(MetricName.RunRestartedFromScratch)).toBe(0);
  });
});

describe('IdempotencyLedger.replay', () => {
  it('returns the stored result of a completed key and nothing for an open or unknown one', async () => {
    const { ledger: l } = ledger();
    const done = freshKey();
    await l.run({ key: done, payload: 1, act: async () => ({ sent: true }) });
    expect(await l.replay(done)).toEqual({ found: true, result: { sent: true } });
    const open = freshKey();
    await l.claim(open, 1);
    expect(await l.replay(open)).toEqual({ found: false });
    expect(await l.replay('never-used')).toEqual({ found: false });
  });
});

describe('leaseFor', () => {
  it.each([
    [undefined, DEFAULT_LEASE_MILLIS],
    [30_000, 30_000 - LEASE_SAFETY_MARGIN_MILLIS],
    [500, 1],
  ])('gives a lease of %s ms remaining as %s ms', (remaining, lease) => {
    expect(leaseFor(remaining)).toBe(lease);
  });
});
