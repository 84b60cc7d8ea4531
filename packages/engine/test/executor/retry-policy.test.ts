import { describe, expect, it } from 'vitest';
import { errorMatches, findCatcher, findRetrier, retryDelayMillis } from '../../src/executor/retry-policy';

describe('errorMatches', () => {
  it.each([
    [['States.ALL'], 'AnyError', true],
    [['States.ALL'], 'States.Timeout', true],
    [['States.ALL'], 'States.Runtime', false],
    [['States.ALL'], 'States.DataLimitExceeded', false],
    // AWS: States.Runtime is never retried or caught, even by name (test_catch_states_runtime).
    [['States.Runtime'], 'States.Runtime', false],
    [['States.DataLimitExceeded'], 'States.DataLimitExceeded', true],
    [['States.TaskFailed'], 'Lambda.ServiceException', true],
    [['States.TaskFailed'], 'States.Timeout', false],
    [['States.TaskFailed'], 'States.HeartbeatTimeout', false],
    [['States.Timeout'], 'States.HeartbeatTimeout', true],
    [['States.HeartbeatTimeout'], 'States.Timeout', false],
    [['MyError'], 'MyError', true],
    [['MyError'], 'OtherError', false],
  ])('%j matches %s: %s', (errorEquals, error, expected) => {
    expect(errorMatches(errorEquals, error)).toBe(expected);
  });

  it('picks the first matching retrier and catcher', () => {
    const retry = [{ ErrorEquals: ['A'] }, { ErrorEquals: ['States.ALL'] }];
    expect(findRetrier(retry, 'A')).toBe(0);
    expect(findRetrier(retry, 'B')).toBe(1);
    expect(findRetrier(undefined, 'B')).toBe(-1);
    expect(
      findCatcher(
        [
          { ErrorEquals: ['X'], Next: 'x' },
          { ErrorEquals: ['States.ALL'], Next: 'all' },
        ],
        'Y',
      )?.Next,
    ).toBe('all');
  });
});

describe('retryDelayMillis', () => {
  it.each([
    [{ ErrorEquals: ['States.ALL'] }, [1000, 2000, 4000]],
    [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 2, BackoffRate: 3 }, [2000, 6000, 18000]],
    [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 2, BackoffRate: 2, MaxDelaySeconds: 5 }, [2000, 4000, 5000]],
  ])('%j waits %j', (retrier, expected) => {
    expect([0, 1, 2].map((n) => retryDelayMillis(retrier, n, () => 0.99))).toEqual(expected);
  });

  it('applies FULL jitter as a uniform pick below the computed delay', () => {
    const r = { ErrorEquals: ['States.ALL'], IntervalSeconds: 10, JitterStrategy: 'FULL' as const };
    expect(retryDelayMillis(r, 0, () => 0)).toBe(0);
    expect(retryDelayMillis(r, 0, () => 0.25)).toBe(2500);
    expect(retryDelayMillis(r, 1, () => 0.5)).toBe(10000);
  });
});
