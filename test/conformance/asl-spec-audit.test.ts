/**
 * The ASL specification and AWS's developer guide, section by section, for the rules no other test pins
 * (docs/asl-conformance.md maps every rule to its source and its test). Each case names the rule it pins.
 * Sources: https://states-language.net/spec.html (Paths, Reference Paths, Input and Output Processing,
 * Intrinsic Functions), and the developer guide pages on JSONPath input/output processing, intrinsic
 * functions, JSONata (transforming data) and variables (passing data with variables).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jsonata, jsonpath } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const engine = recordedEngine({ echo: (payload: unknown) => payload });
const LAMBDA = 'arn:aws:lambda:us-east-1:123456789012:function:echo';
/** A JSONPath Pass whose output is what `Parameters` makes of the input. */
const params = (parameters: object) => jsonpath({ P: { Type: 'Pass', Parameters: parameters, End: true } });
/** A JSONPath Pass whose output is `v` of what `Parameters: { 'v.$': expr }` makes. */
const value = (expr: string) =>
  jsonpath({ P: { Type: 'Pass', Parameters: { 'v.$': expr }, OutputPath: '$.v', End: true } });

describe('Paths and Reference Paths (spec: Paths; Reference Paths)', () => {
  it.each([
    ['$ selects the whole input', '$', { a: 1 }, { a: 1 }],
    ['a bracket name with a space', "$['my key']", { 'my key': 2 }, 2],
    ['a negative-free index in a bracket', '$.a[1]', { a: [1, 2] }, 2],
    ['a deep scan collects every match', '$..n', { a: { n: 1 }, b: [{ n: 2 }] }, [1, 2]],
    ['a slice with a step', '$.a[0:4:2]', { a: [0, 1, 2, 3] }, [0, 2]],
    ['a union of indexes', '$.a[0,2]', { a: ['x', 'y', 'z'] }, ['x', 'z']],
    ['a filter on existence', '$.a[?(@.k)]', { a: [{ k: 1 }, { j: 1 }] }, [{ k: 1 }]],
    ['the context object in Parameters', '$$.State.Name', {}, 'P'],
  ])('%s (%s)', async (_rule, path, input, output) => {
    expect((await engine.run(value(path), input)).outcome).toEqual({ status: 'SUCCEEDED', output });
  });

  it.each([
    ['a negative index counts from the end', '$.a[-1]', { a: [1, 2, 3] }, 3],
    ['a negative index inside a path', '$.a[-2].n', { a: [{ n: 1 }, { n: 2 }, { n: 3 }] }, 2],
    ['length() of an array', '$.a.length()', { a: [1, 2, 3] }, 3],
    [
      'length() of what an indefinite path selects',
      '$.a[?(@.n > 1)].length()',
      { a: [{ n: 1 }, { n: 2 }, { n: 3 }] },
      2,
    ],
    ['size() of an array', '$.a.size()', { a: [1, 2] }, 2],
    ['max()', '$.a.max()', { a: [1, 5, 3] }, 5],
    ['min()', '$.a.min()', { a: [4, 2, 3] }, 2],
    ['sum()', '$.a.sum()', { a: [1, 2, 3] }, 6],
    ['avg()', '$.a.avg()', { a: [1, 2, 3] }, 2],
    ['keys() of an object', '$.o.keys()', { o: { x: 1, y: 2 } }, ['x', 'y']],
    ['first() and last() of an array', '$.a.last()', { a: [1, 2, 3] }, 3],
    ['first()', '$.a.first()', { a: [1, 2, 3] }, 1],
  ])('Jayway: %s (%s)', async (_rule, path, input, output) => {
    expect((await engine.run(value(path), input)).outcome).toEqual({ status: 'SUCCEEDED', output });
  });

  it.each([
    ['=~ matches a regular expression', '$.a[?(@.n =~ /x.*/)]', { a: [{ n: 'xa' }, { n: 'b' }] }, [{ n: 'xa' }]],
    ['=~ with a flag', '$.a[?(@.n =~ /X.*/i)]', { a: [{ n: 'xa' }, { n: 'b' }] }, [{ n: 'xa' }]],
    ['in a list', '$.a[?(@.n in [1, 2])]', { a: [{ n: 1 }, { n: 3 }] }, [{ n: 1 }]],
    ['in a list of strings', "$.a[?(@.s in ['x', 'y'])]", { a: [{ s: 'x' }, { s: 'z' }] }, [{ s: 'x' }]],
    ['nin a list', '$.a[?(@.n nin [1])]', { a: [{ n: 1 }, { n: 3 }] }, [{ n: 3 }]],
    [
      'size of a string or array',
      '$.a[?(@.n size 2)]',
      { a: [{ n: 'ab' }, { n: 'a' }, { n: [1, 2] }] },
      [{ n: 'ab' }, { n: [1, 2] }],
    ],
    ['empty', '$.a[?(@.n empty false)]', { a: [{ n: [1] }, { n: [] }] }, [{ n: [1] }]],
    [
      'a list, then the root ($) in the same filter',
      '$.a[?(@.n in [1, 2] && @.m == $.x)]',
      {
        x: 5,
        a: [
          { n: 1, m: 5 },
          { n: 2, m: 4 },
        ],
      },
      [{ n: 1, m: 5 }],
    ],
    [
      'combined with &&',
      '$.a[?(@.n in [1, 2] && @.s =~ /^k/)]',
      {
        a: [
          { n: 1, s: 'kx' },
          { n: 2, s: 'x' },
        ],
      },
      [{ n: 1, s: 'kx' }],
    ],
    [
      'subsetof: every item of the array is in the list',
      "$.a[?(@.s subsetof ['S', 'M', 'L'])]",
      { a: [{ s: ['S', 'M'] }, { s: ['S', 'XL'] }, { s: [] }, { s: 'S' }] },
      [{ s: ['S', 'M'] }, { s: [] }],
    ],
    [
      'anyof: some item of the array is in the list',
      "$.a[?(@.s anyof ['M', 'L'])]",
      { a: [{ s: ['S', 'M'] }, { s: ['S', 'XL'] }, { s: 'M' }] },
      [{ s: ['S', 'M'] }],
    ],
    [
      'noneof: no item of the array is in the list',
      "$.a[?(@.s noneof ['M', 'L'])]",
      { a: [{ s: ['S', 'M'] }, { s: ['S', 'XL'] }, { t: 1 }] },
      [{ s: ['S', 'XL'] }],
    ],
    [
      'anyof a list read from the root',
      '$.a[?(@.n anyof $.wanted)]',
      { wanted: [2, 3], a: [{ n: [1, 2] }, { n: [4] }] },
      [{ n: [1, 2] }],
    ],
  ])('Jayway filter operator: %s (%s)', async (_rule, path, input, output) => {
    expect((await engine.run(value(path), input)).outcome).toEqual({ status: 'SUCCEEDED', output });
  });

  it('a Choice rule reads a trailing function: $.items.length()', async () => {
    const def = jsonpath({
      C: {
        Type: 'Choice',
        Choices: [{ Variable: '$.items.length()', NumericGreaterThan: 1, Next: 'Many' }],
        Default: 'Few',
      },
      Many: { Type: 'Pass', Result: 'many', End: true },
      Few: { Type: 'Pass', Result: 'few', End: true },
    });
    expect((await engine.run(def, { items: [1, 2] })).outcome).toEqual({ status: 'SUCCEEDED', output: 'many' });
  });

  it('ResultPath takes a bracketed name: the result lands under that key', async () => {
    const def = jsonpath({ P: { Type: 'Pass', Result: 1, ResultPath: "$['my key']", End: true } });
    expect((await engine.run(def, { a: 0 })).outcome).toEqual({ status: 'SUCCEEDED', output: { a: 0, 'my key': 1 } });
  });

  it.each([
    ['a deep scan', '$..a'],
    ['a filter', '$.a[?(@.b)]'],
    ['a union', '$.a[0,1]'],
  ])('ResultPath must be a Reference Path: %s is refused', async (_what, path) => {
    const def = jsonpath({ P: { Type: 'Pass', ResultPath: path, End: true } });
    expect(await engine.create(def)).toMatchObject({ name: 'InvalidDefinition' });
  });
});

