import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadlines } from '../../../src/services/lambda/deadlines';

describe('Deadlines: the timeouts of invocations in flight on one timer', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('expires each deadline at its time, an earlier one added after a later one included', () => {
    const deadlines = new Deadlines();
    const expired: string[] = [];
    deadlines.add(30_000, () => expired.push('30s'));
    deadlines.add(1_000, () => expired.push('1s'));
    deadlines.add(31_000, () => expired.push('31s'));
    vi.advanceTimersByTime(999);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['1s']);
    vi.advanceTimersByTime(29_000);
    expect(expired).toEqual(['1s', '30s']);
    vi.advanceTimersByTime(1_000);
    expect(expired).toEqual(['1s', '30s', '31s']);
  });

  it('never expires an invocation that ended first, and still expires the others', () => {
    const deadlines = new Deadlines();
    const expired: string[] = [];
    const ended = deadlines.add(1_000, () => expired.push('ended'));
    deadlines.add(2_000, () => expired.push('in flight'));
    ended();
    vi.advanceTimersByTime(5_000);
    expect(expired).toEqual(['in flight']);
  });

  it('arms again for a deadline added after every earlier one ended or expired', () => {
    const deadlines = new Deadlines();
    const expired: string[] = [];
    deadlines.add(1_000, () => expired.push('first'))();
    vi.advanceTimersByTime(1_000);
    deadlines.add(3_000, () => expired.push('second'));
    vi.advanceTimersByTime(1_999);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['second']);
  });
});
