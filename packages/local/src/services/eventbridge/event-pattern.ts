/**
 * EventBridge event-pattern matching, with the semantics AWS documents ("Creating Amazon EventBridge event
 * patterns", "Comparison operators for use in event patterns"): every field a pattern names must match; a
 * leaf is a list of allowed values, one match suffices; an array in the event matches when any element does
 * (arrays of objects too: the pattern is matched against each element); `$or` lists alternative patterns.
 * A value rule is a literal (string, number, boolean or null) or one of `prefix`, `suffix` (each also with
 * `equals-ignore-case`), `equals-ignore-case`, `wildcard`, `anything-but` (a value, a list, or a `prefix`,
 * `suffix`, `wildcard` or `equals-ignore-case` rule), `numeric`, `cidr` and `exists`.
 * Hand-written: no maintained npm package implements them. SNS filter policies use the same rules.
 */
import { BlockList, isIP } from 'node:net';
import { wildcardMatcher, type WildcardMatcher } from '@autosave/engine';

export type EventPattern = { readonly [key: string]: unknown };

type Rule = Record<string, unknown>;
const isObject = (value: unknown): value is Rule =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const NUMERIC_OPERATORS: Readonly<Record<string, (a: number, b: number) => boolean>> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '=': (a, b) => a === b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

/** A `wildcard` rule's matcher: `*` is any run of characters, `\*` a literal star (no regex: wildcard.ts says why). */
function wildcardRule(pattern: string): WildcardMatcher {
  const pieces = [''];
  for (const part of pattern.split(/(\\\*|\*)/)) {
    if (part === '*') pieces.push('');
    else pieces[pieces.length - 1] += part === '\\*' ? '*' : part;
  }
  return wildcardMatcher(pieces);
}

function matchesCidr(cidr: string, value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const [address, bits] = cidr.split('/');
  const family = isIP(address);
  if (family === 0 || isIP(value) !== family) return false;
  const list = new BlockList();
  const type = family === 4 ? 'ipv4' : 'ipv6';
  list.addSubnet(address, bits === undefined ? (family === 4 ? 32 : 128) : Number(bits), type);
  return list.check(value, type);
}

/** A string rule that may ask to ignore case: `"x"` or `{"equals-ignore-case": "x"}`. */
function caseRule(rule: unknown): { text: string; ignoreCase: boolean } | undefined {
  if (typeof rule === 'string') return { text: rule, ignoreCase: false };
  if (isObject(rule) && typeof rule['equals-ignore-case'] === 'string')
    return { text: rule['equals-ignore-case'], ignoreCase: true };
  return undefined;
}

function matchesAffix(rule: unknown, value: unknown, test: (value: string, affix: string) => boolean): boolean {
  const affix = caseRule(rule);
  if (!affix || typeof value !== 'string') return false;
  return affix.ignoreCase ? test(value.toLowerCase(), affix.text.toLowerCase()) : test(value, affix.text);
}

/** Whether one value rule matches one (non-array) value of the event. */
function matchesValue(rule: unknown, value: unknown): boolean {
  if (!isObject(rule)) return value === rule;
  if ('prefix' in rule) return matchesAffix(rule.prefix, value, (v, a) => v.startsWith(a));
  if ('suffix' in rule) return matchesAffix(rule.suffix, value, (v, a) => v.endsWith(a));
  if ('equals-ignore-case' in rule) {
    const texts = Array.isArray(rule['equals-ignore-case']) ? rule['equals-ignore-case'] : [rule['equals-ignore-case']];
    return (
      typeof value === 'string' && texts.some((t) => typeof t === 'string' && t.toLowerCase() === value.toLowerCase())
    );
  }
  if ('wildcard' in rule)
    return typeof value === 'string' && typeof rule.wildcard === 'string' && wildcardRule(rule.wildcard)(value);
  if ('anything-but' in rule) {
    const but = rule['anything-but'];
    if (Array.isArray(but)) return !but.includes(value);
    if (isObject(but)) {
      // `{"anything-but": {"equals-ignore-case": [..]}}` and the other operator forms: the negation of the rule.
      return (
        (typeof value === 'string' ||
          !('prefix' in but || 'suffix' in but || 'wildcard' in but || 'equals-ignore-case' in but)) &&
        !matchesValue(but, value)
      );
    }
    return value !== but;
  }
  if (Array.isArray(rule.numeric)) {
    if (typeof value !== 'number') return false;
    const ops = rule.numeric;
    for (let i = 0; i + 1 < ops.length; i += 2) {
      const op = NUMERIC_OPERATORS[String(ops[i])];
      if (!op || !op(value, Number(ops[i + 1]))) return false;
    }
    return true;
  }
  if (typeof rule.cidr === 'string') return matchesCidr(rule.cidr, value);
  return false;
}

