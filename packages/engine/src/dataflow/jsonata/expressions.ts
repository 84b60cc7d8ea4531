/**
 * JSONata in Step Functions: strings of the form `{% expression %}` anywhere inside a field are
 * evaluated; every other value is a literal. Expressions are compiled once and cached by their text
 * (compiling costs far more than evaluating), with Step Functions' extra functions registered on each.
 */
import type jsonataModule from 'jsonata';
import type { EvaluationScope } from '../types';
import { QueryEvaluationError } from '../errors';
import { hash, parseJson, partition, random, range, uuid } from '../shared/functions';
import { BoundedCache, DEFAULT_EXPRESSION_CACHE_SIZE } from '../shared/bounded-cache';
import {
  DEFAULT_EXPRESSION_LIMITS,
  EvaluationBudget,
  EvaluationDeferredError,
  EvaluationInterruptedError,
  ExpressionBudgetError,
} from './evaluation-budget';
import { isBoundedExpression } from './bounded-expressions';
import { LinearRegExp } from './linear-regexp';
import { lazyRequire } from '../../lazy-require';

type Expression = ReturnType<typeof jsonataModule>;

/** JSONata, loaded with the first expression (see lazy-require.ts). */
const jsonataPackage = lazyRequire<typeof jsonataModule>('jsonata');
const jsonata = (source: string, options?: jsonataModule.JsonataOptions): Expression =>
  jsonataPackage()(source, options);

/** What JSONata's evaluation frames hold that the budget reads: the evaluation's root frame and its depth. */
interface JsonataFrame {
  readonly base: JsonataFrame & { depth: number; [BUDGET]?: EvaluationBudget };
  lookup(name: string): unknown;
}

/** Where an evaluation's budget is kept once found, on its root frame (one per `evaluate` call). */
const BUDGET = Symbol('autosave.expressionBudget');
/**
 * The binding that carries a field's {@link EvaluationBudget} (see {@link bindingsOf}). A name no
 * expression can write (`$` names stop at `:`), so a workflow can neither read nor replace it.
 */
const BUDGET_BINDING = 'autosave:budget';

/** The evaluation's budget: the one it was bound with, or (an evaluation of the engine's own) a default one. */
function budgetOf(frame: JsonataFrame): EvaluationBudget {
  const base = frame.base;
  return (base[BUDGET] ??=
    (base.lookup(BUDGET_BINDING) as EvaluationBudget | undefined) ?? new EvaluationBudget(DEFAULT_EXPRESSION_LIMITS));
}

/** JSONata's hooks around every step it evaluates (see evaluation-budget.ts). */
const ENTRY_HOOK = Symbol.for('jsonata.__evaluate_entry');
const EXIT_HOOK = Symbol.for('jsonata.__evaluate_exit');
const onEntry = (_expr: unknown, _input: unknown, frame: JsonataFrame) => budgetOf(frame).enter(frame.base.depth);
const onExit = (_expr: unknown, _input: unknown, frame: JsonataFrame, result: unknown) => budgetOf(frame).exit(result);

/** A JSONata function value, as evaluating `$pad` yields it. */
interface JsonataFunction {
  readonly implementation: (...args: unknown[]) => unknown;
}

/** JSONata's own implementation of one of its functions. */
const builtin = (name: string): Promise<JsonataFunction> =>
  jsonata(`$${name}`).evaluate(undefined) as Promise<JsonataFunction>;

const lengthOf = (value: unknown): number => (typeof value === 'string' ? value.length : 0);

/**
 * JSONata's functions that build, in one step, a string as long as their arguments ask: their size is
 * checked against the budget before they run (`$pad("", 50000000)` took 3-13 s). Their signatures are
 * JSONata's own (a unit test compares them), so arguments are checked and defaulted as before.
 */
