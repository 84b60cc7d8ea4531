/**
 * ASL that AWS accepts and runs, which the engine refused (issue 21's list, measured on public sample
 * definitions AWS deploys). AWS evaluates JSONPath with Jayway JsonPath: a dot before a bracket is a plain
 * bracket step, filters take `&&`/`||`, `$` (the root) and nested members, a union of names as the last
 * step selects an object of those members. JSONata expressions need no space inside `{%` `%}` and may span
 * lines; a JSONata Task's Arguments may hold any JSON string, line breaks included. State names are any
 * names, `Iterator`, `Branches` and `States` included.
 */
import { describe, expect, it } from 'vitest';
import { jsonata, jsonpath } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const engine = recordedEngine({ echo: (payload: unknown) => payload });
const pick = (path: string) =>
  jsonpath({ P: { Type: 'Pass', Parameters: { 'v.$': path }, OutputPath: '$.v', End: true } });

describe('JSONPath as Jayway reads it', () => {
  it.each([
    ['$.[0] on an array input', '$.[0]', [{ a: 1 }, { a: 2 }], { a: 1 }],
    ['$.Items.[0].State', '$.Items.[0].State', { Items: [{ State: 'ok' }, { State: 'no' }] }, 'ok'],
    ['$.[?(@.n > 0)] on an array input', '$.[?(@.n > 0)]', [{ n: 1 }, { n: 0 }, { n: 3 }], [{ n: 1 }, { n: 3 }]],
    [
      'a filter with &&',
      '$.a[?(@.n > 0 && @.m < 3)]',
      {
        a: [
          { n: 1, m: 5 },
          { n: 2, m: 1 },
          { n: 0, m: 0 },
        ],
      },
      [{ n: 2, m: 1 }],
    ],
    [
      'a filter with ||',
      '$.a[?(@.n > 1 || @.m > 4)]',
      {
        a: [
          { n: 1, m: 5 },
          { n: 2, m: 1 },
          { n: 0, m: 0 },
        ],
      },
      [
        { n: 1, m: 5 },
        { n: 2, m: 1 },
      ],
    ],
    [
      'a filter comparing with a $ path (the root)',
      '$.a[?(@.n == $.x)]',
      { x: 2, a: [{ n: 1 }, { n: 2 }] },
      [{ n: 2 }],
    ],
    [
      'a filter on a nested member compared with a string (items lacking it do not match)',
      "$.a[?(@.b.c == 'x')]",
      { a: [{ b: { c: 'x' } }, { b: { c: 'y' } }, { d: 1 }] },
      [{ b: { c: 'x' } }],
    ],
    [
      'a union of names as the last step: an object of those members',
      "$['a','b']",
      { a: 1, b: 2, c: 3 },
      { a: 1, b: 2 },
    ],
    ['a union of names after a path', "$.o['a','c']", { o: { a: 1, b: 2, c: 3 } }, { a: 1, c: 3 }],
  ])('%s', async (_what, path, input, output) => {
    const run = await engine.run(pick(path), input);
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output });
  });

  it("a payload template's path with whitespace around it ('$$.Execution.Name '): Jayway trims a path before compiling it", async () => {
    const def = jsonpath({
      P: { Type: 'Pass', Parameters: { 'name.$': '$$.Execution.Name ', 'a.$': ' $.a' }, End: true },
    });
    const run = await engine.run(def, { a: 1 });
    expect(run.outcome).toMatchObject({ status: 'SUCCEEDED', output: { name: expect.any(String), a: 1 } });
  });

  it('States.StringToJson($.[0].body)', async () => {
    const def = jsonpath({
      P: { Type: 'Pass', Parameters: { 'v.$': 'States.StringToJson($.[0].body)' }, OutputPath: '$.v', End: true },
    });
    expect((await engine.run(def, [{ body: '{"x":1}' }])).outcome).toEqual({ status: 'SUCCEEDED', output: { x: 1 } });
  });

  it('InputPath, ItemsPath and a Choice Variable with a dot before a bracket', async () => {
    const def = jsonpath({
      C: { Type: 'Choice', Choices: [{ Variable: '$.Items.[0].State', StringEquals: 'ok', Next: 'M' }], Default: 'F' },
      M: {
        Type: 'Map',
        InputPath: '$.Items.[1]',
        ItemsPath: '$.List',
        ItemProcessor: { StartAt: 'I', States: { I: { Type: 'Pass', End: true } } },
        End: true,
      },
      F: { Type: 'Fail' },
    });
    const run = await engine.run(def, { Items: [{ State: 'ok' }, { List: [1, 2] }] });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: [1, 2] });
  });

  it.each([
    ['an unclosed bracket', '$.a['],
    ['a trailing dot', '$.a.'],
    ['an unbalanced filter', '$.a[?(@.n > 0]'],
    ['not a path', 'a.b'],
  ])('still refused: %s (%s)', async (_what, path) => {
    expect(await engine.create(pick(path))).toMatchObject({ name: 'InvalidDefinition' });
  });
});

