/**
 * EventBridge event-pattern matching, for the rules of a stack (the subset CDK emits and rules commonly
 * use): a pattern's object keys must all match; an array lists the allowed values (one match suffices,
 * and an array in the event matches when any element does); an element is a literal or one of
 * `{prefix}`, `{suffix}`, `{"anything-but": value|[values]|{prefix}}`, `{exists: boolean}`,
 * `{numeric: [op, n, ...]}`, `{"equals-ignore-case"}`. Hand-written: no maintained npm package does it,
 * and the rules are AWS's documented "content filtering" semantics.
 */
export type EventPattern = { readonly [key: string]: unknown };

function matchesValue(rule: unknown, value: unknown): boolean {
  if (rule === null || typeof rule !== 'object') return value === rule;
  const r = rule as Record<string, unknown>;
  if (typeof r.prefix === 'string') return typeof value === 'string' && value.startsWith(r.prefix);
  if (typeof r.suffix === 'string') return typeof value === 'string' && value.endsWith(r.suffix);
  if (typeof r['equals-ignore-case'] === 'string') return typeof value === 'string' && value.toLowerCase() === (r['equals-ignore-case'] as string).toLowerCase();
  if ('anything-but' in r) {
    const but = r['anything-but'];
    if (Array.isArray(but)) return value !== undefined && !but.includes(value);
    if (but && typeof but === 'object') return !matchesValue(but, value);
    return value !== undefined && value !== but;
  }
  if (Array.isArray(r.numeric)) {
    if (typeof value !== 'number') return false;
    const ops = r.numeric as unknown[];
    for (let i = 0; i + 1 < ops.length; i += 2) {
      const n = Number(ops[i + 1]);
      const ok = { '<': value < n, '<=': value <= n, '=': value === n, '>': value > n, '>=': value >= n }[String(ops[i])];
      if (!ok) return false;
    }
    return true;
  }
  return false;
}

/** Whether `event` matches `pattern`. */
export function matchesEventPattern(pattern: EventPattern, event: unknown): boolean {
  for (const [key, rule] of Object.entries(pattern)) {
    const value = event && typeof event === 'object' ? (event as Record<string, unknown>)[key] : undefined;
    if (Array.isArray(rule)) {
      const existence = rule.find((r) => r && typeof r === 'object' && 'exists' in (r as object)) as { exists: boolean } | undefined;
      if (existence) {
        if ((value !== undefined) !== existence.exists) return false;
        continue;
      }
      const values = Array.isArray(value) ? value : [value];
      if (!values.some((v) => rule.some((r) => matchesValue(r, v)))) return false;
    } else if (rule && typeof rule === 'object') {
      if (!value || typeof value !== 'object' || !matchesEventPattern(rule as EventPattern, value)) return false;
    } else {
      return false; // A pattern's leaves are arrays.
    }
  }
  return true;
}
