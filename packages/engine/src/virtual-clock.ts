import { type Clock, type Duration, toMillis } from '@autosave/workflow/config';

/** Something whose timers a {@link VirtualClock} drives (the engine's timer service). */
export interface TimeDriven {
  /** Epoch ms of the earliest pending timer, if any. */
  nextDueMillis(): number | undefined;
  /** Fires every timer due at the clock's current time. */
  fireDue(): Promise<void>;
  /** Resolves once the work started by fired timers has settled. */
  settled(): Promise<void>;
}

/** Where a virtual clock starts when no time is given: 2026-01-01T00:00:00Z. */
export const DEFAULT_VIRTUAL_EPOCH_MILLIS = Date.UTC(2026, 0, 1);

/**
 * A clock that only moves when told. `advance(days(5))` fires every timer due in those five days in due
 * order — each at its own due time, with the work it starts settled before the next fires — so a 5-day
 * approval timeout or a retry backoff happens at once, with the history a real clock would give.
 */
export class VirtualClock implements Clock {
  private nowMillis: number;
  private readonly driven = new Set<TimeDriven>();

  constructor(startMillis: number = DEFAULT_VIRTUAL_EPOCH_MILLIS) {
    this.nowMillis = startMillis;
  }

  now(): number {
    return this.nowMillis;
  }

  /** Registers a timer owner; returns the function that unregisters it. */
  attach(driven: TimeDriven): () => void {
    this.driven.add(driven);
    return () => this.driven.delete(driven);
  }

  /** Moves time forward by `duration` (a Duration or milliseconds), firing what comes due on the way. */
  async advance(duration: Duration | number): Promise<void> {
    const millis = typeof duration === 'number' ? duration : toMillis(duration);
    if (!(millis >= 0)) throw new RangeError(`Cannot advance a clock by ${millis} ms`);
    await this.advanceTo(this.nowMillis + millis);
  }

  /** Moves time forward to `targetMillis`, firing what comes due on the way. */
  async advanceTo(targetMillis: number): Promise<void> {
    await this.settle();
    for (;;) {
      let next: number | undefined;
      for (const d of this.driven) {
        const due = d.nextDueMillis();
        if (due !== undefined && (next === undefined || due < next)) next = due;
      }
      if (next === undefined || next > targetMillis) break;
      this.nowMillis = Math.max(this.nowMillis, next);
      await Promise.all([...this.driven].map((d) => d.fireDue()));
      await this.settle();
    }
    this.nowMillis = Math.max(this.nowMillis, targetMillis);
    await this.settle();
  }

  private async settle(): Promise<void> {
    await Promise.all([...this.driven].map((d) => d.settled()));
  }
}