describe('Parameters, ResultSelector, InputPath, OutputPath (spec: Input and Output Processing)', () => {
  it('a `.$` field whose value is not a string is refused', async () => {
    expect(await engine.create(params({ 'v.$': 1 }))).toMatchObject({ name: 'InvalidDefinition' });
  });

  it('a field without `.$` holding a path-looking string is a literal', async () => {
    expect((await engine.run(params({ v: '$.a' }), { a: 1 })).outcome).toEqual({
      status: 'SUCCEEDED',
      output: { v: '$.a' },
    });
  });

  it('`.$` fields apply at any depth, arrays included', async () => {
    const out = await engine.run(params({ a: { b: [{ 'c.$': '$.x' }] } }), { x: 5 });
    expect(out.outcome).toEqual({ status: 'SUCCEEDED', output: { a: { b: [{ c: 5 }] } } });
  });

  it('ResultSelector shapes a Task result before ResultPath', async () => {
    const def = jsonpath({
      T: { Type: 'Task', Resource: LAMBDA, ResultSelector: { 'got.$': '$.x' }, ResultPath: '$.r', End: true },
    });
    expect((await engine.run(def, { x: 3 })).outcome).toEqual({ status: 'SUCCEEDED', output: { x: 3, r: { got: 3 } } });
  });

  it('Parallel: Parameters make each branch input, ResultSelector shapes the array of results', async () => {
    const def = jsonpath({
      P: {
        Type: 'Parallel',
        Parameters: { 'v.$': '$.x' },
        Branches: [
          { StartAt: 'A', States: { A: { Type: 'Pass', End: true } } },
          { StartAt: 'B', States: { B: { Type: 'Pass', Result: 'b', End: true } } },
        ],
        ResultSelector: { 'first.$': '$[0].v', 'second.$': '$[1]' },
        End: true,
      },
    });
    expect((await engine.run(def, { x: 1 })).outcome).toEqual({
      status: 'SUCCEEDED',
      output: { first: 1, second: 'b' },
    });
  });

  it.each([
    ['ResultSelector on a Pass', { P: { Type: 'Pass', ResultSelector: { a: 1 }, End: true } }],
    [
      'ResultPath on a Choice',
      {
        C: {
          Type: 'Choice',
          ResultPath: '$.x',
          Choices: [{ Variable: '$.a', IsPresent: true, Next: 'S' }],
          Default: 'S',
        },
        S: { Type: 'Succeed' },
      },
    ],
    ['Parameters on a Wait', { W: { Type: 'Wait', Seconds: 1, Parameters: {}, End: true } }],
    ['Parameters on a Succeed', { S: { Type: 'Succeed', Parameters: {} } }],
    ['InputPath on a Fail', { F: { Type: 'Fail', InputPath: '$' } }],
    ['OutputPath on a Fail', { F: { Type: 'Fail', OutputPath: '$' } }],
    ['Retry on a Pass', { P: { Type: 'Pass', Retry: [{ ErrorEquals: ['States.ALL'] }], End: true } }],
    [
      'Assign on a Fail (it allows only Type, Comment, Error(Path), Cause(Path))',
      { F: { Type: 'Fail', Assign: { 'a.$': '$' } } },
    ],
    [
      'Catch on a Wait',
      { W: { Type: 'Wait', Seconds: 1, Catch: [{ ErrorEquals: ['States.ALL'], Next: 'W' }], End: true } },
    ],
    ['an intrinsic function as InputPath', { P: { Type: 'Pass', InputPath: 'States.Array($.a)', End: true } }],
    ['an intrinsic function as OutputPath', { P: { Type: 'Pass', OutputPath: 'States.Array($.a)', End: true } }],
  ])('a field the state type does not have is refused: %s', async (_what, states) => {
    expect(await engine.create(jsonpath(states))).toMatchObject({ name: 'InvalidDefinition' });
  });
});

