import {
  LEASE_WAIT_RETRY,
  MAX_ATTEMPTS,
  RETRY_BACKOFF_RATE,
  RETRY_INTERVAL_SECONDS,
  RETRY_MAX_DELAY_SECONDS,
  seconds,
  type Duration,
} from './config';
import { LEASE_WAIT_ERRORS, NON_RETRYABLE_ERRORS, StatesError } from './errors';
import type { AslRetrier } from './asl-types';

/** How retry delays are spread: `FULL` picks each delay at random between 0 and the backoff value. */
export type JitterStrategy = 'FULL' | 'NONE';

/** Default jitter: full, so that a fleet of failed Tasks does not retry in lockstep. */
export const DEFAULT_JITTER_STRATEGY: JitterStrategy = 'FULL';

/**
 * Retry behaviour of a Task step. Every field has the house default; override per step only with a
 * reason (a rate-limited API may want a longer interval).
 */
export interface RetryOptions {
  /** Retries after the first attempt. @default MAX_ATTEMPTS (5) */
  readonly maxAttempts?: number;
  /** Delay before the first retry. @default seconds(RETRY_INTERVAL_SECONDS) (2 s) */
  readonly interval?: Duration;
  /** Growth of the delay per retry. @default RETRY_BACKOFF_RATE (2) */
  readonly backoffRate?: number;
  /** Cap on one delay. @default seconds(RETRY_MAX_DELAY_SECONDS) (60 s) */
  readonly maxDelay?: Duration;
  /** @default DEFAULT_JITTER_STRATEGY ('FULL') */
  readonly jitter?: JitterStrategy;
}

/** Inputs of {@link retryPolicy}. */
export interface RetryPolicyOptions {
  /** Per-step overrides of the backoff. @default the house defaults */
  readonly retry?: RetryOptions;
  /** Errors the step declares permanent, added to NON_RETRYABLE_ERRORS. @default none */
  readonly nonRetryableErrors?: readonly string[];
}

/**
 * What is wrong with retry overrides, by ASL's rules for a Retrier (whole seconds >= 1, attempts >= 0,
 * backoff rate >= 1), or undefined when they are fine.
 */
export function retryOptionsProblem(r: RetryOptions): string | undefined {
  const wholeAtLeast = (v: number | undefined, min: number) => v === undefined || (Number.isInteger(v) && v >= min);
  if (!wholeAtLeast(r.maxAttempts, 0)) return `retry.maxAttempts must be a whole number >= 0, got ${r.maxAttempts}`;
  if (!wholeAtLeast(r.interval?.seconds, 1))
    return `retry.interval must be whole seconds >= 1, got ${r.interval?.seconds}`;
  if (!wholeAtLeast(r.maxDelay?.seconds, 1))
    return `retry.maxDelay must be whole seconds >= 1, got ${r.maxDelay?.seconds}`;
  if (r.backoffRate !== undefined && !(r.backoffRate >= 1))
    return `retry.backoffRate must be >= 1, got ${r.backoffRate}`;
  return undefined;
}

/**
 * The Retry list of a Task (docs/architecture.md §1): first the errors that must never be retried
 * (the shared table, then the step's own) with `MaxAttempts: 0`, then a long un-jittered wait for a
 * live idempotency claim of another attempt to lapse (LEASE_WAIT_RETRY), then `States.ALL`, alone and last,
 * with exponential backoff and jitter. There is deliberately no Catch to a Fail state: an exhausted
 * Task fails the execution at that Task, so RedriveExecution re-runs exactly that Task.
 */
export function retryPolicy(options: RetryPolicyOptions = {}): AslRetrier[] {
  const r = options.retry ?? {};
  const never = [...new Set([...NON_RETRYABLE_ERRORS, ...(options.nonRetryableErrors ?? [])])];
  return [
    { ErrorEquals: never, MaxAttempts: 0 },
    {
      ErrorEquals: [...LEASE_WAIT_ERRORS],
      IntervalSeconds: LEASE_WAIT_RETRY.intervalSeconds,
      MaxAttempts: LEASE_WAIT_RETRY.maxAttempts,
      BackoffRate: LEASE_WAIT_RETRY.backoffRate,
      MaxDelaySeconds: LEASE_WAIT_RETRY.maxDelaySeconds,
      JitterStrategy: 'NONE',
    },
    {
      ErrorEquals: [StatesError.ALL],
      IntervalSeconds: (r.interval ?? seconds(RETRY_INTERVAL_SECONDS)).seconds,
      MaxAttempts: r.maxAttempts ?? MAX_ATTEMPTS,
      BackoffRate: r.backoffRate ?? RETRY_BACKOFF_RATE,
      MaxDelaySeconds: (r.maxDelay ?? seconds(RETRY_MAX_DELAY_SECONDS)).seconds,
      JitterStrategy: r.jitter ?? DEFAULT_JITTER_STRATEGY,
    },
  ];
}
