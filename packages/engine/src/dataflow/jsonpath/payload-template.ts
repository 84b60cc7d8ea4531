/**
 * Payload templates (`Parameters`, `ResultSelector`, `ItemSelector`, `Assign` in JSONPath states): a
 * key ending in `.$` takes its value from a path or an intrinsic function call and loses the suffix;
 * every other value is copied as written. Objects are walked at any depth, including inside arrays.
 */
import { StatesRuntimeError } from '../errors';
import { readPath, type PathRoots } from './paths';
import { evaluateIntrinsic } from './intrinsics/intrinsic-functions';
import { isIntrinsicCall } from './intrinsics/parse-intrinsic';

const DYNAMIC_SUFFIX = '.$';

/** The value of one dynamic (`.$`) entry: an intrinsic call or a path. */
export function evaluateDynamic(expression: unknown, roots: PathRoots, field: string): unknown {
  if (typeof expression !== 'string')
    throw new StatesRuntimeError(
      `The value of the field '${field}' must be a JSONPath or an intrinsic function string.`,
    );
  // A path is trimmed first, as Jayway compiles it (validate-definition.ts takes it so).
  return isIntrinsicCall(expression)
    ? evaluateIntrinsic(expression, roots, field)
    : readPath(expression.trim(), roots, field);
}

/** Applies a payload template to the path roots; `field` names positions in messages (`Parameters.a.b.$`). */
export function applyPayloadTemplate(template: unknown, roots: PathRoots, field: string): unknown {
  if (Array.isArray(template)) return template.map((item, i) => applyPayloadTemplate(item, roots, `${field}[${i}]`));
  if (template === null || typeof template !== 'object') return template;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(template)) {
    if (key.endsWith(DYNAMIC_SUFFIX))
      out[key.slice(0, -DYNAMIC_SUFFIX.length)] = evaluateDynamic(value, roots, `${field}/${key}`);
    else out[key] = applyPayloadTemplate(value, roots, `${field}/${key}`);
  }
  return out;
}

/** Calls `visit` for every dynamic (`.$`) value in a template, for validation. */
export function forEachDynamic(
  template: unknown,
  field: string,
  visit: (expression: unknown, field: string) => void,
): void {
  if (Array.isArray(template)) template.forEach((item, i) => forEachDynamic(item, `${field}[${i}]`, visit));
  else if (template !== null && typeof template === 'object') {
    for (const [key, value] of Object.entries(template)) {
      if (key.endsWith(DYNAMIC_SUFFIX)) visit(value, `${field}/${key}`);
      else forEachDynamic(value, `${field}/${key}`, visit);
    }
  }
}
