import { AutosaveError } from '../errors';

/** The scripted model has no response for this workflow/step/turn: the script, not the run, must change. */
export class ModelScriptExhaustedError extends AutosaveError {
  override readonly name = 'ModelScriptExhaustedError';
}