const SIZED_BUILTINS: ReadonlyArray<{
  readonly name: string;
  readonly signature: string;
  readonly size: (args: unknown[]) => number;
}> = [
  // The padding is built whole from the pad string before it is cut to width.
  {
    name: 'pad',
    signature: '<s-ns?:s>',
    size: ([, width, pad]) => Math.abs(Math.trunc(Number(width))) * Math.max(1, lengthOf(pad)),
  },
  {
    name: 'join',
    signature: '<a<s>s?:s>',
    size: ([strings, separator]) => {
      const items = Array.isArray(strings) ? (strings as unknown[]) : [strings];
      return (
        items.reduce<number>((sum, item) => sum + lengthOf(item), 0) +
        Math.max(0, items.length - 1) * lengthOf(separator)
      );
    },
  },
];

interface GuardedBuiltin {
  readonly name: string;
  readonly signature: string;
  readonly implementation: (this: { environment: object }, ...args: unknown[]) => Promise<unknown>;
}
let guarded: readonly GuardedBuiltin[] | undefined;

/** Each sized function, checked first and then run by JSONata's own implementation (made with the first expression). */
function guardedBuiltins(): readonly GuardedBuiltin[] {
  return (guarded ??= SIZED_BUILTINS.map(({ name, signature, size }) => {
    const original = builtin(name);
    const implementation = async function (this: { environment: object }, ...args: unknown[]) {
      budgetOf(this.environment as JsonataFrame).checkString(size(args));
      return (await original).implementation.apply(this, args);
    };
    return { name, signature, implementation };
  }));
}

const EXPRESSION_START = '{%';
const EXPRESSION_END = '%}';

/** Whether a value is a JSONata expression string (`{% ... %}`), rather than a literal. */
export function isJsonataExpression(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.startsWith(EXPRESSION_START) &&
    value.endsWith(EXPRESSION_END) &&
    value.length >= 4
  );
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
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSONata calls them with whatever the expression passes; each checks its own arguments
const AWS_FUNCTIONS: ReadonlyArray<readonly [string, (...args: any[]) => unknown]> = [
  ['partition', partition],
  // A JSONata sequence, so that a range of one number is that number, as AWS evaluates it ($range(1, 9, 9) is 1).
  ['range', (...args: unknown[]) => asSequence(range(args[0], args[1], args[2]))],
  ['hash', hash],
  ['random', (seed?: unknown) => random(seed)],
  ['uuid', () => uuid()],
  ['parse', parseJson],
  // Step Functions leaves $eval out of its JSONata; refuse it here too, so what runs locally runs on AWS.
  [
    'eval',
    () => {
      throw new Error('$eval is not available in Step Functions; use $parse');
    },
  ],
];

const compiled = new BoundedCache<Expression>(DEFAULT_EXPRESSION_CACHE_SIZE);

/**
 * The most items a range with literal bounds (`[1..10000000]`) in an expression builds. JSONata builds a
 * range in one step (up to 10,000,000 items, ~1 s on a loaded box, on the engine's thread), so a range
 * past the array budget is refused before it is built. (A range with computed bounds is stopped when
 * the step ends.)
 */
const literalRangeItems = new WeakMap<Expression, number>();

/** The largest range with number literals as bounds anywhere in a JSONata syntax tree. */
function largestLiteralRange(node: unknown): number {
  if (node === null || typeof node !== 'object') return 0;
  let largest = 0;
  const { type, value, lhs, rhs } = node as {
    type?: unknown;
    value?: unknown;
    lhs?: { type?: unknown; value?: unknown };
    rhs?: { type?: unknown; value?: unknown };
  };
  if (type === 'binary' && value === '..' && lhs?.type === 'number' && rhs?.type === 'number') {
    largest = Math.max(0, Number(rhs.value) - Number(lhs.value) + 1);
  }
  for (const child of Object.values(node)) largest = Math.max(largest, largestLiteralRange(child));
  return largest;
}

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
      expression = jsonata(body, { RegexEngine: LinearRegExp as unknown as RegExpConstructor });
    } catch (err) {
      throw new QueryEvaluationError(
        `The JSONata expression '${body.trim()}' specified for the field '${field}' is invalid: ${describe(err)}`,
        { cause: err, location: field },
      );
    }
    const rangeItems = largestLiteralRange(expression.ast());
    if (rangeItems > 0) literalRangeItems.set(expression, rangeItems);
    // An expression that cannot run away skips the hooks JSONata awaits around every step (bounded-expressions.ts).
    if (!isBoundedExpression(expression.ast() as Parameters<typeof isBoundedExpression>[0])) {
      expression.assign(ENTRY_HOOK as unknown as string, onEntry);
      expression.assign(EXIT_HOOK as unknown as string, onExit);
    }
    for (const { name, signature, implementation } of guardedBuiltins())
      expression.registerFunction(name, implementation, signature);
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

