/**
 * JSONPath as Step Functions reads it (it runs Jayway JsonPath): `$` (the data), `$$` (the context
 * object) and `$name` (a workflow variable), each followed by a path. Definite paths (only `.name`,
 * `['name']` and `[index]` steps, a dot before a bracket allowed: `$.[0]`, `$.Items.[0].State`) select
 * one value and are walked directly; a union of names as the last step (`$['a','b']`) selects an object
 * of those members, as Jayway does; any other path (wildcards, filters, slices, `..`) goes to
 * jsonpath-plus, written the way it reads Jayway's meaning (`$` in a filter is the root; a filter that
 * reads a missing member matches nothing) and selects an array of matches.
 */
import type * as JsonPathPlus from 'jsonpath-plus';
import { ResultPathMatchFailureError, StatesRuntimeError } from '../errors';
import { JAYWAY_FILTER_SANDBOX, rewriteJaywayFilters } from './jayway-filters';
import { applyJaywayFunction, trailingFunction } from './jayway-functions';
import { lazyRequire } from '../../lazy-require';

/** What a path can read. */
export interface PathRoots {
  /** `$`. */
  readonly data: unknown;
  /** `$$`. */
  readonly context: Readonly<Record<string, unknown>>;
  /** `$name`. */
  readonly variables: Readonly<Record<string, unknown>>;
}

type Step = string | number;

