import { AutosaveError } from '@autosave/workflow/errors';

/** The command line itself is wrong (unknown option, missing argument): exit code 2. */
export class CliUsageError extends AutosaveError {
  override readonly name = 'CliUsageError';
}

/** Exit code of a command that ran and found a problem (or failed). */
export const EXIT_FAILURE = 1;
/** Exit code of a command line that could not be understood. */
export const EXIT_USAGE = 2;
