/**
 * A failed run's or step's error in the user's words first. Step Functions words an expression failure for the
 * engine ("An error occurred while executing the state 'x' (entered at the event id #9). The JSONata expression
 * '...' specified for the field '...' threw an error during evaluation. D3137: <message>"), which puts the
 * expression's source before what went wrong; a Lambda's failure is a JSON cause. The headline says what went
 * wrong; the raw cause is kept for the page's "raw cause".
 */

/** A failure as the console shows it first. */
export interface FailureWords {
  /** One line, in the user's terms. */
  readonly headline: string;
  /** The state the failure happened in, when the cause names it. */
  readonly state?: string;
}

const STATE_PREFIX = "An error occurred while executing the state '";
const EXPRESSION = ". The JSONata expression '";
const FIELD = "' specified for the field '";
const THREW = "' threw an error during evaluation. ";
const NOTHING = "' returned nothing (undefined)";
/** A JSONata error code before its message (`D3137: `, `T2001: `). */
const JSONATA_CODE = /^[A-Z]\d{4}: /;
// A path of two or more segments (`$states.input.question`); each repetition starts with a literal dot: linear.
const PATH = /\$\w*(?:\.(?:`[^`]*`|\w+))+/;

const firstLine = (text: string) => text.split('\n')[0].trim();

/** The words for an expression failure (the service's QueryEvaluationError cause), or undefined for another cause. */
function expressionFailure(cause: string): FailureWords | undefined {
  if (!cause.startsWith(STATE_PREFIX)) return undefined;
  const state = cause.slice(STATE_PREFIX.length, cause.indexOf("' (entered at the event id"));
  const expressionAt = cause.indexOf(EXPRESSION);
  const fieldAt = cause.lastIndexOf(FIELD);
  if (!state || expressionAt < 0 || fieldAt < expressionAt)
    return { headline: `Step '${state}': ${firstLine(cause.slice(cause.indexOf(').') + 2))}`, state };
  const expression = cause.slice(expressionAt + EXPRESSION.length, fieldAt);
  const rest = cause.slice(fieldAt + FIELD.length);
  const field = rest.slice(0, rest.indexOf("'"));
  const threw = rest.indexOf(THREW);
  if (threw >= 0) {
    const message = firstLine(rest.slice(threw + THREW.length).replace(JSONATA_CODE, ''));
    // A message that names its step (an $error() the workflow raises) says it all.
    return { headline: message.includes(state) ? message : `Step '${state}': ${message} (in ${field})`, state };
  }
  if (rest.startsWith(`${field}${NOTHING}`)) {
    const reads = PATH.exec(expression)?.[0];
    return {
      headline: `Step '${state}': ${field} came out empty; ${reads ? `${reads} is missing` : 'its expression returned nothing'}`,
      state,
    };
  }
  return undefined;
}

/** A Lambda function's failure: its JSON cause's type and message. */
function functionFailure(cause: string): FailureWords | undefined {
  if (!cause.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(cause) as { errorType?: unknown; errorMessage?: unknown };
    if (typeof parsed.errorMessage !== 'string') return undefined;
    return {
      headline: `${typeof parsed.errorType === 'string' ? `${parsed.errorType}: ` : ''}${firstLine(parsed.errorMessage)}`,
    };
  } catch {
    return undefined;
  }
}

/** The headline of a failure (see the module's comment): never the service's wrapping nor an expression's source. */
export function describeFailure(error: string | undefined, cause: string | undefined): FailureWords {
  const text = cause?.trim() ?? '';
  const words = text ? (expressionFailure(text) ?? functionFailure(text)) : undefined;
  if (words) return words;
  const line = firstLine(text);
  return { headline: [error, line].filter(Boolean).join(': ') || 'Failed' };
}
