/**
 * Stable JSON for definitions: the same workflow gives the same bytes on every compile, machine and
 * Node version, so `deploy-check` and golden files can compare text. ASL fields come in the order the
 * AWS docs use, whatever order the code built them in; other keys (payload fields, a tool's input) keep
 * their declared order, which the compiler derives only from the workflow; states stay in flow order.
 */

const ASL_FIELD_ORDER = [
  'Comment',
  'QueryLanguage',
  'StartAt',
  'Type',
  'Resource',
  'Arguments',
  'TimeoutSeconds',
  'Seconds',
  'Timestamp',
  'Choices',
  'Condition',
  'ErrorEquals',
  'IntervalSeconds',
  'MaxAttempts',
  'BackoffRate',
  'MaxDelaySeconds',
  'JitterStrategy',
  'Output',
  'Retry',
  'Catch',
  'Default',
  'Next',
  'End',
  'States',
];
const RANK = new Map(ASL_FIELD_ORDER.map((k, i) => [k, i]));

function orderKeys(keys: string[]): string[] {
  return [...keys].sort((a, b) => {
    const ra = RANK.get(a) ?? Number.MAX_SAFE_INTEGER;
    const rb = RANK.get(b) ?? Number.MAX_SAFE_INTEGER;
    return ra - rb; // Array.prototype.sort is stable: unranked keys keep their order
  });
}

function canonical(value: unknown, keepOrder: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => canonical(v, false));
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  const keys = keepOrder ? Object.keys(obj) : orderKeys(Object.keys(obj));
  return Object.fromEntries(keys.map((k) => [k, canonical(obj[k], k === 'States')]));
}

/** A definition as stable, 2-space-indented JSON with a trailing newline. */
export function toAslJson(definition: unknown): string {
  return JSON.stringify(canonical(definition, false), null, 2) + '\n';
}
