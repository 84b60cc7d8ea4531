import { AutosaveError } from '@autosave/workflow/errors';

/** No execution matches the ARN or name given. */
export class RunNotFoundError extends AutosaveError {
  override readonly name = 'RunNotFoundError';
}

/** A name matches more than one execution; the ARN is needed. */
export class RunAmbiguousError extends AutosaveError {
  override readonly name = 'RunAmbiguousError';
}

/** A filter value for the run list is not one it knows (e.g. an unknown status). */
export class InvalidRunFilterError extends AutosaveError {
  override readonly name = 'InvalidRunFilterError';
}

/** No workflow of that name is deployed (or known to the registry). */
export class WorkflowNotFoundError extends AutosaveError {
  override readonly name = 'WorkflowNotFoundError';
}

/** No pending approval matches the id given. */
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

/** No dead letter matches the message id, run name or execution ARN given. */
export class DeadLetterNotFoundError extends AutosaveError {
  override readonly name = 'DeadLetterNotFoundError';
}

/** The input given for a new run is not JSON. */
export class InvalidRunInputError extends AutosaveError {
  override readonly name = 'InvalidRunInputError';
}
