import { AutosaveError } from '@autosave/workflow/errors';

/** A run the engine cannot take in as it was sent (still running, a history with gaps or without its data); the message says why and what to do. */
export class ImportRefusedError extends AutosaveError {
  override readonly name = 'ImportRefusedError';
}
