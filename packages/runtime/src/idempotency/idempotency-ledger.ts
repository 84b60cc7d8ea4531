import { randomUUID } from 'node:crypto';
import { DEFAULT_RECORD_TTL_SECONDS, systemClock, type Clock } from '@autosave/workflow/config';
import { MetricName, noMetrics, type RuntimeMetrics } from '../metrics';
import { canonicalJson, sha256Hex } from '../records';
import { CrashPoint, crashPoint } from '../crash-points';
import { IdempotencyAttemptTimedOutError, IdempotencyInProgressError, IdempotencyKeyMismatchError } from './errors';
import type { LedgerRecord, LedgerStore } from './ledger-record';

/** Lease of a claim when the caller cannot tell its remaining time: 5 minutes. */
export const DEFAULT_LEASE_MILLIS = 5 * 60_000;
/** Margin kept off a Lambda's remaining time so the lease ends before the next attempt could start acting. */
export const LEASE_SAFETY_MARGIN_MILLIS = 1_000;

/** Options of {@link IdempotencyLedger}. */
export interface IdempotencyLedgerOptions {
  readonly store: LedgerStore;
  /** @default systemClock */
  readonly clock?: Clock;
  /** How long records live. @default DEFAULT_RECORD_TTL_SECONDS (30 days) */
  readonly ttlSeconds?: number;
  /** Reports DuplicateSuppressed, RunRestartedFromScratch and Reconciled. @default no metrics */
  readonly metrics?: RuntimeMetrics;
}

/** What a provider knows about an action done under a key. */
export type ReconcileResult<T> = { readonly found: true; readonly result: T } | { readonly found: false };

/** A successful claim: this attempt may act. */
export interface Claim {
  readonly key: string;
  readonly claimToken: string;
  /**
   * The claim replaced an expired IN_PROGRESS claim: an earlier attempt may have acted and died before
   * recording it. Reconcile with the provider before acting again.
   */
  readonly tookOverExpiredClaim: boolean;
}

/** What {@link IdempotencyLedger.claim} found. */
export type ClaimOutcome<T> =
  { readonly kind: 'claimed'; readonly claim: Claim } | { readonly kind: 'completed'; readonly result: T };

/** How {@link IdempotencyLedger.run} came by its result. */
export type RunSource = 'executed' | 'replayed' | 'reconciled';

/** Options of one {@link IdempotencyLedger.run}. */
export interface RunOptions<T> {
  /** The key, chosen by the state machine (e.g. `site-4412:welcome`). */
  readonly key: string;
  /** The input of the action: the same key with a different payload is refused. */
  readonly payload: unknown;
  /**
   * How long this attempt's claim protects the key. On Lambda: the remaining time (see {@link leaseFor}).
   * Concurrency hazard: too long and a crashed attempt blocks retries that long; too short and a slow
   * attempt's claim is taken over while it is still acting (the taker reconciles, which catches it only
   * if the provider already has the record).
   * @default DEFAULT_LEASE_MILLIS
   */
  readonly leaseMillis?: number;
  /**
   * Who asks: the execution ARN of the run. A COMPLETED key claimed by a different owner means the run was
   * started again from scratch instead of being redriven (RunRestartedFromScratch).
   * @default no owner (never counted as a restart)
   */
  readonly owner?: string;
  /**
   * When this attempt stops running (epoch ms of the wall clock: on Lambda, invocation start plus the
   * remaining time). Past it the attempt does not act: on Lambda its sandbox would have been stopped, and
   * a retry may hold the key by now. @default none (the attempt may act whenever it gets there)
   */
  readonly deadlineMillis?: number;
  /** Performs the action; its result is stored (it must be JSON, under the item limit: offload first). */
  readonly act: () => Promise<T>;
  /** Asks the provider whether the action already happened under this key. Without it, a takeover acts again. */
  readonly reconcile?: () => Promise<ReconcileResult<T>>;
}

/**
 * Exactly-once effects over at-least-once invocations. A step attempt claims its key, acts, and records
 * the result as COMPLETED; a later attempt with the same key returns the stored result without acting.
 *
 * Why not Powertools idempotency (2.35, tried against dynalite): its conditional put silently takes over
 * an expired in-progress record and runs the handler again (the caller cannot tell it must reconcile
 * first); it derives the key by hashing the event (`<function>#<md5>`) instead of using the state machine's
 * key verbatim; it stores results only inline (400 KB item); and it reads `Date.now()` (no virtual clock).
 */
export class IdempotencyLedger {
  private readonly store: LedgerStore;
  private readonly clock: Clock;
  private readonly ttlSeconds: number;
  private readonly metrics: RuntimeMetrics;

  constructor(options: IdempotencyLedgerOptions) {
    this.store = options.store;
    this.clock = options.clock ?? systemClock;
    this.ttlSeconds = options.ttlSeconds ?? DEFAULT_RECORD_TTL_SECONDS;
    this.metrics = options.metrics ?? noMetrics;
  }

