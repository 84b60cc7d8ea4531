import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ClaimWrite, LedgerRecord, LedgerStore } from './ledger-record';
import { RecordTable, TTL_ATTRIBUTE, type TableItem } from '../records';

/** Prefix of idempotency items in the runtime's table. */
export const IDEMPOTENCY_ID_PREFIX = 'idem#';

/**
 * What a claim may overwrite, as named clauses (joined with OR):
 *
 * ```
 *  claim A ──► IN_PROGRESS (lease = A's remaining time) ──► COMPLETED (result) ──► ... ──► TTL deletes
 *              │◄──────── locked: B gets InProgress ──►│
 *              A crashed? after the lease a claim by B   a claim by B finds COMPLETED
 *              replaces the record and B reconciles      and replays the result
 * ```
 */
const CLAIM_CLAUSES = {
  /** First use of the key (or TTL already deleted the record). */
  keyAbsent: 'attribute_not_exists(id)',
  /** The record outlived its TTL but DynamoDB has not deleted it yet (TTL deletion is lazy). */
  recordExpired: '#expiration < :nowSeconds',
  /**
   * An attempt claimed the key with the same payload and its lease ran out: it crashed, timed out, or failed
   * and ended its lease ({@link DynamoDbLedgerStore.release}).
   * (A different payload must not take over: it would hide the crashed attempt from reconciliation.)
   */
  leaseExpired: '(#status = :inProgress AND #leaseExpiresAt < :nowMillis AND payloadHash = :payloadHash)',
} as const;

/** {@link LedgerStore} on the runtime's DynamoDB table (items `idem#<key>`). */
export class DynamoDbLedgerStore implements LedgerStore {
  private readonly table: RecordTable;

  constructor(client: DynamoDBClient, tableName: string) {
    this.table = new RecordTable(client, tableName);
  }

  async claim(record: LedgerRecord, nowMillis: number): Promise<ClaimWrite> {
    const out = await this.table.putIf(toItem(record), {
      expression: Object.values(CLAIM_CLAUSES).join(' OR '),
      names: { '#expiration': TTL_ATTRIBUTE, '#status': 'status', '#leaseExpiresAt': 'leaseExpiresAt' },
      values: {
        ':nowSeconds': Math.floor(nowMillis / 1000),
        ':nowMillis': nowMillis,
        ':inProgress': 'IN_PROGRESS',
        ':payloadHash': record.payloadHash,
      },
    });
    if (out.written) return { acquired: true, replaced: out.replaced && fromItem(out.replaced) };
    return { acquired: false, existing: out.existing && fromItem(out.existing) };
  }

  async complete(key: string, claimToken: string, result: unknown, expiresAtSeconds: number): Promise<boolean> {
    const out = await this.table.updateIf(
      IDEMPOTENCY_ID_PREFIX + key,
      { status: 'COMPLETED', result: JSON.stringify(result ?? null), [TTL_ATTRIBUTE]: expiresAtSeconds },
      {
        expression: '#status = :inProgress AND claimToken = :token',
        names: { '#status': 'status' },
        values: { ':inProgress': 'IN_PROGRESS', ':token': claimToken },
      },
    );
    return out.written;
  }

  async release(key: string, claimToken: string): Promise<void> {
    // Ends the lease, keeps the record: the next claim takes it over at once as an expired claim and
    // reconciles, because a provider that failed (e.g. timed out) may still have acted.
    await this.table.updateIf(
      IDEMPOTENCY_ID_PREFIX + key,
      { leaseExpiresAt: 0 },
      {
        expression: '#status = :inProgress AND claimToken = :token',
        names: { '#status': 'status' },
        values: { ':inProgress': 'IN_PROGRESS', ':token': claimToken },
      },
    );
  }

  /** The keys claimed IN_PROGRESS right now, with the claim each is held by (a scan: maintenance only). */
  async *inProgressClaims(): AsyncIterable<{ readonly key: string; readonly claimToken: string }> {
    const inProgress = {
      expression: '#status = :inProgress',
      names: { '#status': 'status' },
      values: { ':inProgress': 'IN_PROGRESS' },
    };
    for await (const item of this.table.scan(IDEMPOTENCY_ID_PREFIX, inProgress)) {
      const { key, claimToken } = fromItem(item);
      yield { key, claimToken };
    }
  }

  async get(key: string): Promise<LedgerRecord | undefined> {
    const item = await this.table.get(IDEMPOTENCY_ID_PREFIX + key);
    return item && fromItem(item);
  }
}

function toItem(record: LedgerRecord): TableItem {
  return {
    id: IDEMPOTENCY_ID_PREFIX + record.key,
    status: record.status,
    payloadHash: record.payloadHash,
    claimToken: record.claimToken,
    leaseExpiresAt: record.leaseExpiresAtMillis,
    [TTL_ATTRIBUTE]: record.expiresAtSeconds,
    ...(record.result === undefined ? {} : { result: JSON.stringify(record.result) }),
    ...(record.owner === undefined ? {} : { owner: record.owner }),
  };
}

function fromItem(item: TableItem): LedgerRecord {
  return {
    key: item.id.slice(IDEMPOTENCY_ID_PREFIX.length),
    status: item.status as LedgerRecord['status'],
    payloadHash: item.payloadHash as string,
    claimToken: item.claimToken as string,
    leaseExpiresAtMillis: Number(item.leaseExpiresAt),
    expiresAtSeconds: Number(item[TTL_ATTRIBUTE]),
    ...(typeof item.result === 'string' ? { result: JSON.parse(item.result) } : {}),
    ...(typeof item.owner === 'string' ? { owner: item.owner } : {}),
  };
}
