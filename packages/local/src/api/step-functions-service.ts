import { type AwsJsonService, isNamedServiceError } from './aws-json-protocol';

/** What the API layer needs of the engine: Step Functions operations in their wire shapes. */
export interface StepFunctionsHandler {
  /** Runs one operation; throws an error whose `name` is the API's `__type` on a service error. */
  handle(operation: string, input: object): Promise<object>;
}

/** Serves `AWSStepFunctions.*` targets from the engine, a thin layer: the engine owns every shape. */
export function stepFunctionsService(engine: StepFunctionsHandler): AwsJsonService {
  return {
    targetPrefix: 'AWSStepFunctions',
    handle: (operation, input) => engine.handle(operation, input),
    describeError: (err) =>
      isNamedServiceError(err)
        ? { type: err.name, message: err.message, statusCode: (err as { httpStatus?: number }).httpStatus ?? 400 }
        : undefined,
    serializationError: (message) => ({ type: 'SerializationException', message }),
  };
}
