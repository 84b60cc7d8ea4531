import { StatesError } from '@autosave/workflow/errors';
import type { StatesErrorLike } from './types';

/**
 * A failure of a state's data flow. `name` is the ASL error name, so the executor can match it
 * against `ErrorEquals` and write it to history as it is; the message becomes the `Cause`.
 */
export abstract class StatesDataFlowError extends Error implements StatesErrorLike {
  abstract override readonly name: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A JSONata expression failed, or yielded no value (or a value of the wrong type) where one is required. */
export class QueryEvaluationError extends StatesDataFlowError {
  override readonly name = StatesError.QueryEvaluationError;
  /** The field whose expression failed (`Output/result`, `Items`), as AWS's `EvaluationFailed` event names it. */
  readonly location?: string;

  constructor(message: string, options?: { cause?: unknown; location?: string }) {
    super(message, options);
    if (options?.location !== undefined) this.location = options.location;
  }
}

/** A JSONPath path that selects nothing, or a value of the wrong shape (`States.Runtime`, never retried). */
export class StatesRuntimeError extends StatesDataFlowError {
  override readonly name = StatesError.Runtime;
}

/**
 * A Map state's `ToleratedFailureCount`/`Percentage` read from a path out of range. A `States.Runtime`
 * error that the service raises once the Map has started (after `MapStateStarted`), unlike the other
 * limits, which fail it before.
 */
export class MapToleranceError extends StatesRuntimeError {}

/** An intrinsic function (`States.Format`, ...) failed on its arguments. */
export class IntrinsicFailureError extends StatesDataFlowError {
  override readonly name = StatesError.IntrinsicFailure;
}

/** A `ResultPath` that cannot be inserted into the state input. */
export class ResultPathMatchFailureError extends StatesDataFlowError {
  override readonly name = StatesError.ResultPathMatchFailure;
}

/** No Choice rule matched and the Choice state has no `Default`. */
export class NoChoiceMatchedError extends StatesDataFlowError {
  override readonly name = StatesError.NoChoiceMatched;
}

/** A state's output or a Task's result is over the 256 KiB payload limit (no Catch takes it). */
export class DataLimitExceededError extends StatesDataFlowError {
  override readonly name = StatesError.DataLimitExceeded;
}
