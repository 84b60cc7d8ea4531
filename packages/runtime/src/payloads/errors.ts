import { AutosaveError } from '@autosave/workflow/errors';

/** A payload reference whose bytes do not match its sha256 or length: tampering or corruption. Never retried. */
export class PayloadIntegrityError extends AutosaveError {
  override readonly name = 'PayloadIntegrityError';
}
