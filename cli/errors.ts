import { AutosaveError } from '../lib/errors';

/** The command line itself is wrong (unknown option, missing argument): exit code 2. */
export class CliUsageError extends AutosaveError {
  override readonly name = 'CliUsageError';
}

/** No execution matches the ARN or name given to a command. */
export class RunNotFoundError extends AutosaveError {
  override readonly name = 'RunNotFoundError';
}

/** A name given to a command matches more than one execution; the ARN is needed. */
export class RunAmbiguousError extends AutosaveError {
  override readonly name = 'RunAmbiguousError';
}

/** No workflow of that name is deployed (or known to the registry). */
export class WorkflowNotFoundError extends AutosaveError {
  override readonly name = 'WorkflowNotFoundError';
}

/** No pending approval matches the id given to `autosave approve`. */
export class ApprovalNotFoundError extends AutosaveError {
  override readonly name = 'ApprovalNotFoundError';
}

/** The approval endpoint refused a decision (expired, forged, already decided...). */
export class ApprovalRefusedError extends AutosaveError {
  override readonly name = 'ApprovalRefusedError';
}

/** The dead-letter queue cannot be found (no `AUTOSAVE_DLQ_URL`, no queue named `autosave-dlq`). */
export class DeadLetterQueueNotFoundError extends AutosaveError {
  override readonly name = 'DeadLetterQueueNotFoundError';
}

/** Exit code of a command that ran and found a problem (or failed). */
export const EXIT_FAILURE = 1;
/** Exit code of a command line that could not be understood. */
export const EXIT_USAGE = 2;
