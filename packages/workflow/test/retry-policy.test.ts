import { describe, expect, it } from 'vitest';
import { LEASE_WAIT_RETRY, MAX_ATTEMPTS } from '@autosave/workflow/config';
import { LEASE_WAIT_ERRORS, NON_RETRYABLE_ERRORS, StatesError } from '@autosave/workflow/errors';
import { retryPolicy } from '../src/retry-policy';
import { functionSpec } from '@autosave/runtime/handlers';

/** The delays Step Functions waits before each retry of a retrier without jitter. */
function unjitteredDelays(r: {
  IntervalSeconds?: number;
  BackoffRate?: number;
  MaxDelaySeconds?: number;
  MaxAttempts?: number;
}): number[] {
  return Array.from({ length: r.MaxAttempts ?? 0 }, (_, i) =>
    Math.min((r.IntervalSeconds ?? 1) * (r.BackoffRate ?? 2) ** i, r.MaxDelaySeconds ?? Infinity),
  );
}

describe('retryPolicy', () => {
  const [never, leaseWait, all] = retryPolicy({ nonRetryableErrors: ['SiteClosedError'] });

  it('never retries the shared non-retryable errors and the step’s own', () => {
    expect(never.MaxAttempts).toBe(0);
    expect(never.ErrorEquals).toEqual([...NON_RETRYABLE_ERRORS, 'SiteClosedError']);
  });

  it('retries everything else with the house backoff, States.ALL alone and last', () => {
    expect(all).toEqual({
      ErrorEquals: [StatesError.ALL],
      IntervalSeconds: 2,
      MaxAttempts: MAX_ATTEMPTS,
      BackoffRate: 2,
      MaxDelaySeconds: 60,
      JitterStrategy: 'FULL',
    });
  });

  it('waits out a crashed attempt’s idempotency lease before giving up', () => {
    expect(leaseWait.ErrorEquals).toEqual([...LEASE_WAIT_ERRORS]);
    expect(leaseWait.JitterStrategy).toBe('NONE');
    const waited = unjitteredDelays(leaseWait).reduce((a, b) => a + b, 0);
    expect(waited).toBe(5 + 10 + 20 + 30 * 5);
    // The longest claim a crashed tool-step can leave behind is its whole timeout.
    expect(waited).toBeGreaterThan(functionSpec('tool-step').timeoutSeconds * 2);
    expect(leaseWait.MaxAttempts).toBe(LEASE_WAIT_RETRY.maxAttempts);
  });
});
