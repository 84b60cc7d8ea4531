/**
 * What the hostile-workflow tier throws at a running engine: the cases of issue 29, each as it was found,
 * and fast-check arbitraries that vary them (sizes, depths, the regex, how a case is wrapped). Another
 * kind of hostile input (bucket names, mock configs, payload sizes) adds its own arbitrary here.
 */
import fc from 'fast-check';

/** A JSONata expression that must not freeze, crash or wedge the engine. */
export interface HostileExpression {
  readonly name: string;
  readonly expression: string;
}

/** The expression cases of issue 29, as reported. */
export const ISSUE_EXPRESSIONS: readonly HostileExpression[] = [
  {
    name: 'infinite tail recursion (froze the engine for good)',
    expression: '($f := function($n){ $f($n+1) }; $f(0))',
  },
  {
    name: 'non-tail recursion to depth 100,000 (19 s, 670 MB)',
    expression: '($f := function($n){ $n = 0 ? 0 : 1 + $f($n-1) }; $f(100000))',
  },
  {
    name: 'a catastrophic regex (3.5 s, doubling per a)',
    expression: '$match("aaaaaaaaaaaaaaaaaaaaaaaaaa!", /^(a+)+$/)',
  },
  { name: '$pad to 50,000,000 characters (3-13 s)', expression: '$pad("", 50000000)' },
];

const regexInput = (n: number) => `"${'a'.repeat(n)}!"`;

/** Runaway and oversized expressions, varied. */
const runaway = fc.oneof(
  fc.constantFrom(
    '($f := function($n){ $f($n+1) }; $f(0))',
    '($f := function($n){ 1 + $f($n+1) }; $f(0))',
    '($a := function($n){ $b($n+1) }; $b := function($n){ $a($n+1) }; $a(0))',
    '($f := function($s){ $f($s & $s) }; $f("xy"))',
  ),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => `($f := function($n){ $n = 0 ? 0 : 1 + $f($n-1) }; $f(${n}))`),
  fc
    .tuple(
      fc.constantFrom('/^(a+)+$/', '/^(a|a)*$/', '/(a*)*b/', '/^(a|aa)+$/', '/^(\\w+\\s?)*$/'),
      fc.integer({ min: 10, max: 5_000 }),
    )
    .map(([regex, n]) => `$match(${regexInput(n)}, ${regex})`),
  fc.integer({ min: 1, max: 9 }).map((e) => `$pad("", ${10 ** e})`),
  fc
    .tuple(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 200 }))
    .map(([e, k]) => `($s := $pad("", ${10 ** e}); $join($map([1..${k}], function(){ $s })))`),
  fc.integer({ min: 3, max: 7 }).map((e) => `$count([1..${10 ** e}])`),
  fc.integer({ min: 3, max: 6 }).map((e) => `$sum($map([1..${10 ** e}], function($v){ $v * 2 }))`),
  fc.integer({ min: 10, max: 3_000 }).map((d) => `${'['.repeat(d)}1${']'.repeat(d)}`),
);

/** A hostile expression, sometimes inside another (a state rarely holds the bare case). */
export const hostileExpressions: fc.Arbitrary<HostileExpression> = fc
  .tuple(runaway, fc.constantFrom('%s', '$count(%s)', '$string(%s)', '{"a": %s}', '[%s, 1]', '$exists(%s) ? 1 : 0'))
  .map(([inner, wrapper]) => ({ name: 'generated', expression: wrapper.replace('%s', inner) }));
