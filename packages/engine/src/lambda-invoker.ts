/** One Lambda invocation the engine asks for. */
export interface LambdaInvocation {
  /** The function's name (whatever region/account the ARN in the definition named). */
  readonly functionName: string;
  /** Version or alias, when the definition named one. */
  readonly qualifier?: string;
  /** The event, as a JSON value. */
  readonly payload: unknown;
  /**
   * The event as JSON text (`JSON.stringify(payload)`) when the engine had it already: a runner that
   * serializes the event reads this instead of serializing it again. @default none
   */
  readonly payloadJson?: string;
  /**
   * On a virtual clock an invocation in flight holds time: no timer fires until its result is committed.
   * A function that waits on the outside world on purpose (a human, another process, or nothing at all,
   * to be timed out by the Task's `TimeoutSeconds`) calls this to let the clock move on without it.
   */
  readonly releaseClock?: () => void;
  /** Lambda's `LogType`: `Tail` asks for the invocation's log in the result ({@link LambdaInvocationResult.logTail}). @default none */
  readonly logType?: 'Tail';
}

/** What an invocation returned, as Lambda's Invoke API does. */
export interface LambdaInvocationResult {
  /** The function's response (or, with `functionError`, `{errorType, errorMessage, trace?}`). */
  readonly payload: unknown;
  /** Set when the function failed: `"Unhandled"` for a thrown error, as Lambda reports it. */
  readonly functionError?: string;
  /** The version that ran (`$LATEST` locally). */
  readonly executedVersion: string;
  /**
   * The response body as the function's runtime wrote it, where that is not `JSON.stringify(payload)` (a
   * Python runtime writes `{"a": 1}`): lambda:invoke's Content-Length counts it, and a function ARN Task's
   * error cause quotes it.
   * @default JSON.stringify(payload)
   */
  readonly payloadText?: string;
  /**
   * `payload` as JSON text (`JSON.stringify(payload)`, whatever {@link payloadText} is) when the runner
   * made it already, serializing the response: the engine then does not serialize the result again.
   * @default none
   */
  readonly payloadJson?: string;
  /**
   * The invocation's log, its last 4 KB as Lambda's `LogType: Tail` returns it, when the runner captures it.
   * @default the platform's START, END and REPORT lines, which every invocation's log has
   */
  readonly logTail?: string;
}

/**
 * Runs Lambda functions for the engine. A function error comes back as a result with `functionError`;
 * throwing means the Lambda *service* failed (unknown function: name the error
 * `ResourceNotFoundException`), which surfaces as `Lambda.<name>`.
 */
export type LambdaInvoker = (request: LambdaInvocation) => Promise<LambdaInvocationResult>;
