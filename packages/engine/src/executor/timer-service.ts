import type { Clock } from '@autosave/workflow/config';
import type { EngineStore, TimerRow } from '../store';
import { type TimeDriven, VirtualClock } from '../virtual-clock';

/** Longest single setTimeout Node accepts (~24.8 days); longer waits re-arm. */
const MAX_TIMEOUT_MILLIS = 2 ** 31 - 1;
/** Timers delivered per firing round. */
const FIRE_BATCH = 500;

/**
 * Fires the timer rows of the store (Wait states, retry backoffs, task timeouts and heartbeats) at their
 * due times — late if the engine was down. One `setTimeout` for the earliest row on a real clock; on a
 * {@link VirtualClock} the clock drives it. Holds no memory per waiting execution.
 */
export class TimerService implements TimeDriven {
  private handle?: NodeJS.Timeout;
  private armedFor?: number;
  private readonly delivering = new Set<string>();
  private detach?: () => void;
  private stopped = false;
  private immediate?: Promise<void>;

  /** Resolves once due timers fired on the next turn (virtual clock) have been delivered. */
  async flushImmediate(): Promise<boolean> {
    if (!this.immediate) return false;
    await this.immediate;
    return true;
  }

  constructor(
    private readonly store: EngineStore,
    private readonly clock: Clock,
    private readonly deliver: (timer: TimerRow) => Promise<void>,
    private readonly settledWork: () => Promise<void>,
  ) {
    if (clock instanceof VirtualClock) this.detach = clock.attach(this);
  }

  /**
   * (Re-)arms the real-clock timeout for the earliest row. On a virtual clock nothing moves time but
   * `advance`; timers already due at the clock's time (a Wait for a past timestamp, overdue timers after a
   * restart) fire on the next turn.
   */
  arm(): void {
    if (this.stopped) return;
    if (this.detach) {
      const due = this.nextDueMillis();
      if (due !== undefined && due <= this.clock.now() && !this.immediate) {
        this.immediate = new Promise<void>((resolve) => setImmediate(resolve))
          .then(() => this.fireDue())
          .finally(() => (this.immediate = undefined));
      }
      return;
    }
    const next = this.nextDueMillis();
    if (next === undefined) return;
    if (this.handle && this.armedFor !== undefined && this.armedFor <= next) return;
    if (this.handle) clearTimeout(this.handle);
    this.armedFor = next;
    const delay = Math.min(Math.max(0, next - this.clock.now()), MAX_TIMEOUT_MILLIS);
    this.handle = setTimeout(() => {
      this.handle = undefined;
      this.armedFor = undefined;
      // Armed again at once for the timers not being delivered: one long delivery (a state whose
      // expression evaluates up to its budget) must not hold every other run's timers until it ends.
      const firing = this.fireDue();
      this.arm();
      void firing.then(() => this.arm());
    }, delay);
    this.handle.unref();
  }

  nextDueMillis(): number | undefined {
    if (this.stopped) return undefined;
    if (this.delivering.size === 0) return this.store.earliestTimer()?.due_ms;
    const rows = this.store.earliestTimers(this.delivering.size + 1);
    return rows.find((r) => !this.delivering.has(keyOf(r)))?.due_ms;
  }

  async fireDue(): Promise<void> {
    if (this.stopped) return;
    const due = this.store
      .dueTimers(this.clock.now(), FIRE_BATCH + this.delivering.size)
      .filter((r) => !this.delivering.has(keyOf(r)));
    await Promise.all(
      due.map(async (timer) => {
        const key = keyOf(timer);
        this.delivering.add(key);
        try {
          await this.deliver(timer);
        } finally {
          // A timer nobody consumed (its frame moved on) must not fire again.
          if (!this.stopped) {
            await this.store.committer.commit(() => this.store.deleteTimer(timer)).catch(() => undefined);
          }
          this.delivering.delete(key);
        }
      }),
    );
  }

  settled(): Promise<void> {
    return this.settledWork();
  }

  stop(): void {
    this.stopped = true;
    if (this.handle) clearTimeout(this.handle);
    this.detach?.();
  }
}

const keyOf = (t: TimerRow): string =>
  `${t.execution_arn}\u0000${t.frame_id}\u0000${t.kind}\u0000${t.seq}\u0000${t.due_ms}`;