describe('Intrinsic functions (developer guide: intrinsic functions)', () => {
  it.each([
    [
      'States.StringSplit splits on any of the delimiter characters',
      "States.StringSplit('1,2;3', ',;')",
      {},
      ['1', '2', '3'],
    ],
    ['States.Base64Encode', "States.Base64Encode('Data to encode')", {}, 'RGF0YSB0byBlbmNvZGU='],
    ['States.Base64Decode', "States.Base64Decode('RGF0YSB0byBlbmNvZGU=')", {}, 'Data to encode'],
    ['States.Hash MD5', "States.Hash('input data', 'MD5')", {}, createHash('md5').update('input data').digest('hex')],
    [
      'States.Hash SHA-1',
      "States.Hash('input data', 'SHA-1')",
      {},
      createHash('sha1').update('input data').digest('hex'),
    ],
    [
      'States.Hash SHA-256',
      "States.Hash('input data', 'SHA-256')",
      {},
      createHash('sha256').update('input data').digest('hex'),
    ],
    [
      'States.Hash SHA-384',
      "States.Hash('input data', 'SHA-384')",
      {},
      createHash('sha384').update('input data').digest('hex'),
    ],
    [
      'States.Hash SHA-512',
      "States.Hash('input data', 'SHA-512')",
      {},
      createHash('sha512').update('input data').digest('hex'),
    ],
    ['nested calls', "States.ArrayLength(States.StringSplit('a b c', ' '))", {}, 3],
    ['a context object argument', "States.Format('{} in {}', $$.State.Name, 'x')", {}, 'P in x'],
    ['a variable argument (JSONPath variables)', "States.Format('hi {}', $.n)", { n: 'ada' }, 'hi ada'],
    ['States.Format prints a number argument as written', "States.Format('{}', $.n)", { n: 3 }, '3'],
    ['States.Format prints null', "States.Format('{}', $.n)", { n: null }, 'null'],
    ['States.ArrayGetItem', 'States.ArrayGetItem(States.Array(1, 2, 3), 1)', {}, 2],
    ['States.MathAdd with a negative literal', 'States.MathAdd(111, -1)', {}, 110],
    ['States.JsonToString of a string', 'States.JsonToString($.s)', { s: 'a' }, '"a"'],
  ])('%s', async (_rule, expr, input, output) => {
    expect((await engine.run(value(expr), input)).outcome).toEqual({ status: 'SUCCEEDED', output });
  });

  it.each([
    ['States.Format with fewer arguments than {}', "States.Format('{} {}', 'a')"],
    ['States.Hash with an algorithm AWS does not offer', "States.Hash('x', 'SHA-3')"],
  ])('%s fails the state with States.IntrinsicFailure', async (_rule, expr) => {
    expect((await engine.run(value(expr), {})).outcome).toMatchObject({
      status: 'FAILED',
      error: 'States.IntrinsicFailure',
    });
  });

  it.each([
    ['States.Base64Encode', 'States.Base64Encode($.s)'],
    ['States.Base64Decode', 'States.Base64Decode($.s)'],
    ['States.Hash', "States.Hash($.s, 'SHA-256')"],
  ])('%s takes at most 10,000 characters: one more fails with States.IntrinsicFailure', async (_fn, expr) => {
    expect((await engine.run(value(expr), { s: 'QUJD'.repeat(2_500) })).outcome).toMatchObject({ status: 'SUCCEEDED' });
    expect((await engine.run(value(expr), { s: `${'QUJD'.repeat(2_500)}A` })).outcome).toMatchObject({
      status: 'FAILED',
      error: 'States.IntrinsicFailure',
    });
  });

  it('ErrorPath and CausePath of a Fail state take intrinsic functions', async () => {
    const def = jsonpath({
      F: { Type: 'Fail', ErrorPath: "States.Format('E{}', $.n)", CausePath: 'States.JsonToString($)' },
    });
    expect((await engine.run(def, { n: 1 })).outcome).toEqual({ status: 'FAILED', error: 'E1', cause: '{"n":1}' });
  });
});

