import { AutosaveError } from '@autosave/workflow/errors';

/** The tool says this request can never succeed (bad address, unknown site...). Never retried. */
export class ToolRejectedError extends AutosaveError {
  override readonly name = 'ToolRejectedError';
}
