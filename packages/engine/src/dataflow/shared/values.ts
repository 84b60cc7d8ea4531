import type { MapLimits } from '../types';

/**
 * Checks on the values a state's fields evaluate to (seconds, timestamps, strings), shared by both
 * query languages; each language passes the error class it raises (`States.QueryEvaluationError` for
 * JSONata, `States.Runtime` for JSONPath).
 */

/** Builds the error a check raises. */
export type ErrorFactory = (message: string) => Error;

/**
 * RFC 3339 timestamps as Step Functions accepts them: an uppercase `T` between date and time, and `Z`
 * or a numeric offset.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Epoch ms of an RFC 3339 timestamp, or undefined when `value` is not one. */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = RFC3339.exec(value);
  if (!match) return undefined;
  const [, , month, day, hour, minute, second] = match.map(Number);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  const millis = Date.parse(value);
  return Number.isNaN(millis) ? undefined : millis;
}

/** The value as an integer of at least `min`, or the factory's error naming `field`. */
export function requireInteger(value: unknown, field: string, min: number, fail: ErrorFactory): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw fail(
      `The value of the field '${field}' must be an integer of at least ${min}, got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

/** The value as a number from `min` to `max`, or the factory's error naming `field`. */
export function requireNumberBetween(
  value: unknown,
  field: string,
  min: number,
  max: number,
  fail: ErrorFactory,
): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw fail(
      `The value of the field '${field}' must be a number from ${min} to ${max}, got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

/** Builds {@link MapLimits} from the raw values of a Map state's limit fields (undefined when absent). */
export function mapLimitsFrom(
  raw: { maxConcurrency?: unknown; toleratedFailureCount?: unknown; toleratedFailurePercentage?: unknown },
  fail: ErrorFactory,
): MapLimits {
  return {
    maxConcurrency:
      raw.maxConcurrency === undefined ? 0 : requireInteger(raw.maxConcurrency, 'MaxConcurrency', 0, fail),
    ...(raw.toleratedFailureCount !== undefined && {
      toleratedFailureCount: requireInteger(raw.toleratedFailureCount, 'ToleratedFailureCount', 0, fail),
    }),
    ...(raw.toleratedFailurePercentage !== undefined && {
      toleratedFailurePercentage: requireNumberBetween(
        raw.toleratedFailurePercentage,
        'ToleratedFailurePercentage',
        0,
        100,
        fail,
      ),
    }),
  };
}

/** The value as epoch ms of an RFC 3339 timestamp, or the factory's error naming `field`. */
export function requireTimestamp(value: unknown, field: string, fail: ErrorFactory): number {
  const millis = parseTimestamp(value);
  if (millis === undefined)
    throw fail(`The value of the field '${field}' must be an RFC 3339 timestamp string, got ${JSON.stringify(value)}.`);
  return millis;
}

/** The value as a string, or the factory's error naming `field`. */
export function requireString(value: unknown, field: string, fail: ErrorFactory): string {
  if (typeof value !== 'string')
    throw fail(`The value of the field '${field}' must be a string, got ${JSON.stringify(value)}.`);
  return value;
}

/** The value as an array, or the factory's error naming `field`. */
export function requireArray(value: unknown, field: string, fail: ErrorFactory): unknown[] {
  if (!Array.isArray(value))
    throw fail(`The value of the field '${field}' must be an array, got ${JSON.stringify(value)?.slice(0, 200)}.`);
  return value;
}

/** The context object's `Map.Item.Value` (the current Map iteration's item). */
export function mapItemValue(context: Readonly<Record<string, unknown>>): unknown {
  const map = context.Map as { Item?: { Value?: unknown } } | undefined;
  return map?.Item?.Value;
}

/** The state types whose output defaults to their result (the others pass their input on). */
export const RESULT_PRODUCING_TYPES: ReadonlySet<string> = new Set(['Task', 'Parallel', 'Map']);