describe('JSONata (developer guide: transforming data with JSONata)', () => {
  it.each([
    ['Arguments on a Pass', { P: { Type: 'Pass', Arguments: {}, End: true } }],
    [
      'Arguments on a Map (it takes ItemSelector)',
      {
        M: {
          Type: 'Map',
          Arguments: {},
          ItemProcessor: { StartAt: 'I', States: { I: { Type: 'Pass', End: true } } },
          End: true,
        },
      },
    ],
    ['Output on a Fail (it allows only Type, Comment, Error, Cause)', { F: { Type: 'Fail', Output: {} } }],
    ['Assign on a Fail', { F: { Type: 'Fail', Assign: { a: 1 } } }],
    [
      'a Choice rule with Variable instead of Condition',
      {
        C: { Type: 'Choice', Choices: [{ Variable: '$.a', IsPresent: true, Next: 'S' }], Default: 'S' },
        S: { Type: 'Succeed' },
      },
    ],
    [
      'ItemsPath on a Map',
      {
        M: {
          Type: 'Map',
          ItemsPath: '$.a',
          ItemProcessor: { StartAt: 'I', States: { I: { Type: 'Pass', End: true } } },
          End: true,
        },
      },
    ],
    ['SecondsPath on a Wait', { W: { Type: 'Wait', SecondsPath: '$.s', End: true } }],
    ['ErrorPath on a Fail', { F: { Type: 'Fail', ErrorPath: '$.e' } }],
  ])('a field JSONata states do not have is refused: %s', async (_what, states) => {
    expect(await engine.create(jsonata(states))).toMatchObject({ name: 'InvalidDefinition' });
  });

  it('Parallel: Arguments make each branch input', async () => {
    const def = jsonata({
      P: {
        Type: 'Parallel',
        Arguments: { v: '{% $states.input.x + 1 %}' },
        Branches: [{ StartAt: 'A', States: { A: { Type: 'Pass', Output: '{% $states.input.v %}', End: true } } }],
        End: true,
      },
    });
    expect((await engine.run(def, { x: 1 })).outcome).toEqual({ status: 'SUCCEEDED', output: [2] });
  });

  it('a JSONata state in a JSONPath machine and a JSONPath state after it', async () => {
    const def = jsonpath({
      A: { Type: 'Pass', QueryLanguage: 'JSONata', Output: { v: '{% $states.input.x * 2 %}' }, Next: 'B' },
      B: { Type: 'Pass', Parameters: { 'w.$': '$.v' }, End: true },
    });
    expect((await engine.run(def, { x: 2 })).outcome).toEqual({ status: 'SUCCEEDED', output: { w: 4 } });
  });

  it('$states.context in Arguments: the Execution and State names', async () => {
    const def = jsonata({ P: { Type: 'Pass', Output: '{% $states.context.State.Name %}', End: true } });
    expect((await engine.run(def, {})).outcome).toEqual({ status: 'SUCCEEDED', output: 'P' });
  });

  it('a Map over an object-valued Items expression result that is an array of objects, with ItemSelector', async () => {
    const def = jsonata({
      M: {
        Type: 'Map',
        Items: '{% $states.input.list %}',
        ItemSelector: { v: '{% $states.context.Map.Item.Value %}', i: '{% $states.context.Map.Item.Index %}' },
        ItemProcessor: { StartAt: 'I', States: { I: { Type: 'Pass', End: true } } },
        End: true,
      },
    });
    expect((await engine.run(def, { list: ['a', 'b'] })).outcome).toEqual({
      status: 'SUCCEEDED',
      output: [
        { v: 'a', i: 0 },
        { v: 'b', i: 1 },
      ],
    });
  });
});

