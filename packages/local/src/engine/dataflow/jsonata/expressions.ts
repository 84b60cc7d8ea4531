/**
 * JSONata in Step Functions: strings of the form `{% expression %}` anywhere inside a field are
 * evaluated; every other value is a literal. Expressions are compiled once and cached by their text
 * (compiling costs far more than evaluating), with Step Functions' extra functions registered on each.
 */
import jsonata from 'jsonata';
import type { EvaluationScope } from '../types';
import { QueryEvaluationError } from '../errors';
import { hash, parseJson, partition, random, range, uuid } from '../shared/functions';
import { BoundedCache, DEFAULT_EXPRESSION_CACHE_SIZE } from '../shared/bounded-cache';

type Expression = ReturnType<typeof jsonata>;

const EXPRESSION_START = '{%';
const EXPRESSION_END = '%}';

/** Whether a value is a JSONata expression string (`{% ... %}`), rather than a literal. */
export function isJsonataExpression(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(EXPRESSION_START) && value.endsWith(EXPRESSION_END) && value.length >= 4;
}

/**
 * Whether a string opens an expression (`{%` at its very start) without closing it. A string that only
 * contains `{% ... %}` somewhere inside (` {% x %} `) is a literal, as AWS reads it.
 */
export function isMalformedJsonataExpression(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(EXPRESSION_START) && !isJsonataExpression(value);
}

/** Marks an array as a JSONata sequence (what its path steps yield), which JSONata unwraps when it holds one item. */
function asSequence<T>(items: T[]): T[] {
  return Object.defineProperty(items, 'sequence', { value: true });
}

/** Step Functions' added functions, as JSONata sees them (`$partition`, `$range`, ...). */
const AWS_FUNCTIONS: ReadonlyArray<readonly [string, (...args: any[]) => unknown]> = [
  ['partition', partition],
  // A JSONata sequence, so that a range of one number is that number, as AWS evaluates it ($range(1, 9, 9) is 1).
  ['range', (...args: unknown[]) => asSequence(range(args[0], args[1], args[2]))],
  ['hash', hash],
  ['random', (seed?: unknown) => random(seed)],
  ['uuid', () => uuid()],
  ['parse', parseJson],
  // Step Functions leaves $eval out of its JSONata; refuse it here too, so what runs locally runs on AWS.
  ['eval', () => {
    throw new Error('$eval is not available in Step Functions; use $parse');
  }],
];

const compiled = new BoundedCache<Expression>(DEFAULT_EXPRESSION_CACHE_SIZE);

/** The message of whatever JSONata threw (plain objects with `message` and `code`), as AWS prints it: `T1006: message`. */
function describe(err: unknown): string {
  if (err && typeof err === 'object' && 'message' in err) {
    const { message, code } = err as { message: unknown; code?: unknown };
    return code ? `${String(code)}: ${String(message)}` : String(message);
  }
  return String(err);
}

/**
 * The compiled form of a `{% ... %}` string, from the cache. Throws a {@link QueryEvaluationError}
 * naming `field` when the expression does not parse.
 */
export function compileJsonata(source: string, field = 'expression'): Expression {
  return compiled.getOrCreate(source, () => {
    const body = source.slice(EXPRESSION_START.length, -EXPRESSION_END.length);
    let expression: Expression;
    try {
      expression = jsonata(body);
    } catch (err) {
      throw new QueryEvaluationError(`The JSONata expression '${body.trim()}' specified for the field '${field}' is invalid: ${describe(err)}`, { cause: err, location: field });
    }
    for (const [name, fn] of AWS_FUNCTIONS) {
      expression.registerFunction(name, (...args: unknown[]) => {
        try {
          return fn(...args);
        } catch (err) {
          throw new QueryEvaluationError(`$${name}: ${(err as Error).message}`);
        }
      });
    }
    return expression;
  });
}

/** `$fromMillis` with a picture, for `$now(picture, timezone)` on the virtual clock. */
const FORMAT_MILLIS = '{% $fromMillis($ms, $picture, $timezone) %}';

