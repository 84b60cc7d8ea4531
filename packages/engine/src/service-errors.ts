/**
 * The Step Functions API errors, one class per `__type` the service answers with. `name` is the literal
 * `__type` (never `constructor.name`), so the HTTP layer writes `{"__type": err.name, "message": ...}`.
 */
export abstract class SfnServiceError extends Error {
  abstract override readonly name: string;
  /** HTTP status the service answers this error with. */
  readonly httpStatus: number = 400;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A request field is missing or out of range. */
export class ValidationException extends SfnServiceError {
  override readonly name = 'ValidationException';
}
/** An ARN that does not parse or names the wrong kind of resource. */
export class InvalidArn extends SfnServiceError {
  override readonly name = 'InvalidArn';
}
/** A definition the engine cannot run. */
export class InvalidDefinition extends SfnServiceError {
  override readonly name = 'InvalidDefinition';
}
/** A state machine, alias or execution name breaking the naming rules. */
export class InvalidName extends SfnServiceError {
  override readonly name = 'InvalidName';
}
/** A state machine of this name exists with another definition or role. */
export class StateMachineAlreadyExists extends SfnServiceError {
  override readonly name = 'StateMachineAlreadyExists';
}
/** No state machine (or version) with this ARN. */
export class StateMachineDoesNotExist extends SfnServiceError {
  override readonly name = 'StateMachineDoesNotExist';
}
/** No alias or version with this ARN. */
export class ResourceNotFound extends SfnServiceError {
  override readonly name = 'ResourceNotFound';
}
/** A change conflicting with the resource's current state. */
export class ConflictException extends SfnServiceError {
  override readonly name = 'ConflictException';
}
/** A quota (versions, aliases) is used up. */
export class ServiceQuotaExceededException extends SfnServiceError {
  override readonly name = 'ServiceQuotaExceededException';
}
/** No execution with this ARN. */
export class ExecutionDoesNotExist extends SfnServiceError {
  override readonly name = 'ExecutionDoesNotExist';
}
/** The execution name is taken by a closed run or a run with another input. */
export class ExecutionAlreadyExists extends SfnServiceError {
  override readonly name = 'ExecutionAlreadyExists';
}
/** Execution input that is not JSON or is over 256 KiB. */
export class InvalidExecutionInput extends SfnServiceError {
  override readonly name = 'InvalidExecutionInput';
}
/** The execution cannot be redriven (not failed, too old, ...). */
export class ExecutionNotRedrivable extends SfnServiceError {
  override readonly name = 'ExecutionNotRedrivable';
}
/** A task token (or pagination token) that is malformed. */
export class InvalidToken extends SfnServiceError {
  override readonly name = 'InvalidToken';
}
/** A well-formed task token no task ever had. */
export class TaskDoesNotExist extends SfnServiceError {
  override readonly name = 'TaskDoesNotExist';
}
/** A task token whose task has already closed or timed out. */
export class TaskTimedOut extends SfnServiceError {
  override readonly name = 'TaskTimedOut';
}
/** Task output that is not JSON or is over 256 KiB. */
export class InvalidOutput extends SfnServiceError {
  override readonly name = 'InvalidOutput';
}
/** No activity with this ARN. */
export class ActivityDoesNotExist extends SfnServiceError {
  override readonly name = 'ActivityDoesNotExist';
}
/** An activity of this name exists with another encryption configuration (which may not be updated). */
export class ActivityAlreadyExists extends SfnServiceError {
  override readonly name = 'ActivityAlreadyExists';
}
/** The account's quota of activities is used up. */
export class ActivityLimitExceeded extends SfnServiceError {
  override readonly name = 'ActivityLimitExceeded';
}
/** Too many workers poll one activity at once (GetActivityTask). */
export class ActivityWorkerLimitExceeded extends SfnServiceError {
  override readonly name = 'ActivityWorkerLimitExceeded';
}
/** More tags than a resource may have. */
export class TooManyTags extends SfnServiceError {
  override readonly name = 'TooManyTags';
}
/** The engine is stopping (or a transition failed before its commit): nothing happened, try again. */
export class ServiceUnavailable extends SfnServiceError {
  override readonly name = 'ServiceUnavailable';
  override readonly httpStatus = 503;
}
/** The operation does not apply to this type of state machine (StartSyncExecution on STANDARD, ListExecutions on EXPRESS). */
export class StateMachineTypeNotSupported extends SfnServiceError {
  override readonly name = 'StateMachineTypeNotSupported';
}
/** An operation the engine does not implement. */
export class UnknownOperationException extends SfnServiceError {
  override readonly name = 'UnknownOperationException';
}