describe('Variables (developer guide: passing data between states with variables)', () => {
  it("an Assign's expressions read the values from before the state: a variable assigned in the same Assign is not yet visible", async () => {
    const def = jsonata({
      A: { Type: 'Pass', Assign: { x: 1 }, Next: 'B' },
      B: { Type: 'Pass', Assign: { x: 2, y: '{% $x %}' }, Next: 'C' },
      C: { Type: 'Pass', Output: { x: '{% $x %}', y: '{% $y %}' }, End: true },
    });
    expect((await engine.run(def, {})).outcome).toEqual({ status: 'SUCCEEDED', output: { x: 2, y: 1 } });
  });

  it("a state's Output reads the values from before its own Assign", async () => {
    const def = jsonata({
      A: { Type: 'Pass', Assign: { x: 1 }, Next: 'B' },
      B: { Type: 'Pass', Assign: { x: 2 }, Output: '{% $x %}', End: true },
    });
    expect((await engine.run(def, {})).outcome).toEqual({ status: 'SUCCEEDED', output: 1 });
  });

  it('JSONPath Assign: `.$` fields take paths, intrinsics and variables; others are literals', async () => {
    const def = jsonpath({
      A: { Type: 'Pass', Assign: { 'a.$': '$.n', 'b.$': 'States.MathAdd($.n, 1)', c: 'plain' }, Next: 'B' },
      B: { Type: 'Pass', Parameters: { 'a.$': '$a', 'b.$': '$b', 'c.$': '$c' }, End: true },
    });
    expect((await engine.run(def, { n: 1 })).outcome).toEqual({
      status: 'SUCCEEDED',
      output: { a: 1, b: 2, c: 'plain' },
    });
  });

  it('a Map iteration reads outer variables, and what it assigns stays inside it', async () => {
    const def = jsonata({
      A: { Type: 'Pass', Assign: { outer: 'o' }, Next: 'M' },
      M: {
        Type: 'Map',
        Items: [1, 2],
        ItemProcessor: {
          StartAt: 'I',
          States: {
            I: { Type: 'Pass', Assign: { inner: '{% $states.input %}' }, Next: 'J' },
            J: { Type: 'Pass', Output: '{% $outer & $string($inner) %}', End: true },
          },
        },
        Next: 'After',
      },
      After: { Type: 'Pass', Output: { r: '{% $states.input %}', inner: '{% $exists($inner) %}' }, End: true },
    });
    expect((await engine.run(def, {})).outcome).toEqual({
      status: 'SUCCEEDED',
      output: { r: ['o1', 'o2'], inner: false },
    });
  });

  it('a Parallel branch reads outer variables, and what it assigns stays inside it', async () => {
    const def = jsonata({
      A: { Type: 'Pass', Assign: { outer: 'o' }, Next: 'P' },
      P: {
        Type: 'Parallel',
        Branches: [
          { StartAt: 'I', States: { I: { Type: 'Pass', Assign: { inner: 1 }, Output: '{% $outer %}', End: true } } },
        ],
        Next: 'After',
      },
      After: { Type: 'Pass', Output: { r: '{% $states.input %}', inner: '{% $exists($inner) %}' }, End: true },
    });
    expect((await engine.run(def, {})).outcome).toEqual({ status: 'SUCCEEDED', output: { r: ['o'], inner: false } });
  });

  it("a Map's or Parallel's own Assign reads $states.result, and its variables are set after it", async () => {
    const def = jsonata({
      P: {
        Type: 'Parallel',
        Branches: [{ StartAt: 'I', States: { I: { Type: 'Pass', Output: 7, End: true } } }],
        Assign: { got: '{% $states.result[0] %}' },
        Next: 'After',
      },
      After: { Type: 'Pass', Output: '{% $got %}', End: true },
    });
    expect((await engine.run(def, {})).outcome).toEqual({ status: 'SUCCEEDED', output: 7 });
  });

  it("a Catch's Assign reads $states.errorOutput", async () => {
    const def = jsonata({
      T: { Type: 'Fail', Error: 'Boom', Cause: 'c' },
    });
    expect((await engine.run(def, {})).outcome).toEqual({ status: 'FAILED', error: 'Boom', cause: 'c' });
    const caught = jsonata({
      P: {
        Type: 'Parallel',
        Branches: [{ StartAt: 'F', States: { F: { Type: 'Fail', Error: 'Boom', Cause: 'c' } } }],
        Catch: [{ ErrorEquals: ['States.ALL'], Assign: { err: '{% $states.errorOutput.Error %}' }, Next: 'After' }],
        End: true,
      },
      After: { Type: 'Pass', Output: '{% $err %}', End: true },
    });
    expect((await engine.run(caught, {})).outcome).toEqual({ status: 'SUCCEEDED', output: 'Boom' });
  });

  it.each([
    ['a name starting with a digit', { '1x': 1 }],
    ['a name with a dash', { 'a-b': 1 }],
    ['the reserved name states', { states: 1 }],
  ])('a variable name AWS does not allow is refused: %s', async (_what, assign) => {
    expect(await engine.create(jsonata({ P: { Type: 'Pass', Assign: assign, End: true } }))).toMatchObject({
      name: 'InvalidDefinition',
    });
  });
});

