import { AutosaveError } from '@autosave/workflow/errors';

/**
 * Another attempt holds a live claim on this key. Retryable (listed in RETRYABLE_ERRORS): the state
 * machine backs off and comes back after the holder has finished or its lease has run out.
 */
export class IdempotencyInProgressError extends AutosaveError {
  override readonly name = 'IdempotencyInProgressError';
  constructor(
    readonly key: string,
    readonly leaseExpiresAtMillis: number,
  ) {
    super(
      `Idempotency key "${key}" is claimed by another attempt until ${new Date(leaseExpiresAtMillis).toISOString()}`,
    );
  }
}

/** The same key arrived with a different payload: a bug in the workflow, never retried. */
export class IdempotencyKeyMismatchError extends AutosaveError {
  override readonly name = 'IdempotencyKeyMismatchError';
  constructor(readonly key: string) {
    super(`Idempotency key "${key}" was first used with a different payload`);
  }
}

/**
 * The attempt ran past its own deadline (its Lambda timeout) before it could act: on Lambda its sandbox would
 * have been stopped, and a retry may already hold the key. It does not act. Retryable with the ordinary
 * backoff: the retry takes the claim over (released or lapsed) and reconciles before acting.
 */
export class IdempotencyAttemptTimedOutError extends AutosaveError {
  override readonly name = 'IdempotencyAttemptTimedOutError';
  constructor(
    readonly key: string,
    readonly deadlineMillis: number,
  ) {
    super(
      `The attempt on idempotency key "${key}" passed its deadline (${new Date(deadlineMillis).toISOString()}) before it could act`,
    );
  }
}