/** The JSONata bindings of a scope: `$states` and every workflow variable. */
export function bindingsOf(scope: EvaluationScope): Record<string, unknown> {
  const bindings: Record<string, unknown> = {
    ...scope.variables,
    states: { input: scope.input, result: scope.result, errorOutput: scope.errorOutput, context: scope.context },
  };
  const nowMillis = scope.nowMillis;
  if (nowMillis !== undefined) {
    // JSONata's own $now/$millis read the wall clock; a run on the virtual clock must see its time.
    bindings.millis = () => nowMillis;
    bindings.now = (picture?: string, timezone?: string) =>
      picture === undefined && timezone === undefined
        ? new Date(nowMillis).toISOString()
        : compileJsonata(FORMAT_MILLIS).evaluate(undefined, { ms: nowMillis, picture, timezone });
  }
  return bindings;
}

/**
 * JSONata sequences are arrays with marker properties; give the rest of the engine plain JSON values
 * (copying only the arrays that need it).
 */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) {
    const isSequence = (value as unknown as { sequence?: boolean }).sequence !== undefined;
    let copy: unknown[] | undefined = isSequence ? value.slice() : undefined;
    for (let i = 0; i < value.length; i++) {
      const item = plain(value[i]);
      if (item !== value[i]) (copy ??= value.slice())[i] = item;
    }
    return copy ?? value;
  }
  if (value !== null && typeof value === 'object') {
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const next = plain(item);
      if (next !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = next;
    }
    return copy ?? value;
  }
  if (typeof value === 'function') return undefined;
  return value;
}

/** Whether a JSONata value is or holds a function (data a state cannot pass on). */
function containsFunction(value: unknown): boolean {
  if (typeof value === 'function') return true;
  if (value === null || typeof value !== 'object') return false;
  if ((value as { _jsonata_lambda?: boolean })._jsonata_lambda === true) return true;
  return Object.values(value).some(containsFunction);
}

/** Evaluates one `{% ... %}` string. Undefined results and failures are {@link QueryEvaluationError}s naming `field`. */
export async function evaluateJsonata(source: string, bindings: Record<string, unknown>, field: string): Promise<unknown> {
  const expression = compileJsonata(source, field);
  let value: unknown;
  try {
    value = await expression.evaluate(undefined, bindings);
  } catch (err) {
    if (err instanceof QueryEvaluationError) throw err;
    throw new QueryEvaluationError(`The JSONata expression '${source.slice(2, -2).trim()}' specified for the field '${field}' threw an error during evaluation. ${describe(err)}`, {
      cause: err,
      location: field,
    });
  }
  const text = () => source.slice(2, -2).trim();
  if (containsFunction(value)) {
    throw new QueryEvaluationError(`The JSONata expression '${text()}' specified for the field '${field}' returned an unsupported result type.`, { location: field });
  }
  const result = plain(value);
  if (result === undefined) {
    throw new QueryEvaluationError(`The JSONata expression '${source.slice(2, -2).trim()}' specified for the field '${field}' returned nothing (undefined).`, { location: field });
  }
  return result;
}

/**
 * Evaluates a field's value: `{% %}` strings are expressions, objects and arrays are walked, anything
 * else is returned as written. `field` names the position in messages (`Arguments.Payload.key`).
 */
export async function evaluateTemplate(value: unknown, bindings: Record<string, unknown>, field: string): Promise<unknown> {
  if (typeof value === 'string') return isJsonataExpression(value) ? evaluateJsonata(value, bindings, field) : value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) out.push(await evaluateTemplate(value[i], bindings, `${field}[${i}]`));
    return out;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = await evaluateTemplate(item, bindings, `${field}/${key}`);
    return out;
  }
  return value;
}

/** Calls `visit` for every string inside `value` (with its field position), for validation. */
export function forEachString(value: unknown, field: string, visit: (text: string, field: string) => void): void {
  if (typeof value === 'string') visit(value, field);
  else if (Array.isArray(value)) value.forEach((item, i) => forEachString(item, `${field}[${i}]`, visit));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) forEachString(item, `${field}/${key}`, visit);
  }
}