/**
 * The fields each state type takes, per query language (developer guide: each state's page, "Common state
 * fields", and the JSONata page's field table), as one matrix: every field below is accepted on the state
 * types that list it and refused on the others. `Assign` on a Succeed state is left out (not verified).
 */
describe('fields per state type and query language', () => {
  const LAMBDA_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:echo';
  const INNER = { StartAt: 'I', States: { I: { Type: 'Pass', End: true } } };
  const BASE: Record<string, object> = {
    Pass: { Type: 'Pass', Next: 'S' },
    Task: { Type: 'Task', Resource: LAMBDA_ARN, Next: 'S' },
    Choice: { Type: 'Choice', Default: 'S' },
    Wait: { Type: 'Wait', Seconds: 1, Next: 'S' },
    Succeed: { Type: 'Succeed' },
    Fail: { Type: 'Fail' },
    Parallel: { Type: 'Parallel', Branches: [INNER], Next: 'S' },
    Map: { Type: 'Map', ItemProcessor: INNER, Next: 'S' },
  };
  const VALUES: Record<'JSONPath' | 'JSONata', Record<string, unknown>> = {
    JSONPath: {
      InputPath: '$',
      OutputPath: '$',
      Parameters: { a: 1 },
      ResultPath: '$.r',
      ResultSelector: { a: 1 },
      Result: 1,
      Assign: { v: 1 },
      Retry: [{ ErrorEquals: ['States.ALL'] }],
      Catch: [{ ErrorEquals: ['States.ALL'], Next: 'S' }],
      TimeoutSeconds: 5,
      HeartbeatSeconds: 2,
      ItemsPath: '$',
      MaxConcurrency: 1,
      Comment: 'c',
    },
    JSONata: {
      Arguments: { a: 1 },
      Output: { a: 1 },
      Assign: { v: 1 },
      Retry: [{ ErrorEquals: ['States.ALL'] }],
      Catch: [{ ErrorEquals: ['States.ALL'], Next: 'S' }],
      TimeoutSeconds: 5,
      Items: [1],
      ItemSelector: { a: 1 },
      MaxConcurrency: 1,
      Comment: 'c',
    },
  };
  const ALLOWED: Record<'JSONPath' | 'JSONata', Record<string, readonly string[]>> = {
    JSONPath: {
      Pass: ['InputPath', 'OutputPath', 'Parameters', 'ResultPath', 'Result', 'Assign', 'Comment'],
      Task: [
        'InputPath',
        'OutputPath',
        'Parameters',
        'ResultPath',
        'ResultSelector',
        'Assign',
        'Retry',
        'Catch',
        'TimeoutSeconds',
        'HeartbeatSeconds',
        'Comment',
      ],
      Choice: ['InputPath', 'OutputPath', 'Assign', 'Comment'],
      Wait: ['InputPath', 'OutputPath', 'Assign', 'Comment'],
      Succeed: ['InputPath', 'OutputPath', 'Comment'],
      Fail: ['Comment'],
      Parallel: [
        'InputPath',
        'OutputPath',
        'Parameters',
        'ResultPath',
        'ResultSelector',
        'Assign',
        'Retry',
        'Catch',
        'Comment',
      ],
      Map: [
        'InputPath',
        'OutputPath',
        'Parameters',
        'ResultPath',
        'ResultSelector',
        'Assign',
        'Retry',
        'Catch',
        'ItemsPath',
        'MaxConcurrency',
        'Comment',
      ],
    },
    JSONata: {
      Pass: ['Output', 'Assign', 'Comment'],
      Task: ['Arguments', 'Output', 'Assign', 'Retry', 'Catch', 'TimeoutSeconds', 'Comment'],
      Choice: ['Output', 'Assign', 'Comment'],
      Wait: ['Output', 'Assign', 'Comment'],
      Succeed: ['Output', 'Comment'],
      Fail: ['Comment'],
      Parallel: ['Arguments', 'Output', 'Assign', 'Retry', 'Catch', 'Comment'],
      Map: ['Output', 'Assign', 'Retry', 'Catch', 'Items', 'ItemSelector', 'MaxConcurrency', 'Comment'],
    },
  };
  /** A definition where a Choice first routes to the state under test and to S, so both are reachable whatever it is. */
  const definition = (lang: 'JSONPath' | 'JSONata', type: string, fields: readonly string[]) => {
    const route =
      lang === 'JSONPath' ? { Variable: '$.a', IsPresent: true, Next: 'S' } : { Condition: '{% true %}', Next: 'S' };
    const state: Record<string, unknown> = {
      ...BASE[type],
      ...Object.fromEntries(fields.map((f) => [f, VALUES[lang][f]])),
    };
    if (type === 'Choice') state.Choices = [route];
    return {
      QueryLanguage: lang,
      StartAt: 'Route',
      States: { Route: { Type: 'Choice', Choices: [route], Default: 'X' }, X: state, S: { Type: 'Succeed' } },
    };
  };
  const languages = ['JSONPath', 'JSONata'] as const;

  it.each(languages.flatMap((lang) => Object.keys(BASE).map((type) => [lang, type] as const)))(
    '%s %s takes all its fields at once',
    async (lang, type) => {
      expect(await engine.create(definition(lang, type, ALLOWED[lang][type]))).toBe('created');
    },
  );

  const refusals = languages.flatMap((lang) =>
    Object.keys(BASE).flatMap((type) =>
      Object.keys(VALUES[lang])
        .filter((field) => !ALLOWED[lang][type].includes(field) && !(type === 'Succeed' && field === 'Assign'))
        .map((field) => [lang, type, field] as const),
    ),
  );
  it.each(refusals)('%s %s refuses %s', async (lang, type, field) => {
    expect(await engine.create(definition(lang, type, [field]))).toMatchObject({ name: 'InvalidDefinition' });
  });
});

