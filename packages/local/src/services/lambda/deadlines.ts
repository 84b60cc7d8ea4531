/**
 * The timeouts of the invocations in flight, watched by one timer. A timer per invocation (created, then
 * cleared a few microseconds later when the handler answers) cost more than the in-process invocation
 * itself; here an invocation only adds its deadline to a set and takes it out again.
 *
 * ```
 *  add(t+30s) ─ arm timer at t+30s ─┐   add(t+31s), add(t+32s) ... (later deadlines: the timer stays)
 *                                   └─ fires: expires what is due, re-arms for the earliest left
 * ```
 * The timer holds the process open only while some invocation is in flight (it is unref'd otherwise).
 */
export class Deadlines {
  private readonly pending = new Set<Deadline>();
  private timer?: NodeJS.Timeout;
  /** When the armed timer fires (epoch ms); infinite when none is armed. */
  private timerDueMs = Number.POSITIVE_INFINITY;

  /**
   * Calls `expire` at `dueMs` (epoch ms, `Date.now()`'s clock) unless the returned function is called
   * first (the invocation ended).
   */
  add(dueMs: number, expire: () => void): () => void {
    const deadline: Deadline = { dueMs, expire };
    this.pending.add(deadline);
    if (dueMs < this.timerDueMs) this.arm(dueMs);
    else if (this.pending.size === 1) this.timer?.ref();
    return () => {
      if (this.pending.delete(deadline) && this.pending.size === 0) this.timer?.unref();
    };
  }

  private arm(dueMs: number): void {
    clearTimeout(this.timer);
    this.timerDueMs = dueMs;
    this.timer = setTimeout(() => this.fire(), Math.max(0, dueMs - Date.now()));
  }

  private fire(): void {
    this.timer = undefined;
    this.timerDueMs = Number.POSITIVE_INFINITY;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const deadline of [...this.pending]) {
      if (deadline.dueMs <= now) {
        this.pending.delete(deadline);
        deadline.expire();
      } else if (deadline.dueMs < next) {
        next = deadline.dueMs;
      }
    }
    if (next < Number.POSITIVE_INFINITY) this.arm(next);
  }
}

interface Deadline {
  readonly dueMs: number;
  readonly expire: () => void;
}
