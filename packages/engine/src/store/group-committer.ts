import type { Database } from 'better-sqlite3';

/** The longest a deferred write waits for a transaction to ride along with. */
export const DEFAULT_DEFER_MILLIS = 1000;

/** A unit of work run inside the shared transaction; its return value resolves the caller's promise. */
export type StoreWrite<T> = () => T;

interface Pending {
  readonly write: StoreWrite<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
  /** See {@link CommitOptions.rerunnable}. */
  readonly rerunnable: boolean;
}

/** How a write is committed. */
export interface CommitOptions {
  /**
   * Whether the write may be run again after the transaction it ran in was rolled back, with the same
   * effect as if it had run once: everything it changes is in the store (or is put back as it was when it
   * runs again). A group of such writes (and deferred ones, one statement each) is written without a
   * savepoint per write; if one of them throws, the whole transaction is rolled back and the group is
   * written again, each write in a savepoint of its own, so that only the one that threw fails.
   * @default false
   */
  readonly rerunnable?: boolean;
}

/**
 * Group commit: every write queued during one turn of the event loop is applied in ONE transaction, so
 * concurrent executions share one fsync. One write that throws (a stale frame, a name taken meanwhile)
 * rolls back alone and rejects only its own promise: each write runs in its own savepoint, or, in a group
 * of writes that may run again ({@link CommitOptions.rerunnable}), the group is written without them and,
 * should one throw, rolled back whole and written again with them.
 *
 * ```
 *  run A ──write──┐                    ┌── resolve A ── effect A (invoke Lambda, ...)
 *  run B ──write──┼─ setImmediate ─ BEGIN … COMMIT (fsync) ─┼── resolve B ── effect B
 *  run C ──write──┘                    └── resolve C ── effect C
 * ```
 * A promise resolves only after COMMIT returned: callers act on a transition only once it is durable.
 */
export class GroupCommitter {
  private pending: Pending[] = [];
  private deferred: Pending[] = [];
  private scheduled = false;
  private deferTimer?: NodeJS.Timeout;
  /** Transactions committed so far (a benchmark figure). */
  commits = 0;
  /** Writes committed so far. */
  writes = 0;
  /** Groups written without savepoints that were rolled back whole and written again (one write threw). */
  rewrites = 0;
  /**
   * Wall-clock milliseconds spent in {@link flush} so far (a benchmark figure): the statements and the
   * COMMIT's fsync, during which the engine's thread answers nothing.
   */
  flushMillis = 0;

  /**
   * Runs a write in a transaction (a savepoint when nested in one). Made once: better-sqlite3 builds a new
   * wrapper, with its four variants, at each `db.transaction(fn)` call (~11 µs, as much as a transition's
   * own statements).
   */
  private readonly transact: (write: StoreWrite<unknown>) => unknown;

  constructor(
    private readonly db: Database,
    /**
     * Called whenever something written in a transaction is rolled back (a write threw, so its savepoint
     * or its lone transaction was undone, or the COMMIT failed): what the writes' callers remember of
     * their effects may no longer hold. @default nobody is told
     */
    private readonly onRollback: () => void = () => undefined,
  ) {
    this.transact = db.transaction((write: StoreWrite<unknown>) => write());
  }

  /** Queues `write` for the next group transaction; resolves with its result once committed. */
  commit<T>(write: StoreWrite<T>, options: CommitOptions = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({
        write,
        resolve: resolve as (v: unknown) => void,
        reject,
        rerunnable: options.rerunnable === true,
      });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Queues a write that may wait: it rides along with the next group transaction instead of forcing an
   * fsync of its own (bookkeeping whose loss in a crash only repeats an at-least-once action), and is
   * flushed after `maxDelayMillis` at the latest. It must be one SQL statement: it runs without a savepoint
   * of its own (a statement that fails changes nothing; SQLite undoes it alone).
   */
  defer<T>(write: StoreWrite<T>, maxDelayMillis = DEFAULT_DEFER_MILLIS): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // One statement: a rollback undoes it whole, and it may run again.
      this.deferred.push({ write, resolve: resolve as (v: unknown) => void, reject, rerunnable: true });
      if (!this.deferTimer) {
        this.deferTimer = setTimeout(() => this.flush(), maxDelayMillis);
        this.deferTimer.unref();
      }
    });
  }

  /** Applies every queued write in one transaction now. */
  flush(): void {
    const started = performance.now();
    try {
      this.flushQueued();
    } finally {
      this.flushMillis += performance.now() - started;
    }
  }

  private flushQueued(): void {
    this.scheduled = false;
    if (this.deferTimer) clearTimeout(this.deferTimer);
    this.deferTimer = undefined;
    const batch = [...this.pending, ...this.deferred];
    const deferredCount = this.deferred.length;
    this.pending = [];
    this.deferred = [];
    if (batch.length === 0) return;
    if (batch.length === 1) {
      this.flushOne(batch[0]);
      return;
    }
    if (batch.every((item) => item.rerunnable) && this.flushWhole(batch)) return;
    const outcomes: { ok: boolean; value: unknown }[] = [];
    const firstDeferred = batch.length - deferredCount;
    try {
      this.transact(() => {
        batch.forEach((item, i) => {
          try {
            // Nested: a savepoint of its own, but for a deferred write (one statement, atomic by itself).
            outcomes.push({ ok: true, value: i >= firstDeferred ? item.write() : this.transact(item.write) });
          } catch (err) {
            this.onRollback();
            outcomes.push({ ok: false, value: err });
          }
        });
      });
    } catch (err) {
      // The COMMIT itself failed (disk full, I/O error): nothing of this batch is durable.
      this.onRollback();
      for (const item of batch) item.reject(err);
      return;
    }
    this.commits += 1;
    this.writes += batch.length;
    batch.forEach((item, i) => (outcomes[i].ok ? item.resolve(outcomes[i].value) : item.reject(outcomes[i].value)));
  }

  /**
   * Writes a group of rerunnable writes in one transaction without a savepoint each (two statements fewer
   * per write). Returns false, everything rolled back, when one of them threw: the caller writes the
   * group again with savepoints, so the failure stays that write's own.
   */
  private flushWhole(batch: readonly Pending[]): boolean {
    const values: unknown[] = [];
    let threw = false;
    try {
      this.transact(() => {
        for (const item of batch) {
          try {
            values.push(item.write());
          } catch (err) {
            threw = true;
            throw err;
          }
        }
      });
    } catch (err) {
      this.onRollback();
      if (threw) {
        this.rewrites += 1;
        return false;
      }
      // The COMMIT itself failed (disk full, I/O error): nothing of this batch is durable.
      for (const item of batch) item.reject(err);
      return true;
    }
    this.commits += 1;
    this.writes += batch.length;
    batch.forEach((item, i) => item.resolve(values[i]));
    return true;
  }

  /**
   * A lone write in a transaction of its own, without a savepoint (two statements fewer): if it throws,
   * the whole transaction rolls back, and that is its own.
   */
  private flushOne(item: Pending): void {
    let value: unknown;
    try {
      value = this.transact(item.write);
    } catch (err) {
      this.onRollback();
      item.reject(err);
      return;
    }
    this.commits += 1;
    this.writes += 1;
    item.resolve(value);
  }

  /** Whether no write is waiting for the next transaction (deferred writes do not count). */
  get idle(): boolean {
    return this.pending.length === 0;
  }
}
