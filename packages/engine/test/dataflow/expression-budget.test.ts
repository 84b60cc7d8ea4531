/**
 * JSONata under a budget (issue 29, Deliver 1): no expression runs unbounded on the engine's only thread.
 * Each case of the issue fails its state with States.QueryEvaluationError naming the budget it hit, or
 * (a catastrophic regex) finishes at once; the event loop keeps turning while an expression runs; and
 * what a real workflow does with regexes and the guarded functions answers as JSONata answers it.
 */
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import {
  dataFlowFor,
  DEFAULT_EXPRESSION_LIMITS,
  type EvaluationScope,
  type ExpressionLimits,
} from '../../src/dataflow';

const flow = dataFlowFor('JSONata');
/** Small enough that a runaway case ends quickly, as an engine's options would set it. */
const limits: ExpressionLimits = { ...DEFAULT_EXPRESSION_LIMITS, timeoutMillis: 300 };
const scope = (input: unknown = {}, expressionLimits: ExpressionLimits = limits): EvaluationScope => ({
  input,
  context: {},
  variables: {},
  expressionLimits,
});
const output = (expression: string, input?: unknown, expressionLimits?: ExpressionLimits) =>
  flow.output({ Type: 'Pass', Output: `{% ${expression} %}` }, scope(input, expressionLimits));

/** The error `promise` rejects with (a test failure if it resolves). */
const failure = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => Promise.reject(new Error('expected a failure')),
    (err: Error) => err,
  );

/** Milliseconds `run` takes. */
async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run().catch(() => undefined);
  return performance.now() - start;
}

describe('the expression budget', () => {
  it.each([
    [
      'infinite tail recursion (the issue: freezes the engine)',
      '($f := function($n){ $f($n+1) }; $f(0))',
      'timeoutMillis',
    ],
    [
      'non-tail recursion without end (670 MB at depth 100,000)',
      '($f := function($n){ 1 + $f($n+1) }; $f(0))',
      'maxDepth',
      { ...limits, timeoutMillis: 60_000, maxDepth: 3000 },
    ],
    ['$pad to 50,000,000 characters (3-13 s)', '$pad("", 50000000)', 'maxStringLength'],
    ['$pad with a long pad string', '$pad("", 1000000, $join($map([1..10], function(){"x"})))', 'maxStringLength'],
    ['a string doubled by concatenation', '($f := function($s){ $f($s & $s) }; $f("xxxxxxxx"))', 'maxStringLength'],
    [
      '$join of many copies of a long string',
      '($s := $pad("", 1000000); $join([$s, $s, $s, $s, $s]))',
      'maxStringLength',
    ],
    ['a range of 10,000,000 items', '[1..10000000]', 'maxArrayLength'],
  ])(
    '%s fails with States.QueryEvaluationError naming the budget',
    async (_what, expression, limit, budget?: ExpressionLimits) => {
      const err = await failure(output(expression, {}, budget));
      expect(err.name).toBe('States.QueryEvaluationError');
      expect(err.message).toContain(`specified for the field 'Output' was stopped`);
      expect(err.message).toContain(`expressionLimits.${limit}`);
    },
  );

  it('the budget is the scope’s: a larger time budget lets the same loop run longer', async () => {
    const loop = '($f := function($n){ $f($n+1) }; $f(0))';
    const short = await timed(() => output(loop, {}, { ...limits, timeoutMillis: 100 }));
    const long = await timed(() => output(loop, {}, { ...limits, timeoutMillis: 400 }));
    expect(long / short).toBeGreaterThan(2);
  });

  it('a catastrophic regex finishes at once: 40 a’s take about as long as 20 (backtracking doubles per a)', async () => {
    const match = (n: number) => output(`$match("${'a'.repeat(n)}!", /^(a+)+$/)`);
    await failure(match(10)); // warm up; no match is "returned nothing"
    // The fastest of three of each, so that a loaded box's pauses do not decide: a backtracking engine takes
    // 2^20 times as long for 40 as for 20 (hours), a linear one about twice as long.
    const fastest = async (n: number) =>
      Math.min(...[await timed(() => match(n)), await timed(() => match(n)), await timed(() => match(n))]);
    const twenty = await fastest(20);
    const forty = await fastest(40);
    expect(await failure(match(26))).toMatchObject({ message: expect.stringContaining('returned nothing') });
    expect(forty / Math.max(twenty, 1)).toBeLessThan(50);
  });

  it('the event loop turns while an expression runs (the API and other runs keep answering)', async () => {
    let turns = 0;
    const ticker = setInterval(() => turns++, 1);
    const started = performance.now();
    await failure(output('($f := function($n){ $f($n+1) }; $f(0))'));
    const elapsed = performance.now() - started;
    clearInterval(ticker);
    // A frozen loop turns 0 times (JSONata awaits only microtasks); one that yields turns about once per
    // 10 ms slice when the box is quiet, fewer on a loaded one: the figure under load is the hostile tier's.
    expect(turns, `${turns} turns in ${Math.round(elapsed)} ms`).toBeGreaterThan(2);
  });

  it('expressions within the budget evaluate as before', async () => {
    expect(await output('$sum($map([1..1000], function($v){ $v * 2 }))')).toBe(1001000);
    expect(await output('$pad("x", -5)')).toBe('    x');
    expect(await output('$states.input.$pad(6, "-")', 'abc')).toBe('abc---');
    expect(await output('$join(["a", "b", "c"], ", ")')).toBe('a, b, c');
    expect(await output('$join($states.input)', ['x', 'y'])).toBe('xy');
  });
});

describe('regexes run on a linear-time engine and match as JavaScript regexes do', () => {
  it.each([
    [
      '$match with groups and indices',
      '$match("ab12cd34", /[a-z]+(\\d)/)',
      [
        { match: 'ab1', index: 0, groups: ['1'] },
        { match: 'cd3', index: 4, groups: ['3'] },
      ],
    ],
    [
      '$match past characters outside the BMP (UTF-16 indices)',
      '$match("x😀éb", /é(b)?/)',
      { match: 'éb', index: 3, groups: ['b'] },
    ],
    ['$replace', '$replace("hello world", /o/, "0")', 'hell0 w0rld'],
    ['$replace with a group reference', '$replace("John Smith", /(\\w+)\\s(\\w+)/, "$2, $1")', 'Smith, John'],
    ['$split', '$split("a1b2c", /\\d/)', ['a', 'b', 'c']],
    ['$contains, case-insensitive', '$contains("Hello", /L+/i)', true],
    ['a multiline anchor', '$count($match("a\\nb\\na", /^a$/m))', 2],
  ])('%s', async (_what, expression, expected) => {
    expect(await output(expression)).toEqual(expected);
    // The same answer as JSONata's own (backtracking) engine gives.
    expect(JSON.parse(JSON.stringify(await jsonata(expression).evaluate({})))).toEqual(expected);
  });

  it('a pattern RE2 cannot run (lookaround) fails the state in plain words', async () => {
    const err = await failure(output('$match("x", /(?=x)/)'));
    expect(err.name).toBe('States.QueryEvaluationError');
    expect(err.message).toContain('linear-time regex engine (RE2) does not support');
  });
});

describe('the guarded JSONata functions', () => {
  it.each([
    ['pad', '<s-ns?:s>'],
    ['join', '<a<s>s?:s>'],
  ])('$%s keeps JSONata’s own signature %s', async (name, signature) => {
    const builtin = (await jsonata(`$${name}`).evaluate(undefined)) as { signature: { definition: string } };
    expect(builtin.signature.definition).toBe(signature);
  });
});
