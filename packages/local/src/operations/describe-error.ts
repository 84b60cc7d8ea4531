const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT']);

/** Whether an error (or one it wraps or aggregates) is a failure to reach the endpoint at all. */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; errors?: unknown[]; cause?: unknown };
  if (e?.code && CONNECTION_CODES.has(e.code)) return true;
  if (Array.isArray(e?.errors) && e.errors.some(isConnectionError)) return true;
  return e?.cause !== undefined && e.cause !== err && isConnectionError(e.cause);
}

/** Options of {@link describeOperationError}. */
export interface DescribeOperationErrorOptions {
  /** Where the Step Functions calls went, for the "cannot reach" line. @default `the configured endpoint` */
  readonly endpoint?: string;
  /**
   * Error names shown without their `Name: ` prefix, because the message alone says what is wrong
   * (input errors). `InvalidRunFilterError` is always among them.
   * @default []
   */
  readonly plainNames?: readonly string[];
}

/**
 * One line for any error an operation throws, for the CLI's stderr and the console's error page alike:
 * a connection failure says where the call went and what to do; anything else is `Name: first line`.
 */
export function describeOperationError(err: unknown, options: DescribeOperationErrorOptions = {}): string {
  if (isConnectionError(err)) {
    const where = options.endpoint ?? 'the configured endpoint';
    return `cannot reach Step Functions at ${where}: start the local engine with \`npm start\`, or set AWS_ENDPOINT_URL / AWS_PROFILE`;
  }
  const e = err as Error;
  const message = (e?.message ?? String(err)).split('\n')[0];
  const plain =
    e?.name === 'Error' || e?.name === 'InvalidRunFilterError' || (options.plainNames ?? []).includes(e?.name);
  const name = e?.name && !plain ? `${e.name}: ` : '';
  return `${name}${message || 'failed'}`;
}