describe('JSONata as AWS reads it', () => {
  it.each([
    ['Output', { P: { Type: 'Pass', Output: '{% $states.input.a%}', End: true } }],
    ['Output, no space at all', { P: { Type: 'Pass', Output: '{%$states.input.a%}', End: true } }],
    ['Output over several lines', { P: { Type: 'Pass', Output: '{%\n  $states.input.a\n%}', End: true } }],
    [
      'a Choice Condition',
      {
        C: { Type: 'Choice', Choices: [{ Condition: '{%$states.input.a = 1%}', Next: 'P' }], Default: 'F' },
        P: { Type: 'Pass', Output: '{% $states.input.a %}', End: true },
        F: { Type: 'Fail' },
      },
    ],
  ])('an expression without spaces inside its braces: %s', async (_field, states) => {
    const run = await engine.run(jsonata(states), { a: 1 });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: 1 });
  });

  it("a plain string with line breaks in a Task's Arguments (a multi-line system prompt) is passed as written", async () => {
    const system = 'You are a careful assistant.\nAnswer briefly.\n\nNever guess.';
    const def = jsonata({
      T: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Arguments: { FunctionName: 'echo', Payload: { system, input: '{% $states.input %}' } },
        Output: '{% $states.result.Payload %}',
        End: true,
      },
    });
    expect((await engine.run(def, { q: 1 })).outcome).toEqual({
      status: 'SUCCEEDED',
      output: { system, input: { q: 1 } },
    });
  });
});

describe('any state name', () => {
  it.each(['Iterator', 'Branches', 'States', 'ItemProcessor', 'Choices'])(
    'a state named %s is created and runs (was a 500)',
    async (name) => {
      const def = jsonpath({
        [name]: { Type: 'Pass', Result: { ok: name }, Next: 'Last' },
        Last: { Type: 'Pass', End: true },
      });
      expect((await engine.run(def, {})).outcome).toEqual({ status: 'SUCCEEDED', output: { ok: name } });
    },
  );

  it('a Map and a Parallel with states named Iterator and Branches inside', async () => {
    const def = jsonpath({
      Branches: {
        Type: 'Parallel',
        Branches: [jsonpath({ States: { Type: 'Pass', Result: 1, End: true } })],
        Next: 'Iterator',
      },
      Iterator: {
        Type: 'Map',
        ItemsPath: '$',
        ItemProcessor: { StartAt: 'ItemProcessor', States: { ItemProcessor: { Type: 'Pass', End: true } } },
        End: true,
      },
    });
    expect((await engine.run(def, {})).outcome).toEqual({ status: 'SUCCEEDED', output: [1] });
  });

  it('a schema finding still names the state as written', async () => {
    const refused = await engine.create(jsonpath({ Iterator: { Type: 'Pass', End: true, Next: 'Iterator' } }));
    expect(refused).toMatchObject({ name: 'InvalidDefinition', message: expect.stringContaining('Iterator') });
    expect((refused as { message: string }).message).not.toMatch(/\bstate\d+\b/);
  });
});