/**
 * The JSONata bindings of a scope, for the evaluation of one field: `$states`, every workflow variable,
 * and the field's budget (its expressions share it, one after the other).
 */
export function bindingsOf(scope: EvaluationScope): Record<string, unknown> {
  const bindings: Record<string, unknown> = {
    ...scope.variables,
    states: { input: scope.input, result: scope.result, errorOutput: scope.errorOutput, context: scope.context },
    [BUDGET_BINDING]: new EvaluationBudget(
      scope.expressionLimits ?? DEFAULT_EXPRESSION_LIMITS,
      scope.evaluationWatch,
      scope.deferLongEvaluation,
    ),
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
export async function evaluateJsonata(
  source: string,
  bindings: Record<string, unknown>,
  field: string,
): Promise<unknown> {
  const expression = compileJsonata(source, field);
  const budget = bindings[BUDGET_BINDING] as EvaluationBudget | undefined;
  let value: unknown;
  try {
    budget?.begin(literalRangeItems.get(expression));
    value = await expression.evaluate(undefined, bindings);
  } catch (err) {
    if (err instanceof QueryEvaluationError || err instanceof EvaluationDeferredError) throw err;
    if (err instanceof EvaluationInterruptedError) {
      throw new QueryEvaluationError(
        `The JSONata expression '${source.slice(2, -2).trim()}' specified for the field '${field}' was not evaluated again: ${err.message}`,
        { cause: err, location: field },
      );
    }
    if (err instanceof ExpressionBudgetError) {
      throw new QueryEvaluationError(
        `The JSONata expression '${source.slice(2, -2).trim()}' specified for the field '${field}' was stopped: ${err.message}.`,
        { cause: err, location: field },
      );
    }
    throw new QueryEvaluationError(
      `The JSONata expression '${source.slice(2, -2).trim()}' specified for the field '${field}' threw an error during evaluation. ${describe(err)}`,
      {
        cause: err,
        location: field,
      },
    );
  } finally {
    budget?.end();
  }
  const text = () => source.slice(2, -2).trim();
  if (containsFunction(value)) {
    throw new QueryEvaluationError(
      `The JSONata expression '${text()}' specified for the field '${field}' returned an unsupported result type.`,
      { location: field },
    );
  }
  const result = plain(value);
  if (result === undefined) {
    throw new QueryEvaluationError(
      `The JSONata expression '${source.slice(2, -2).trim()}' specified for the field '${field}' returned nothing (undefined).`,
      { location: field },
    );
  }
  return result;
}

/**
 * Evaluates a field's value: `{% %}` strings are expressions, objects and arrays are walked, anything
 * else is returned as written. `field` names the position in messages (`Arguments.Payload.key`).
 */
export async function evaluateTemplate(
  value: unknown,
  bindings: Record<string, unknown>,
  field: string,
): Promise<unknown> {
  if (typeof value === 'string') return isJsonataExpression(value) ? evaluateJsonata(value, bindings, field) : value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) out.push(await evaluateTemplate(value[i], bindings, `${field}[${i}]`));
    return out;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      out[key] = await evaluateTemplate(item, bindings, `${field}/${key}`);
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