const VARIABLE = /^\$([A-Za-z_][A-Za-z0-9_]*)/;
const NAME_STEP = /^\.([^.[\]*@?()'",:\s]+)/;
/** An index; a negative one counts from the end (Jayway: `$.a[-1]` is the last item). */
const INDEX_STEP = /^\[(-?\d+)\]/;
const QUOTED_STEP = /^\[(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/;
/** Jayway reads `.[` as `[` (`$.[0]`, `$.Items.[0].State`), but not `..[`. */
const DOT_BEFORE_BRACKET = /^\.(?=\[)/;

/** The steps of a definite path after its `$` (or undefined when the path is not definite). */
export function definiteSteps(path: string): Step[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const steps: Step[] = [];
  let rest = path.slice(1);
  while (rest.length > 0) {
    let match: RegExpExecArray | null;
    if ((match = DOT_BEFORE_BRACKET.exec(rest))) {
      rest = rest.slice(1);
      if (rest.startsWith('[?') || rest.startsWith('[*') || rest.startsWith('[(')) return undefined;
      continue;
    }
    if ((match = NAME_STEP.exec(rest))) steps.push(match[1]);
    else if ((match = INDEX_STEP.exec(rest))) steps.push(Number(match[1]));
    // Inside quotes only the quote itself and the backslash are escaped: AWS reads $['Test\\""Name"'] as the key Test\""Name".
    else if ((match = QUOTED_STEP.exec(rest)))
      steps.push(match[1] !== undefined ? match[1].replace(/\\(['\\])/g, '$1') : match[2].replace(/\\(["\\])/g, '$1'));
    else return undefined;
    rest = rest.slice(match[0].length);
  }
  return steps;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const hasOwn = (value: unknown, key: string): boolean =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  Object.prototype.hasOwnProperty.call(value, key);

/** Walks definite steps; `found: false` when a step is missing (`missingAt`: how many steps were walked). */
function walk(root: unknown, steps: readonly Step[]): { found: boolean; value?: unknown; missingAt?: number } {
  let value = root;
  for (const [at, step] of steps.entries()) {
    if (typeof step === 'number' || (Array.isArray(value) && /^\d+$/.test(step))) {
      const index = Array.isArray(value) && Number(step) < 0 ? value.length + Number(step) : Number(step);
      if (!Array.isArray(value) || index < 0 || index >= value.length) return { found: false, missingAt: at };
      value = value[index];
    } else if (hasOwn(value, step)) {
      value = (value as Record<string, unknown>)[step];
    } else {
      return { found: false, missingAt: at };
    }
  }
  return { found: true, value };
}

/** Steps in the bracket notation the service prints in its messages (`$['a'][0]`). */
const bracketed = (steps: readonly Step[]): string =>
  '$' + steps.map((s) => (typeof s === 'number' ? `[${s}]` : `['${s}']`)).join('');

/** Fields whose missing paths the service reports as "could not be found in the input" (payload templates, Fail paths). */
const reportsInputText = (field: string): boolean =>
  field.endsWith('.$') || field === 'ErrorPath' || field === 'CausePath';

/** AWS's message for a definite path that selects nothing, in the wording of the field it was read for. */
function missingPathMessage(
  path: string,
  field: string,
  data: unknown,
  steps: readonly Step[],
  missingAt: number,
): string {
  if (reportsInputText(field)) {
    const key = field.slice(field.lastIndexOf('/') + 1);
    return `The JSONPath '${path}' specified for the field '${key}' could not be found in the input '${JSON.stringify(data)}'`;
  }
  // Jayway JsonPath's words, which the service passes on: a missing leaf has no results, a missing inner step is a missing property.
  const detail =
    missingAt === steps.length - 1
      ? `No results for path: ${bracketed(steps)}`
      : `Missing property in path ${bracketed(steps.slice(0, missingAt + 1))}`;
  return `Invalid path '${path}' : ${detail}`;
}

/** Splits a path into the root it reads and the `$...` path relative to that root. */
function resolveRoot(path: string, roots: PathRoots): { root: unknown; relative: string } {
  if (path.startsWith('$$')) return { root: roots.context, relative: '$' + path.slice(2) };
  const variable = VARIABLE.exec(path);
  if (variable) {
    const name = variable[1];
    if (!Object.prototype.hasOwnProperty.call(roots.variables, name)) {
      throw new StatesRuntimeError(`The variable '$${name}' in the path '${path}' is not defined.`);
    }
    return { root: roots.variables[name], relative: '$' + path.slice(variable[0].length) };
  }
  if (!path.startsWith('$')) throw new StatesRuntimeError(`'${path}' is not a JSONPath (it must start with '$').`);
  return { root: roots.data, relative: path };
}

/** Whether a path reads something that exists (for Choice `IsPresent`). */
export function pathExists(path: string, roots: PathRoots): boolean {
  const tail = trailingFunction(path);
  if (tail) return pathExists(tail.path, roots);
  const { root, relative } = resolveRoot(path, roots);
  const union = selectNames(relative, root, path);
  if (union) return union.found;
  const steps = definiteSteps(relative);
  if (steps) return walk(root, steps).found;
  return queryAll(relative, root, path).length > 0;
}

/**
 * A Jayway path as jsonpath-plus reads the same: `.[` becomes `[`, and `$` in a filter (the document's
 * root to Jayway) becomes jsonpath-plus's `@root`. Quoted text is left as written.
 */
export function asJsonPathPlus(path: string): string {
  let out = '';
  let quote: string | undefined;
  let filterDepth = 0;
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (quote) {
      out += c;
      if (c === '\\' && i + 1 < path.length) out += path[++i];
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    // Brackets inside a filter (a list, an index) nest: its `$` is the root until the filter's own `]`.
    else if (c === '[' && (path[i + 1] === '?' || filterDepth > 0)) filterDepth++;
    else if (c === ']' && filterDepth > 0) filterDepth--;
    if (c === '.' && path[i + 1] === '[' && path[i - 1] !== '.') continue;
    if (c === '$' && filterDepth > 0 && i > 0) {
      out += '@root';
      continue;
    }
    out += c;
  }
  return out;
}

/** jsonpath-plus, for the paths beyond a plain member chain, loaded with the first (see lazy-require.ts). */
const jsonPathPlus = lazyRequire<typeof JsonPathPlus>('jsonpath-plus');

function queryAll(relative: string, root: unknown, original: string): unknown[] {
  try {
    // A filter reading a member some items lack (`@.b.c` where `b` is missing) matches nothing there, as in Jayway.
    // jsonpath-plus takes its sandbox as a plain object (its README), though its typings say Map.
    const sandbox = JAYWAY_FILTER_SANDBOX as unknown as Map<string, unknown>;
    return jsonPathPlus().JSONPath({
      path: asJsonPathPlus(rewriteJaywayFilters(relative)),
      json: root as object,
      wrap: true,
      ignoreEvalErrors: true,
      sandbox,
    }) as unknown[];
  } catch (err) {
    throw new StatesRuntimeError(`The JSONPath '${original}' is invalid: ${(err as Error).message}`, { cause: err });
  }
}

/** `['a','b']` (two or more quoted names) ending a path: Jayway's multi-property leaf. */
const NAME_UNION_LEAF =
  /\.?\[\s*((?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")(?:\s*,\s*(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"))+)\s*\]$/;

/** The names of a path's last step when it is a union of names, and the path before it. */
function nameUnionLeaf(relative: string): { prefix: string; names: string[] } | undefined {
  const m = NAME_UNION_LEAF.exec(relative);
  if (!m) return undefined;
  const names = [...m[1].matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)].map((n) =>
    (n[1] ?? n[2]).replace(/\\(.)/g, '$1'),
  );
  return { prefix: relative.slice(0, m.index), names };
}

/** Jayway's multi-property leaf: an object of the named members the value has (for each value of an indefinite prefix). */
function selectNames(
  relative: string,
  root: unknown,
  original: string,
): { found: boolean; value?: unknown } | undefined {
  const union = nameUnionLeaf(relative);
  if (!union) return undefined;
  const pick = (value: unknown) =>
    isPlainObject(value)
      ? Object.fromEntries(union.names.filter((n) => hasOwn(value, n)).map((n) => [n, value[n]]))
      : undefined;
  const steps = definiteSteps(union.prefix || '$');
  if (steps) {
    const at = walk(root, steps);
    return at.found ? { found: true, value: pick(at.value) } : at;
  }
  return {
    found: true,
    value: queryAll(union.prefix, root, original)
      .map(pick)
      .filter((v) => v !== undefined),
  };
}

/**
 * The value at `path`. A definite path that selects nothing is a `States.Runtime` error naming
 * `field`; an indefinite path gives the array of its matches (possibly empty).
 */
export function readPath(path: string, roots: PathRoots, field: string): unknown {
  const tail = trailingFunction(path);
  if (tail) return applyJaywayFunction(tail.name, readPath(tail.path, roots, field), path);
  const { root, relative } = resolveRoot(path, roots);
  const union = selectNames(relative, root, path);
  if (union?.found) return union.value;
  const steps = definiteSteps(union ? nameUnionLeaf(relative)?.prefix || '$' : relative);
  if (!steps) return queryAll(relative, root, path);
  const { found, value, missingAt } = walk(root, steps);
  if (!found) throw new StatesRuntimeError(missingPathMessage(path, field, roots.data, steps, missingAt ?? 0));
  return value;
}

/** The value at a definite or indefinite `path`, or `found: false` when a definite path selects nothing. */
export function lookupPath(path: string, roots: PathRoots): { readonly found: boolean; readonly value?: unknown } {
  const tail = trailingFunction(path);
  if (tail) {
    const selected = lookupPath(tail.path, roots);
    return selected.found ? { found: true, value: applyJaywayFunction(tail.name, selected.value, path) } : selected;
  }
  const { root, relative } = resolveRoot(path, roots);
  const union = selectNames(relative, root, path);
  if (union) return union;
  const steps = definiteSteps(relative);
  if (!steps) return { found: true, value: queryAll(relative, root, path) };
  return walk(root, steps);
}

/**
 * `ResultPath`: `input` with `value` placed at the reference path `path` (copy on write; intermediate
 * objects are created). `$` replaces the input; a path through a non-object is a
 * `States.ResultPathMatchFailure`.
 */
export function setReferencePath(input: unknown, path: string, value: unknown, field = 'ResultPath'): unknown {
  const steps = definiteSteps(path);
  if (!steps || path.startsWith('$$') || VARIABLE.test(path)) {
    throw new ResultPathMatchFailureError(`The ${field} '${path}' is not a reference path.`);
  }
  if (steps.length === 0) return value;
  try {
    return placeAt(input, steps, 0, value);
  } catch (err) {
    if (err !== PATH_MISMATCH) throw err;
    throw new ResultPathMatchFailureError(
      `Unable to apply ${field} '${path}' to the state input ${JSON.stringify(input)?.slice(0, 200)}.`,
    );
  }
}

/** Thrown by {@link placeAt} where a step cannot be taken (setReferencePath names the failure). */
const PATH_MISMATCH = new Error('the reference path does not fit the input');

/** `container` with `value` placed at `steps[depth…]`, copied on write (a module-level function: no closures per call). */
function placeAt(container: unknown, steps: readonly (string | number)[], depth: number, value: unknown): unknown {
  const step = steps[depth];
  const last = depth === steps.length - 1;
  if (typeof step === 'number' || Array.isArray(container)) {
    const index = Number(step);
    if (!Array.isArray(container) || !Number.isInteger(index) || index < 0 || index >= container.length)
      throw PATH_MISMATCH;
    const copy = container.slice();
    copy[index] = last ? value : placeAt(copy[index], steps, depth + 1, value);
    return copy;
  }
  if (!isPlainObject(container)) throw PATH_MISMATCH;
  const next = last ? value : placeAt(hasOwn(container, step) ? container[step] : {}, steps, depth + 1, value);
  return { ...container, [step]: next };
}
