import { AutosaveError } from './autosave-error';

/** Input that does not parse as the step expects (listed in NON_RETRYABLE_ERRORS). */
export class InvalidStepInputError extends AutosaveError {
  override readonly name = 'InvalidStepInputError';
}
