import { describe, expect, it } from 'vitest';
import { days } from '../../workflow/src/config/duration';
import { type TimeDriven, VirtualClock } from '../src/virtual-clock';

/** A timer owner firing each due timer at the clock's time, recording when. */
class Timers implements TimeDriven {
  readonly fired: { name: string; at: number }[] = [];
  constructor(
    private readonly clock: VirtualClock,
    private readonly pending: { name: string; dueMs: number; then?: () => void }[],
  ) {}
  nextDueMillis() {
    return this.pending.length ? Math.min(...this.pending.map((p) => p.dueMs)) : undefined;
  }
  async fireDue() {
    const due = this.pending.filter((p) => p.dueMs <= this.clock.now());
    for (const p of due) {
      this.pending.splice(this.pending.indexOf(p), 1);
      this.fired.push({ name: p.name, at: this.clock.now() });
      p.then?.();
    }
  }
  async settled() {}
  add(name: string, dueMs: number) {
    this.pending.push({ name, dueMs });
  }
}

describe('VirtualClock', () => {
  it('fires due timers in due order, each at its own time, including timers the firing adds', async () => {
    const clock = new VirtualClock(0);
    const timers: Timers = new Timers(clock, []);
    timers.add('b', 2000);
    timers.add('a', 1000);
    (timers as unknown as { pending: { name: string; dueMs: number; then?: () => void }[] }).pending.push({
      name: 'c',
      dueMs: 1500,
      then: () => timers.add('d', 1600),
    });
    clock.attach(timers);
    await clock.advance(days(1));
    expect(timers.fired).toEqual([
      { name: 'a', at: 1000 },
      { name: 'c', at: 1500 },
      { name: 'd', at: 1600 },
      { name: 'b', at: 2000 },
    ]);
    expect(clock.now()).toBe(86_400_000);
  });

  it('leaves timers beyond the target pending', async () => {
    const clock = new VirtualClock(0);
    const timers = new Timers(clock, [{ name: 'late', dueMs: 5000 }]);
    clock.attach(timers);
    await clock.advance(4999);
    expect(timers.fired).toEqual([]);
    await clock.advance(1);
    expect(timers.fired).toEqual([{ name: 'late', at: 5000 }]);
  });

  it('refuses to go backwards', async () => {
    await expect(new VirtualClock(0).advance(-1)).rejects.toThrow(RangeError);
  });
});
