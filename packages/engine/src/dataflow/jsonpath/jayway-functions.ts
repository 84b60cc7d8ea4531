/**
 * The functions Jayway JsonPath (which Step Functions runs) takes at the tail of a path, applied to what
 * the path before them selects (https://github.com/json-path/JsonPath#functions): `$.items.length()` is the
 * number of items, `$.a[?(@.n > 1)].length()` the number of matches.
 */
import { StatesRuntimeError } from '../errors';

const numbers = (name: string, value: unknown, path: string): number[] => {
  const list = Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];
  if (list.length === 0)
    throw new StatesRuntimeError(
      `The JSONPath '${path}' is invalid: Aggregation function attempted to calculate value using empty array (${name}())`,
    );
  return list;
};

const sizeOf = (name: string, value: unknown, path: string): number => {
  if (Array.isArray(value) || typeof value === 'string') return value.length;
  if (value !== null && typeof value === 'object') return Object.keys(value).length;
  throw new StatesRuntimeError(
    `The JSONPath '${path}' is invalid: ${name}() applies to an array, an object or a string`,
  );
};

const element = (name: string, value: unknown, path: string, at: (list: unknown[]) => unknown): unknown => {
  if (!Array.isArray(value) || value.length === 0)
    throw new StatesRuntimeError(`The JSONPath '${path}' is invalid: ${name}() applies to a non-empty array`);
  return at(value);
};

const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;

const FUNCTIONS: Record<string, (value: unknown, path: string) => unknown> = {
  length: (v, p) => sizeOf('length', v, p),
  size: (v, p) => sizeOf('size', v, p),
  min: (v, p) => Math.min(...numbers('min', v, p)),
  max: (v, p) => Math.max(...numbers('max', v, p)),
  sum: (v, p) => numbers('sum', v, p).reduce((a, b) => a + b, 0),
  avg: (v, p) => mean(numbers('avg', v, p)),
  stddev: (v, p) => {
    const list = numbers('stddev', v, p);
    const m = mean(list);
    return Math.sqrt(mean(list.map((x) => (x - m) ** 2)));
  },
  keys: (v, p) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v))
      throw new StatesRuntimeError(`The JSONPath '${p}' is invalid: keys() applies to an object`);
    return Object.keys(v);
  },
  first: (v, p) => element('first', v, p, (list) => list[0]),
  last: (v, p) => element('last', v, p, (list) => list[list.length - 1]),
};

const TRAILING = new RegExp(String.raw`^(\$.*?)\.(${Object.keys(FUNCTIONS).join('|')})\(\)$`);

/** A path ending in one of Jayway's functions, split into the path it applies to and the function's name. */
export function trailingFunction(path: string): { readonly path: string; readonly name: string } | undefined {
  const m = TRAILING.exec(path);
  return m ? { path: m[1], name: m[2] } : undefined;
}

/** Applies the Jayway function `name` to `value` (what the path before it selected); `path` is the whole path, for messages. */
export function applyJaywayFunction(name: string, value: unknown, path: string): unknown {
  return FUNCTIONS[name](value, path);
}
