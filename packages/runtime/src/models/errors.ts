import { AutosaveError } from '@autosave/workflow/errors';

/** The scripted model has no response for this workflow/step/turn: the script, not the run, must change. */
export class ModelScriptExhaustedError extends AutosaveError {
  override readonly name = 'ModelScriptExhaustedError';
}

/**
 * Bedrock refused the request for a reason a retry cannot fix: the model id is wrong or needs an
 * inference profile (`ValidationException`), the role or the account lacks access to the model
 * (`AccessDeniedException`), or the model or profile does not exist in this region
 * (`ResourceNotFoundException`). Listed in NON_RETRYABLE_ERRORS, so the step fails at once and a
 * redrive (after the fix) re-runs it. The Bedrock error is the `cause`.
 */
export class ModelRequestRejectedError extends AutosaveError {
  override readonly name = 'ModelRequestRejectedError';
}

/**
 * Bedrock error names that are permanent for the request that got them. Throttling, timeouts, 5xx and
 * `ModelNotReadyException` are not here: they pass through under their own names and are retried.
 */
export const BEDROCK_PERMANENT_ERRORS: readonly string[] = [
  'ValidationException',
  'AccessDeniedException',
  'ResourceNotFoundException',
];

/** A model provider given to `modelStepHandler` that cannot answer (no `converse` method). */
export class ModelProviderDefinitionError extends AutosaveError {
  override readonly name = 'ModelProviderDefinitionError';
}