describe('Distributed Map item sources (developer guide: ItemReader)', () => {
  it.each(['CSV', 'JSON', 'JSONL', 'MANIFEST', 'PARQUET'])(
    'ItemReader InputType %s is one AWS takes: the definition is created',
    async (inputType) => {
      const def = jsonpath({
        M: {
          Type: 'Map',
          ItemReader: {
            Resource: 'arn:aws:states:::s3:getObject',
            ReaderConfig: { InputType: inputType },
            Parameters: { Bucket: 'b', Key: 'k' },
          },
          ItemProcessor: {
            ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
            StartAt: 'I',
            States: { I: { Type: 'Pass', End: true } },
          },
          End: true,
        },
      });
      expect(await engine.create(def)).toBe('created');
    },
  );

  it('an InputType AWS does not have is refused', async () => {
    const def = jsonpath({
      M: {
        Type: 'Map',
        ItemReader: {
          Resource: 'arn:aws:states:::s3:getObject',
          ReaderConfig: { InputType: 'XML' },
          Parameters: { Bucket: 'b', Key: 'k' },
        },
        ItemProcessor: {
          ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
          StartAt: 'I',
          States: { I: { Type: 'Pass', End: true } },
        },
        End: true,
      },
    });
    expect(await engine.create(def)).toMatchObject({ name: 'InvalidDefinition' });
  });
});

