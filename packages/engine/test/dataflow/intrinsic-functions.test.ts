import { describe, expect, it } from 'vitest';
import { compileIntrinsic, INTRINSIC_FUNCTIONS } from '../../src/dataflow';
import { evaluateIntrinsic } from '../../src/dataflow/jsonpath/intrinsics/intrinsic-functions';

const data = {
  name: 'ada',
  n: 3,
  list: [1, 2, 2, 3, { a: 1 }, { a: 1 }],
  obj: { a: 1, b: { c: 2 } },
  other: { b: 9, d: 4 },
  json: '{"x":[1,2],"y":null}',
  csv: 'a,b,,c',
  b64: 'aGVsbG8gd29ybGQ=',
  tmpl: 'Hi {}',
};
const roots = { data, context: { Execution: { Name: 'run-1' } }, variables: { greeting: 'hello' } };
const run = (text: string) => evaluateIntrinsic(text, roots, 'Parameters.x.$');

describe('intrinsic functions', () => {
  it.each([
    ["States.Format('Hello, {}!', $.name)", 'Hello, ada!'],
    ["States.Format('{} + {} = {}', 1, 2, 3)", '1 + 2 = 3'],
    ["States.Format('{} {} {}', true, null, 1.5)", 'true null 1.5'],
    ["States.Format('literal \\{\\} braces {}', $.n)", 'literal {} braces 3'],
    ["States.Format('it\\'s {}', $$.Execution.Name)", "it's run-1"],
    ["States.Format('back\\\\slash')", 'back\\slash'],
    ["States.Format('{}', $greeting)", 'hello'],
    ['States.Format($.tmpl, $.name)', 'Hi ada'],
    ['States.StringToJson($.json)', { x: [1, 2], y: null }],
    ['States.StringToJson(\'[1, "a"]\')', [1, 'a']],
    ['States.JsonToString($.obj)', '{"a":1,"b":{"c":2}}'],
    ['States.JsonToString($.n)', '3'],
    ["States.Array('a', 1, true, null, $.obj.b)", ['a', 1, true, null, { c: 2 }]],
    ['States.Array()', []],
    [
      'States.ArrayPartition($.list, 4)',
      [
        [1, 2, 2, 3],
        [{ a: 1 }, { a: 1 }],
      ],
    ],
    ['States.ArrayPartition(States.Array(1, 2, 3), 1)', [[1], [2], [3]]],
    ['States.ArrayContains($.list, 3)', true],
    ['States.ArrayContains($.list, $.obj.b)', false],
    ['States.ArrayContains(States.Array($.obj), $.obj)', true],
    ['States.ArrayRange(1, 9, 2)', [1, 3, 5, 7, 9]],
    ['States.ArrayRange(10, 0, -5)', [10, 5, 0]],
    ['States.ArrayGetItem($.list, 3)', 3],
    ["States.ArrayGetItem(States.Array('a', 'b'), 0)", 'a'],
    ['States.ArrayLength($.list)', 6],
    ['States.ArrayLength(States.Array())', 0],
    ['States.ArrayUnique($.list)', [1, 2, 3, { a: 1 }]],
    ["States.Base64Encode('hello world')", 'aGVsbG8gd29ybGQ='],
    ['States.Base64Decode($.b64)', 'hello world'],
    ["States.Hash('abc', 'SHA-256')", 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ["States.Hash($.name, 'MD5')", '8c8d357b5e872bbacd45197626bd5759'],
    ["States.Hash('abc', 'SHA-1')", 'a9993e364706816aba3e25717850c26c9cd0d89d'],
    ['States.JsonMerge($.obj, $.other, false)', { a: 1, b: 9, d: 4 }],
    ['States.MathAdd($.n, -5)', -2],
    ['States.MathAdd(1, 1)', 2],
    ["States.StringSplit($.csv, ',')", ['a', 'b', 'c']],
    ["States.StringSplit('This.is+a,test=string', '.+,=')", ['This', 'is', 'a', 'test', 'string']],
    ['States.MathRandom(5, 6)', 5],
    ["States.ArrayLength(States.StringSplit(States.Format('{},{}', 'a', 'b'), ','))", 2],
    ["States.Format( 'spaced {}' ,  $.name )", 'spaced ada'],
    ["States.Format('{}', $['name'])", 'ada'],
    ['States.ArrayLength($.list[?(@ == 2)])', 2],
  ])('%s = %j', (text, expected) => {
    expect(run(text)).toEqual(expected);
  });

  it('States.MathRandom with a seed is repeatable and within [start, end)', () => {
    const first = run('States.MathRandom(1, 1000, 42)');
    expect(run('States.MathRandom(1, 1000, 42)')).toBe(first);
    for (let i = 0; i < 50; i++) {
      const value = run('States.MathRandom(10, 20)') as number;
      expect(Number.isInteger(value) && value >= 10 && value < 20).toBe(true);
    }
  });

  it('States.UUID gives version 4 UUIDs', () => {
    expect(run('States.UUID()')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(run('States.UUID()')).not.toBe(run('States.UUID()'));
  });

  it('the table has every Step Functions intrinsic', () => {
    expect(Object.keys(INTRINSIC_FUNCTIONS).sort()).toEqual(
      [
        'States.Array',
        'States.ArrayContains',
        'States.ArrayGetItem',
        'States.ArrayLength',
        'States.ArrayPartition',
        'States.ArrayRange',
        'States.ArrayUnique',
        'States.Base64Decode',
        'States.Base64Encode',
        'States.Format',
        'States.Hash',
        'States.JsonMerge',
        'States.JsonToString',
        'States.MathAdd',
        'States.MathRandom',
        'States.StringSplit',
        'States.StringToJson',
        'States.UUID',
      ].sort(),
    );
  });

  it.each([
    ["States.Format('{} {}', 1)", /more \{\} placeholders/],
    ["States.Format('{}', 1, 2)", /more arguments/],
    ["States.StringToJson('{nope')", /not valid JSON/],
    ['States.StringToJson($.n)', /must be a string/],
    ['States.ArrayPartition($.list, 0)', /positive integer/],
    ['States.ArrayPartition($.name, 2)', /array/],
    ['States.ArrayRange(0, 1, 0)', /step/],
    ['States.ArrayRange(0, 2000, 1)', /at most 1000/],
    ['States.ArrayGetItem($.list, 99)', /out of bounds/],
    ['States.ArrayLength($.obj)', /array/],
    ["States.Base64Decode('***')", /not base64/],
    ["States.Hash('abc', 'CRC32')", /unsupported hash algorithm/],
    ['States.JsonMerge($.obj, $.other, true)', /shallow/],
    ['States.JsonMerge($.list, $.other, false)', /JSON object/],
    ["States.MathAdd('1', 1)", /must be a number/],
    ['States.MathRandom(5, 5)', /greater/],
  ])('%s is a States.IntrinsicFailure (%s)', (text, message) => {
    expect(() => run(text)).toThrowError(
      expect.objectContaining({ name: 'States.IntrinsicFailure', message: expect.stringMatching(message) }),
    );
  });

  it.each([
    ["States.Nope('x')", /Unknown intrinsic function States\.Nope/],
    ["States.Format('unterminated)", /unterminated string/],
    ['States.ArrayLength($.list', /missing ',' or '\)'/],
    ['States.UUID(1)', /takes 0 argument/],
    ['States.JsonMerge($.a, $.b)', /takes 3 argument/],
    ['States.ArrayRange(1, 2, 3) extra', /trailing text/],
    ['States.Array(nope)', /unexpected argument/],
  ])('%s does not compile: %s', (text, message) => {
    expect(() => compileIntrinsic(text)).toThrowError(
      expect.objectContaining({ name: 'States.IntrinsicFailure', message: expect.stringMatching(message) }),
    );
  });

  it('a path argument that selects nothing is a States.Runtime error', () => {
    expect(() => run("States.Format('{}', $.missing)")).toThrowError(
      expect.objectContaining({ name: 'States.Runtime' }),
    );
  });
});
