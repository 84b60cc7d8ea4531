/**
 * SQS errors as the JSON protocol carries them: `__type` `com.amazonaws.sqs#<Name>` plus the legacy query
 * error code in `x-amzn-query-error` (the SDK is query-compatible and reads both).
 */
export abstract class SqsServiceError extends Error {
  abstract override readonly name: string;
  /** The query-protocol code (`AWS.SimpleQueueService.NonExistentQueue`). */
  abstract readonly queryCode: string;
}

export class QueueDoesNotExistError extends SqsServiceError {
  override readonly name = 'QueueDoesNotExist';
  readonly queryCode = 'AWS.SimpleQueueService.NonExistentQueue';
  constructor(queue: string) {
    super(`The specified queue does not exist: ${queue}`);
  }
}

export class QueueNameExistsError extends SqsServiceError {
  override readonly name = 'QueueNameExists';
  readonly queryCode = 'QueueAlreadyExists';
  constructor(queue: string) {
    super(`A queue named ${queue} already exists with different attributes`);
  }
}

export class ReceiptHandleIsInvalidError extends SqsServiceError {
  override readonly name = 'ReceiptHandleIsInvalid';
  readonly queryCode = 'ReceiptHandleIsInvalid';
  constructor(handle: string) {
    super(`The input receipt handle "${handle}" is not a valid receipt handle.`);
  }
}

export class MessageNotInflightError extends SqsServiceError {
  override readonly name = 'MessageNotInflight';
  readonly queryCode = 'AWS.SimpleQueueService.MessageNotInflight';
  constructor() {
    super('The message referred to is not in flight.');
  }
}

export class InvalidAttributeNameError extends SqsServiceError {
  override readonly name = 'InvalidAttributeName';
  readonly queryCode = 'InvalidAttributeName';
  constructor(attribute: string) {
    super(`Unknown Attribute ${attribute}.`);
  }
}

export class InvalidParameterValueError extends SqsServiceError {
  override readonly name = 'InvalidParameterValue';
  readonly queryCode = 'InvalidParameterValue';
}

export class MissingParameterError extends SqsServiceError {
  override readonly name = 'MissingParameter';
  readonly queryCode = 'MissingParameter';
  constructor(parameter: string) {
    super(`The request must contain the parameter ${parameter}.`);
  }
}

export class SqsUnsupportedOperationError extends SqsServiceError {
  override readonly name = 'UnsupportedOperation';
  readonly queryCode = 'AWS.SimpleQueueService.UnsupportedOperation';
  constructor(operation: string) {
    super(`The local SQS does not support ${operation}`);
  }
}

/** A message body with characters SQS does not allow (outside XML 1.0's character range). */
export class InvalidMessageContentsError extends SqsServiceError {
  override readonly name = 'InvalidMessageContents';
  readonly queryCode = 'InvalidMessageContents';
  constructor() {
    super(
      'Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF',
    );
  }
}

/** A query-protocol `Action` that names no SQS operation. */
export class InvalidActionError extends SqsServiceError {
  override readonly name = 'InvalidAction';
  readonly queryCode = 'InvalidAction';
  constructor(action: string) {
    super(`The action ${action} is not valid for this endpoint.`);
  }
}

/** A query-protocol request without an `Action`. */
export class MissingActionError extends SqsServiceError {
  override readonly name = 'MissingAction';
  readonly queryCode = 'MissingAction';
  constructor() {
    super('The request must contain the parameter Action.');
  }
}
