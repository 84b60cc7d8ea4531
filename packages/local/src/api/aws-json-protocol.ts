/**
 * The AWS JSON 1.0 protocol as Step Functions and SQS speak it: `POST /` with
 * `X-Amz-Target: <ServicePrefix>.<Operation>`, a JSON body, a JSON answer, and errors as
 * `{"__type": "...", "message": "..."}` with status 400 (500 only for faults of the server itself).
 * Signatures are accepted, not verified: the server binds to loopback only.
 */

/** Content type of every AWS JSON 1.0 request and response. */
export const AWS_JSON_CONTENT_TYPE = 'application/x-amz-json-1.0';

/** An error in the form the wire carries it. */
export interface WireError {
  /** The `__type` (the SDK turns it into the thrown error's `name`). */
  readonly type: string;
  readonly message: string;
  /** HTTP status. @default 400 */
  readonly statusCode?: number;
  /** Extra response headers (SQS's `x-amzn-query-error`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** One AWS service served over AWS JSON 1.0 on the shared port. */
export interface AwsJsonService {
  /** The `X-Amz-Target` prefix before the dot, e.g. `AWSStepFunctions` or `AmazonSQS`. */
  readonly targetPrefix: string;
  /** Runs one operation with its decoded input; resolves to the output shape. */
  handle(operation: string, input: Record<string, unknown>): Promise<unknown>;
  /** The wire form of an error `handle` threw on purpose; `undefined` means an internal fault (500). */
  describeError(err: unknown): WireError | undefined;
  /** The wire form of a request body that is not a JSON object. */
  serializationError(message: string): WireError;
}

/** Splits `AWSStepFunctions.StartExecution` into its prefix and operation. */
export function parseTarget(target: string | undefined): { prefix: string; operation: string } | undefined {
  if (!target) return undefined;
  const dot = target.lastIndexOf('.');
  if (dot <= 0 || dot === target.length - 1) return undefined;
  return { prefix: target.slice(0, dot), operation: target.slice(dot + 1) };
}

/**
 * Decodes a request body: an empty body is `{}` (the SDK sends `{}` for operations without input), and
 * anything else must be a JSON object.
 */
export function decodeJsonObject(
  body: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  // Not body.trim(): that copies a body of up to megabytes to find out it is not blank.
  if (!/\S/.test(body)) return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    return { ok: false, message: `Request body is not valid JSON: ${(err as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, message: 'Request body must be a JSON object' };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** Names of JavaScript's own error classes: an error with one of these names is a bug, never a service answer. */
const JAVASCRIPT_ERROR_NAMES = new Set([
  'Error',
  'TypeError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'EvalError',
  'URIError',
  'AggregateError',
  'SqliteError',
  'AbortError',
]);

/**
 * Whether an error is a deliberate service answer: its `name` is an API error type (`ExecutionDoesNotExist`,
 * `ValidationException`), not one of JavaScript's own error classes.
 */
export function isNamedServiceError(err: unknown): err is Error {
  return err instanceof Error && /^[A-Z][A-Za-z0-9.]*$/.test(err.name) && !JAVASCRIPT_ERROR_NAMES.has(err.name);
}
