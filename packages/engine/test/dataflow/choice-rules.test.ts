import { describe, expect, it } from 'vitest';
import { CHOICE_OPERATORS, ruleMatches, stringMatcher } from '../../src/dataflow/jsonpath/choice-rules';

const data = {
  s: 'banana',
  n: 10,
  f: 2.5,
  t: true,
  z: null,
  ts: '2026-01-01T00:00:00Z',
  ts2: '2026-06-01T00:00:00.123+02:00',
  other: { s: 'apple', n: 20, t: true, ts: '2026-01-01T00:00:00Z' },
  file: 'report-2026.csv',
  star: 'a*b',
  list: [1],
};
const roots = { data, context: { Execution: { Name: 'run-1' } }, variables: { limit: 10 } };
const matches = (rule: Record<string, unknown>) => ruleMatches(rule, roots, 'Choices[0]');

const cases: Array<[Record<string, unknown>, boolean]> = [
  // strings
  [{ Variable: '$.s', StringEquals: 'banana' }, true],
  [{ Variable: '$.s', StringEquals: 'Banana' }, false],
  [{ Variable: '$.s', StringLessThan: 'cherry' }, true],
  [{ Variable: '$.s', StringGreaterThan: 'cherry' }, false],
  [{ Variable: '$.s', StringLessThanEquals: 'banana' }, true],
  [{ Variable: '$.s', StringGreaterThanEquals: 'banana' }, true],
  [{ Variable: '$.s', StringGreaterThanEquals: 'c' }, false],
  [{ Variable: '$.s', StringEqualsPath: '$.other.s' }, false],
  [{ Variable: '$.s', StringGreaterThanPath: '$.other.s' }, true],
  [{ Variable: '$.s', StringLessThanPath: '$.other.s' }, false],
  [{ Variable: '$.s', StringLessThanEqualsPath: '$.s' }, true],
  [{ Variable: '$.s', StringGreaterThanEqualsPath: '$.other.s' }, true],
  [{ Variable: '$.n', StringEquals: '10' }, false],
  [{ Variable: '$$.Execution.Name', StringEquals: 'run-1' }, true],
  // numbers
  [{ Variable: '$.n', NumericEquals: 10 }, true],
  [{ Variable: '$.n', NumericEquals: 10.0 }, true],
  [{ Variable: '$.f', NumericEquals: 2.5 }, true],
  [{ Variable: '$.n', NumericLessThan: 11 }, true],
  [{ Variable: '$.n', NumericGreaterThan: 10 }, false],
  [{ Variable: '$.n', NumericLessThanEquals: 10 }, true],
  [{ Variable: '$.n', NumericGreaterThanEquals: 11 }, false],
  [{ Variable: '$.n', NumericEqualsPath: '$limit' }, true],
  [{ Variable: '$.n', NumericLessThanPath: '$.other.n' }, true],
  [{ Variable: '$.n', NumericGreaterThanPath: '$.f' }, true],
  [{ Variable: '$.n', NumericLessThanEqualsPath: '$.f' }, false],
  [{ Variable: '$.n', NumericGreaterThanEqualsPath: '$.n' }, true],
  [{ Variable: '$.s', NumericEquals: 10 }, false],
  [{ Variable: '$limit', NumericEquals: 10 }, true],
  // booleans
  [{ Variable: '$.t', BooleanEquals: true }, true],
  [{ Variable: '$.t', BooleanEquals: false }, false],
  [{ Variable: '$.t', BooleanEqualsPath: '$.other.t' }, true],
  [{ Variable: '$.s', BooleanEquals: true }, false],
  // timestamps
  [{ Variable: '$.ts', TimestampEquals: '2026-01-01T00:00:00Z' }, true],
  [{ Variable: '$.ts', TimestampEquals: '2026-01-01T01:00:00+01:00' }, true],
  [{ Variable: '$.ts', TimestampLessThan: '2026-01-01T00:00:01Z' }, true],
  [{ Variable: '$.ts', TimestampGreaterThan: '2025-12-31T23:59:59Z' }, true],
  [{ Variable: '$.ts', TimestampLessThanEquals: '2026-01-01T00:00:00Z' }, true],
  [{ Variable: '$.ts', TimestampGreaterThanEquals: '2026-01-02T00:00:00Z' }, false],
  [{ Variable: '$.ts', TimestampEqualsPath: '$.other.ts' }, true],
  [{ Variable: '$.ts2', TimestampGreaterThanPath: '$.ts' }, true],
  [{ Variable: '$.ts', TimestampLessThanPath: '$.ts2' }, true],
  [{ Variable: '$.ts', TimestampLessThanEqualsPath: '$.ts' }, true],
  [{ Variable: '$.ts', TimestampGreaterThanEqualsPath: '$.ts2' }, false],
  [{ Variable: '$.s', TimestampEquals: '2026-01-01T00:00:00Z' }, false],
  // wildcards
  [{ Variable: '$.file', StringMatches: 'report-*.csv' }, true],
  [{ Variable: '$.file', StringMatches: '*.CSV' }, false],
  [{ Variable: '$.file', StringMatches: '*' }, true],
  [{ Variable: '$.star', StringMatches: 'a\\*b' }, true],
  [{ Variable: '$.file', StringMatches: 'a\\*b' }, false],
  [{ Variable: '$.n', StringMatches: '*' }, false],
  // type tests
  [{ Variable: '$.z', IsNull: true }, true],
  [{ Variable: '$.s', IsNull: true }, false],
  [{ Variable: '$.s', IsNull: false }, true],
  [{ Variable: '$.s', IsPresent: true }, true],
  [{ Variable: '$.missing', IsPresent: true }, false],
  [{ Variable: '$.missing', IsPresent: false }, true],
  [{ Variable: '$.z', IsPresent: true }, true],
  [{ Variable: '$.f', IsNumeric: true }, true],
  [{ Variable: '$.s', IsNumeric: true }, false],
  [{ Variable: '$.s', IsString: true }, true],
  [{ Variable: '$.n', IsString: false }, true],
  [{ Variable: '$.t', IsBoolean: true }, true],
  [{ Variable: '$.z', IsBoolean: true }, false],
  [{ Variable: '$.ts2', IsTimestamp: true }, true],
  [{ Variable: '$.s', IsTimestamp: true }, false],
  [{ Variable: '$.list', IsString: true }, false],
  // combinators
  [
    {
      And: [
        { Variable: '$.n', NumericEquals: 10 },
        { Variable: '$.s', StringEquals: 'banana' },
      ],
    },
    true,
  ],
  [
    {
      And: [
        { Variable: '$.n', NumericEquals: 10 },
        { Variable: '$.s', StringEquals: 'x' },
      ],
    },
    false,
  ],
  [
    {
      Or: [
        { Variable: '$.n', NumericEquals: 1 },
        { Variable: '$.s', StringEquals: 'banana' },
      ],
    },
    true,
  ],
  [
    {
      Or: [
        { Variable: '$.n', NumericEquals: 1 },
        { Variable: '$.s', StringEquals: 'x' },
      ],
    },
    false,
  ],
  [{ Not: { Variable: '$.n', NumericEquals: 1 } }, true],
  [{ Not: { Or: [{ Variable: '$.t', BooleanEquals: true }] } }, false],
  [{ And: [{ Not: { Variable: '$.missing', IsPresent: true } }, { Or: [{ Variable: '$.z', IsNull: true }] }] }, true],
];

