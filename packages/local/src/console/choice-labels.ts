/**
 * What a Choice rule says, for the label of its edge: the whole rule for the tooltip (a JSONata `Condition` without
 * its `{% %}`, a JSONPath comparison written as an operator), and a short form for the edge itself. The short form
 * keeps the last segment of each path (`$states.input.steps.research.turn + 1 >= 12` reads `turn + 1 >= 12`),
 * where the Step Functions console shows "Rule #n" and leaves the rule to a side panel.
 */
import type { ChoiceRule } from '../operations';

/** Longest short label drawn on an edge, in characters (a node is 170 SVG units wide). */
export const CHOICE_LABEL_MAX = 30;

// JSONPath comparison operators (States Language: Choice Rules), as a reader writes them.
const COMPARISONS: Readonly<Record<string, string>> = {
  Equals: '==',
  LessThan: '<',
  GreaterThan: '>',
  LessThanEquals: '<=',
  GreaterThanEquals: '>=',
  Matches: 'matches',
};
const TESTS: Readonly<Record<string, string>> = {
  IsPresent: 'is present',
  IsNull: 'is null',
  IsBoolean: 'is a boolean',
  IsNumeric: 'is a number',
  IsString: 'is a string',
  IsTimestamp: 'is a timestamp',
};

/** A JSONPath rule (Variable + comparison, or And / Or / Not) in operator form. */
function jsonPathRule(rule: Readonly<Record<string, unknown>>): string {
  if (Array.isArray(rule.And))
    return rule.And.map((r) => `(${jsonPathRule(r as Record<string, unknown>)})`).join(' and ');
  if (Array.isArray(rule.Or)) return rule.Or.map((r) => `(${jsonPathRule(r as Record<string, unknown>)})`).join(' or ');
  if (rule.Not && typeof rule.Not === 'object') return `not (${jsonPathRule(rule.Not as Record<string, unknown>)})`;
  const variable = typeof rule.Variable === 'string' ? rule.Variable : '?';
  for (const [field, value] of Object.entries(rule)) {
    if (field in TESTS)
      return value === false ? `${variable} ${TESTS[field].replace('is ', 'is not ')}` : `${variable} ${TESTS[field]}`;
    // StringEquals, NumericLessThanPath, TimestampGreaterThanEquals...: the type prefix goes, a Path's value is a path.
    const comparison =
      /^(?:String|Numeric|Boolean|Timestamp)(Equals|LessThan|GreaterThan|LessThanEquals|GreaterThanEquals|Matches)(Path)?$/.exec(
        field,
      );
    if (comparison)
      return `${variable} ${COMPARISONS[comparison[1]]} ${comparison[2] ? String(value) : JSON.stringify(value)}`;
  }
  return JSON.stringify(rule);
}

/** The whole rule: a JSONata condition without its `{% %}`, or a JSONPath rule in operator form. */
export function choiceRuleText(rule: ChoiceRule): string {
  if (typeof rule.Condition === 'string') {
    const condition = rule.Condition.trim();
    return condition.startsWith('{%') && condition.endsWith('%}') ? condition.slice(2, -2).trim() : condition;
  }
  const { Next: _next, Comment: _comment, Assign: _assign, Output: _output, ...comparison } = rule;
  return jsonPathRule(comparison);
}

// A path of two or more segments ($states.input.a.b, $.a.b, $x.`quoted name`.c): its last segment is kept.
// Each repetition starts with a literal dot, so the match is linear.
const PATH = /\$\w*(?:\.(?:`[^`]*`|\w+))+/g;

/** The short form of a rule's text (see the module's comment), at most {@link CHOICE_LABEL_MAX} characters. */
export function shortChoiceLabel(text: string): string {
  const short = text
    .replace(PATH, (path) => (path.slice(path.lastIndexOf('.') + 1) || path).replace(/^`|`$/g, ''))
    .replace(/\s+/g, ' ')
    .trim();
  return short.length > CHOICE_LABEL_MAX ? `${short.slice(0, CHOICE_LABEL_MAX - 1)}…` : short;
}