describe('accepted although the SDKs dropped it (a corpus refusal no more, docs/definitions.md)', () => {
  it('an AWS SDK integration of a service AWS has retired (aws-sdk:lookoutvision, end of support 2025-10-31): AWS accepted it when the sample was deployed', async () => {
    const def = jsonpath({
      T: { Type: 'Task', Resource: 'arn:aws:states:::aws-sdk:lookoutvision:describeModel', End: true },
    });
    expect(await engine.create(def)).toBe('created');
  });
});

describe('still refused, as AWS refuses them (the corpus refusals, docs/definitions.md)', () => {
  it('a Lambda function ARN with an empty region and account', async () => {
    const def = jsonpath({ T: { Type: 'Task', Resource: 'arn:aws:lambda:::function:fn', End: true } });
    expect(await engine.create(def)).toMatchObject({
      name: 'InvalidDefinition',
      message: expect.stringContaining('is not recognized'),
    });
  });

  it('"QueryLanguage" inside States: a state that is not an object', async () => {
    const def = {
      StartAt: 'P',
      States: { QueryLanguage: 'JSONata', P: { Type: 'Pass', Output: '{% 1 %}', End: true } },
    };
    expect(await engine.create(def)).toMatchObject({
      name: 'InvalidDefinition',
      message: expect.stringContaining("State 'QueryLanguage' must be an object"),
    });
  });
});
