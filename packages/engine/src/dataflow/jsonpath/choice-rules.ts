/**
 * JSONPath Choice rules: `Variable` plus one comparison operator, or `And`/`Or`/`Not` of rules. The
 * comparison operators are one table (type family x relation, each with a `...Path` twin that reads the
 * compared value from a path). A value of the wrong type never matches; a `Variable` that selects
 * nothing is a `States.Runtime` error except under `IsPresent`.
 */
import { parseTimestamp } from '../shared/values';
import { pathExists, readPath, type PathRoots } from './paths';
import { BoundedCache, DEFAULT_EXPRESSION_CACHE_SIZE } from '../shared/bounded-cache';
import { wildcardMatcher, type WildcardMatcher } from '../shared/wildcard';

/** One Choice rule as written. */
export type ChoiceRule = Readonly<Record<string, unknown>>;

type Compare = (left: number | string, right: number | string) => boolean;

const RELATIONS: Readonly<Record<string, Compare>> = {
  Equals: (a, b) => a === b,
  LessThan: (a, b) => a < b,
  GreaterThan: (a, b) => a > b,
  LessThanEquals: (a, b) => a <= b,
  GreaterThanEquals: (a, b) => a >= b,
};

/** How each type family turns a value into something comparable (undefined: wrong type, no match). */
const FAMILIES: Readonly<Record<string, (value: unknown) => number | string | undefined>> = {
  String: (value) => (typeof value === 'string' ? value : undefined),
  Numeric: (value) => (typeof value === 'number' ? value : undefined),
  Timestamp: (value) => parseTimestamp(value),
};

interface Comparison {
  readonly normalize: (value: unknown) => number | string | undefined;
  readonly compare: Compare;
  /** The compared value comes from a path (`StringEqualsPath`). */
  readonly viaPath: boolean;
}

/** Every comparison operator by name (`StringEquals`, `NumericLessThanPath`, `BooleanEquals`, ...). */
export const COMPARISON_OPERATORS: ReadonlyMap<string, Comparison> = (() => {
  const table = new Map<string, Comparison>();
  const add = (name: string, normalize: Comparison['normalize'], compare: Compare) => {
    table.set(name, { normalize, compare, viaPath: false });
    table.set(`${name}Path`, { normalize, compare, viaPath: true });
  };
  for (const [family, normalize] of Object.entries(FAMILIES)) {
    for (const [relation, compare] of Object.entries(RELATIONS)) add(`${family}${relation}`, normalize, compare);
  }
  add('BooleanEquals', (value) => (typeof value === 'boolean' ? String(value) : undefined), RELATIONS.Equals);
  return table;
})();

/** The type tests (`IsString: true` matches a string). */
export const TYPE_TESTS: Readonly<Record<string, (value: unknown) => boolean>> = {
  IsNull: (value) => value === null,
  IsNumeric: (value) => typeof value === 'number',
  IsString: (value) => typeof value === 'string',
  IsBoolean: (value) => typeof value === 'boolean',
  IsTimestamp: (value) => parseTimestamp(value) !== undefined,
};

/** Every operator a rule may use besides `And`/`Or`/`Not`. */
export const CHOICE_OPERATORS: readonly string[] = [
  ...COMPARISON_OPERATORS.keys(),
  ...Object.keys(TYPE_TESTS),
  'IsPresent',
  'StringMatches',
];

const wildcardPatterns = new BoundedCache<WildcardMatcher>(DEFAULT_EXPRESSION_CACHE_SIZE);

/** `StringMatches`: `*` matches any run of characters; `\*` is a literal star and `\\` a backslash. */
export function stringMatcher(pattern: string): WildcardMatcher {
  return wildcardPatterns.getOrCreate(pattern, () => {
    const pieces = [''];
    for (let i = 0; i < pattern.length; i++) {
      const ch = pattern[i];
      if (ch === '\\' && i + 1 < pattern.length) pieces[pieces.length - 1] += pattern[++i];
      else if (ch === '*') pieces.push('');
      else pieces[pieces.length - 1] += ch;
    }
    return wildcardMatcher(pieces);
  });
}

/** The operator a data-test rule uses (the one key that is not Variable/Next/Assign/Comment). */
export function operatorOf(rule: ChoiceRule): string | undefined {
  return Object.keys(rule).find((key) => key !== 'Variable' && key !== 'Next' && key !== 'Assign' && key !== 'Comment');
}

/** Whether a Choice rule matches. `field` names the rule in messages (`Choices[2]`). */
export function ruleMatches(rule: ChoiceRule, roots: PathRoots, field: string): boolean {
  if (Array.isArray(rule.And))
    return rule.And.every((inner, i) => ruleMatches(inner as ChoiceRule, roots, `${field}/And[${i}]`));
  if (Array.isArray(rule.Or))
    return rule.Or.some((inner, i) => ruleMatches(inner as ChoiceRule, roots, `${field}/Or[${i}]`));
  if (rule.Not !== undefined) return !ruleMatches(rule.Not as ChoiceRule, roots, `${field}/Not`);

  const variable = rule.Variable as string;
  const operator = operatorOf(rule) ?? '';
  const operand = rule[operator];
  if (operator === 'IsPresent') return pathExists(variable, roots) === operand;

  const value = readPath(variable, roots, `${field}/Variable`);
  const typeTest = TYPE_TESTS[operator];
  if (typeTest) return typeTest(value) === operand;
  if (operator === 'StringMatches') return typeof value === 'string' && stringMatcher(operand as string)(value);

  const comparison = COMPARISON_OPERATORS.get(operator);
  if (!comparison) return false; // refused at validation; unreachable for a validated definition
  const expected = comparison.viaPath ? readPath(operand as string, roots, `${field}/${operator}`) : operand;
  const [left, right] = [comparison.normalize(value), comparison.normalize(expected)];
  return left !== undefined && right !== undefined && comparison.compare(left, right);
}
