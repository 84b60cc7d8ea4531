/** Where a key stands. */
export type LedgerStatus = 'IN_PROGRESS' | 'COMPLETED';

/** One idempotency record (DynamoDB item `idem#<key>`). */
export interface LedgerRecord {
  readonly key: string;
  readonly status: LedgerStatus;
  /** sha256 of the canonical JSON of the payload first claimed under this key. */
  readonly payloadHash: string;
  /** Identifies the attempt that holds (or held) the claim; only it may complete or release. */
  readonly claimToken: string;
  /** When an IN_PROGRESS claim stops protecting the key (epoch ms). */
  readonly leaseExpiresAtMillis: number;
  /** When the record expires (epoch seconds; the table's TTL attribute `expiration`). */
  readonly expiresAtSeconds: number;
  /** The stored result of a COMPLETED record (possibly a payload reference). */
  readonly result?: unknown;
  /**
   * Who claimed the key: the execution ARN of the run that asked (a retry or a redrive keeps it; a fresh
   * start of the same business run does not). Absent on records claimed without one.
   */
  readonly owner?: string;
}

/** What {@link LedgerStore.claim} reports. */
export type ClaimWrite =
  /** The put succeeded; `replaced` is the record it overwrote (an expired claim or an expired record). */
  | { readonly acquired: true; readonly replaced?: LedgerRecord }
  /** The put's condition failed; `existing` is the record in the way (absent if it vanished meanwhile). */
  | { readonly acquired: false; readonly existing?: LedgerRecord };

/**
 * The storage primitives the ledger needs. Adapters translate them and nothing more; the rules (what a
 * claim may replace, leases, replay, reconcile) live once in IdempotencyLedger.
 */
export interface LedgerStore {
  /**
   * Writes `record` (IN_PROGRESS) if the key is absent, its record has expired (`expiresAtSeconds`), or it
   * is IN_PROGRESS with the same payload hash and a lease that ended before `nowMillis`. Atomic: of two
   * concurrent claims one wins.
   */
  claim(record: LedgerRecord, nowMillis: number): Promise<ClaimWrite>;
  /** Marks the key COMPLETED with `result` if `claimToken` still holds it. Returns false if it does not. */
  complete(key: string, claimToken: string, result: unknown, expiresAtSeconds: number): Promise<boolean>;
  /**
   * Ends the lease of the key's IN_PROGRESS record if `claimToken` still holds it (the action failed): a
   * retry takes the claim over at once and reconciles first, since a failed provider call may have acted.
   */
  release(key: string, claimToken: string): Promise<void>;
  /** The key's record, if any. */
  get(key: string): Promise<LedgerRecord | undefined>;
}
