import { StatesError } from './states-errors';

/**
 * Which named errors a retry can fix. One table, as data: the workflow compiler turns it into each
 * Task's Retry list, and the runtime and local engine read it too. An error not listed here is treated
 * as transient (retried with backoff) unless a step declares it non-retryable.
 */
export const NON_RETRYABLE_ERRORS: readonly string[] = [
  // The same idempotency key arrived with a different payload: a bug, not a blip.
  'IdempotencyKeyMismatchError',
  // A payload reference whose bytes do not match its sha256 (tampering or corruption).
  'PayloadIntegrityError',
  // A tool said the request can never succeed (bad address, unknown site...).
  'ToolRejectedError',
  // A scripted model has no response left for this turn: the script, not the run, must change.
  'ModelScriptExhaustedError',
  // Bedrock refused the model call for good: wrong model id, no access, no such model or profile here.
  'ModelRequestRejectedError',
  // Input that does not parse as the step expects.
  'InvalidStepInputError',
  // A JSONata expression that fails or yields nothing fails the same way on every attempt.
  StatesError.QueryEvaluationError,
];

/**
 * Errors that mean "another attempt holds this key: come back once its lease has lapsed". The compiler
 * gives them their own retrier, long enough to outlast the lease of a crashed attempt (see
 * LEASE_WAIT_RETRY in lib/config/constants.ts); the ordinary backoff could give up before it lapses.
 */
export const LEASE_WAIT_ERRORS: readonly string[] = ['IdempotencyInProgressError'];

// IdempotencyAttemptTimedOutError (an attempt past its deadline before it acted) is not listed: the ordinary
// backoff fits it, as the retry comes after the timed-out attempt's claim was released.

/** Errors that are retried even though they look permanent. */
export const RETRYABLE_ERRORS: readonly string[] = LEASE_WAIT_ERRORS;

/** Whether a retry with backoff may fix an error of this name. */
export function isRetryableError(name: string, extraNonRetryable: readonly string[] = []): boolean {
  if (RETRYABLE_ERRORS.includes(name)) return true;
  return !NON_RETRYABLE_ERRORS.includes(name) && !extraNonRetryable.includes(name);
}