const operatorsIn = (rule: Record<string, unknown>): string[] =>
  Object.entries(rule).flatMap(([key, value]) =>
    key === 'And' || key === 'Or'
      ? (value as Record<string, unknown>[]).flatMap(operatorsIn)
      : key === 'Not'
        ? operatorsIn(value as Record<string, unknown>)
        : key === 'Variable'
          ? []
          : [key],
  );

describe('JSONPath Choice rules', () => {
  it.each(cases)('%j is %s', (rule, expected) => {
    expect(matches(rule)).toBe(expected);
  });

  it('the table above exercises every operator (39)', () => {
    expect(new Set(cases.flatMap(([rule]) => operatorsIn(rule)))).toEqual(new Set(CHOICE_OPERATORS));
    expect(CHOICE_OPERATORS).toHaveLength(39);
  });

  it.each([
    [{ Variable: '$.missing', StringEquals: 'x' }],
    [{ Variable: '$.s', StringEqualsPath: '$.missing' }],
    [{ Variable: '$nope', NumericEquals: 1 }],
  ])('%j is a States.Runtime error', (rule) => {
    expect(() => matches(rule)).toThrowError(expect.objectContaining({ name: 'States.Runtime' }));
  });

  it.each([
    ['*', 'anything', true],
    ['a*', 'abc', true],
    ['*c', 'abc', true],
    ['a*c', 'ac', true],
    ['a.c', 'abc', false],
    ['a\\\\b', 'a\\b', true],
    ['(x)*', '(x)y', true],
  ])('wildcard %s against %s is %s', (pattern, value, expected) => {
    expect(stringMatcher(pattern)(value)).toBe(expected);
  });
});