/** A leaf: a list of rules, one of which must match the field's value (any element of an array value). */
function matchesLeaf(rules: readonly unknown[], value: unknown): boolean {
  return rules.some((rule) => {
    if (isObject(rule) && 'exists' in rule) return (value !== undefined) === rule.exists;
    if (value === undefined) return false;
    return Array.isArray(value) ? value.some((v) => matchesValue(rule, v)) : matchesValue(rule, value);
  });
}

function matchesObject(pattern: EventPattern, event: unknown): boolean {
  const fields = isObject(event) ? event : {};
  for (const [key, rule] of Object.entries(pattern)) {
    if (key === '$or') {
      if (
        !Array.isArray(rule) ||
        !rule.some((alternative) => isObject(alternative) && matchesObject(alternative, event))
      )
        return false;
      continue;
    }
    const value = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (Array.isArray(rule)) {
      if (!matchesLeaf(rule, value)) return false;
    } else if (isObject(rule)) {
      const matched = Array.isArray(value)
        ? value.some((element) => matchesObject(rule, element))
        : matchesObject(rule, value);
      if (!matched) return false;
    } else {
      return false; // A pattern's leaves are lists.
    }
  }
  return true;
}

/** Whether `event` matches `pattern`. */
export function matchesEventPattern(pattern: EventPattern, event: unknown): boolean {
  return matchesObject(pattern, event);
}

const OPERATORS = new Set([
  'prefix',
  'suffix',
  'equals-ignore-case',
  'wildcard',
  'anything-but',
  'numeric',
  'cidr',
  'exists',
]);

/**
 * Why a pattern is not one EventBridge accepts (`Event pattern is not valid. Reason: ...` follows), or
 * undefined: it must be an object whose leaves are lists of literals or operator objects it knows.
 */
export function eventPatternProblem(pattern: unknown, path = ''): string | undefined {
  if (!isObject(pattern)) return path ? `"${path}" must be an object or an array` : 'Filter is not an object';
  for (const [key, rule] of Object.entries(pattern)) {
    const at = path ? `${path}.${key}` : key;
    if (key === '$or') {
      if (!Array.isArray(rule) || rule.length < 2) return '$or must be an array of at least two patterns';
      for (const alternative of rule) {
        const problem = eventPatternProblem(alternative, path);
        if (problem) return problem;
      }
    } else if (Array.isArray(rule)) {
      for (const element of rule) {
        if (!isObject(element)) continue;
        const [operator, ...more] = Object.keys(element);
        if (!operator || more.length > 0 || !OPERATORS.has(operator))
          return `Unrecognized match type ${operator ?? '{}'} at "${at}"`;
        if (operator === 'exists' && typeof element.exists !== 'boolean')
          return `exists match pattern must be either true or false at "${at}"`;
        if (
          operator === 'numeric' &&
          (!Array.isArray(element.numeric) ||
            element.numeric.length % 2 !== 0 ||
            element.numeric.some((v, i) => (i % 2 === 0 ? !(String(v) in NUMERIC_OPERATORS) : typeof v !== 'number')))
        ) {
          return `Value of numeric must be an array of operator and number pairs at "${at}"`;
        }
      }
    } else if (isObject(rule)) {
      const problem = eventPatternProblem(rule, at);
      if (problem) return problem;
    } else {
      return `"${at}" must be an object or an array`;
    }
  }
  return undefined;
}