  /**
   * Claims `key` for this attempt on behalf of `owner` (the asking execution's ARN), or returns the stored
   * result if the key is COMPLETED (emitting DuplicateSuppressed, and RunRestartedFromScratch when the key
   * was claimed by another owner). @throws IdempotencyInProgressError while another attempt's lease is live.
   * @throws IdempotencyKeyMismatchError when the key was first used with a different payload.
   */
  async claim<T = unknown>(
    key: string,
    payload: unknown,
    leaseMillis = DEFAULT_LEASE_MILLIS,
    owner?: string,
  ): Promise<ClaimOutcome<T>> {
    const payloadHash = sha256Hex(canonicalJson(payload ?? null));
    // Two rounds at most: a blocking record can vanish between the failed put and the read (TTL, release).
    for (let round = 0; round < 2; round++) {
      const now = this.clock.now();
      const record: LedgerRecord = {
        key,
        status: 'IN_PROGRESS',
        payloadHash,
        claimToken: randomUUID(),
        leaseExpiresAtMillis: now + leaseMillis,
        // Never before the lease ends: an expired record may be taken over (and TTL deletes it) even while
        // its claim is live, so a TTL shorter than the lease would let a second attempt act concurrently.
        expiresAtSeconds: Math.max(Math.floor(now / 1000) + this.ttlSeconds, Math.ceil((now + leaseMillis) / 1000)),
        ...(owner !== undefined && { owner }),
      };
      const write = await this.store.claim(record, now);
      if (write.acquired) {
        const tookOverExpiredClaim = write.replaced?.status === 'IN_PROGRESS';
        return { kind: 'claimed', claim: { key, claimToken: record.claimToken, tookOverExpiredClaim } };
      }
      const existing = write.existing;
      if (!existing) continue;
      if (existing.payloadHash !== payloadHash) throw new IdempotencyKeyMismatchError(key);
      if (existing.status === 'COMPLETED') {
        this.metrics.add(MetricName.DuplicateSuppressed);
        // Both known and different: an ownerless side (an older record, a caller without a run) proves nothing.
        if (owner !== undefined && existing.owner !== undefined && existing.owner !== owner) {
          this.metrics.add(MetricName.RunRestartedFromScratch);
        }
        return { kind: 'completed', result: existing.result as T };
      }
      throw new IdempotencyInProgressError(key, existing.leaseExpiresAtMillis);
    }
    throw new IdempotencyInProgressError(key, this.clock.now());
  }

  /**
   * Records the claim's result as COMPLETED. Returns false when the claim was lost meanwhile (its lease
   * ran out and another attempt took the key): that attempt reconciles, so the result is not overwritten.
   */
  complete(claim: Claim, result: unknown): Promise<boolean> {
    const expiresAtSeconds = Math.floor(this.clock.now() / 1000) + this.ttlSeconds;
    return this.store.complete(claim.key, claim.claimToken, result, expiresAtSeconds);
  }

  /** The stored result of a COMPLETED key, without claiming anything (for tools that inspect a run). */
  async replay<T = unknown>(key: string): Promise<ReconcileResult<T>> {
    const record = await this.store.get(key);
    return record?.status === 'COMPLETED' && record.expiresAtSeconds * 1000 > this.clock.now()
      ? { found: true, result: record.result as T }
      : { found: false };
  }

  /**
   * Ends the claim's lease after the action failed, so a retry need not wait it out. The record stays: the
   * retry takes it over as an expired claim and reconciles before acting (a provider that timed out after
   * accepting did act).
   */
  release(claim: Claim): Promise<void> {
    return this.store.release(claim.key, claim.claimToken);
  }

  /**
   * The whole step: claim → (took over an expired claim? reconcile, and act only if the provider has no
   * record) → act → complete. The claim is committed before `act` runs, so an action can never happen
   * without a record that it may have.
   */
  async run<T>(options: RunOptions<T>): Promise<{ readonly result: T; readonly source: RunSource }> {
    const outcome = await this.claim<T>(options.key, options.payload, options.leaseMillis, options.owner);
    if (outcome.kind === 'completed') return { result: outcome.result, source: 'replayed' };
    const { claim } = outcome;
    let done: { result: T; source: RunSource };
    try {
      const known =
        claim.tookOverExpiredClaim && options.reconcile ? await this.reconcile(options.reconcile) : undefined;
      done = known?.found
        ? { result: known.result, source: 'reconciled' }
        : { result: await actBefore(options), source: 'executed' };
    } catch (error) {
      // The provider may have acted anyway (a timeout after accepting, a failure after it answered): end the
      // lease so a retry may claim at once, but keep the record so that retry reconciles first.
      await this.release(claim).catch(() => undefined);
      throw error;
    }
    if (done.source === 'executed') crashPoint(CrashPoint.AfterActBeforeComplete, options.key);
    // Not inside the try: if this write fails, the claim stays IN_PROGRESS and a retry waits out the lease
    // and reconciles, instead of acting again on a key whose action did happen.
    await this.complete(claim, done.result);
    return done;
  }

  private reconcile<T>(reconcile: () => Promise<ReconcileResult<T>>): Promise<ReconcileResult<T>> {
    this.metrics.add(MetricName.Reconciled);
    return reconcile();
  }
}

/**
 * Acts unless the attempt is past its deadline. A stalled attempt (an overloaded host; locally, an in-process
 * function the runner already timed out) would otherwise act after a retry took the key over and reconciled,
 * and the provider would see the key twice. Wall time, as the sandbox's lifetime is; nothing awaits between
 * this check and `act`'s first step.
 */
function actBefore<T>(options: RunOptions<T>): Promise<T> {
  if (options.deadlineMillis !== undefined && Date.now() >= options.deadlineMillis)
    throw new IdempotencyAttemptTimedOutError(options.key, options.deadlineMillis);
  return options.act();
}

/**
 * The lease for an attempt that has `remainingMillis` left (a Lambda context's getRemainingTimeInMillis()),
 * minus {@link LEASE_SAFETY_MARGIN_MILLIS}; {@link DEFAULT_LEASE_MILLIS} when unknown.
 */
export function leaseFor(remainingMillis: number | undefined): number {
  if (remainingMillis === undefined || !Number.isFinite(remainingMillis)) return DEFAULT_LEASE_MILLIS;
  return Math.max(1, remainingMillis - LEASE_SAFETY_MARGIN_MILLIS);
}
