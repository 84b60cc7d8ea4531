import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLedgerStore, IdempotencyLedger } from '@autosave/runtime/idempotency';
import { expireOrphanedLeases } from '../../src/services/orphaned-leases';
import { startLocalAws, type LocalAws } from '../../../../test/fixtures/runtime/local-aws';

let aws: LocalAws;
beforeAll(async () => {
  aws = await startLocalAws();
});
afterAll(() => aws.close());

describe('expireOrphanedLeases', () => {
  it('ends the leases of claims cut off by the last stop, leaves completed keys alone, and the next attempt reconciles', async () => {
    const ledger = new IdempotencyLedger({ store: new DynamoDbLedgerStore(aws.dynamodb, aws.table) });
    const tenMinutes = 10 * 60_000;
    // A finished key, and two attempts that "died" holding long leases.
    await ledger.run({ key: 'site-1:welcome', payload: { to: 'a' }, act: async () => ({ sent: 1 }) });
    await ledger.claim('site-2:welcome', { to: 'b' }, tenMinutes);
    await ledger.claim('site-3:welcome', { to: 'c' }, tenMinutes);
    await expect(ledger.claim('site-2:welcome', { to: 'b' }, tenMinutes)).rejects.toMatchObject({
      name: 'IdempotencyInProgressError',
    });

    expect(await expireOrphanedLeases(aws.dynamodb, aws.table)).toBe(2);

    let reconciled = 0;
    let acted = 0;
    const retry = await ledger.run({
      key: 'site-2:welcome',
      payload: { to: 'b' },
      act: async () => ({ sent: ++acted }),
      reconcile: async () => {
        reconciled += 1;
        return { found: true as const, result: { sent: 0 } };
      },
    });
    expect(retry).toEqual({ result: { sent: 0 }, source: 'reconciled' });
    expect({ reconciled, acted }).toEqual({ reconciled: 1, acted: 0 });
    expect(await ledger.replay('site-1:welcome')).toEqual({ found: true, result: { sent: 1 } });
    // site-2 is completed now; site-3 is still an unfinished claim, so a second boot ends its (already over) lease again.
    expect(await expireOrphanedLeases(aws.dynamodb, aws.table)).toBe(1);
  });
});
