import { describe, expect, it } from 'vitest';
import { readPath, setReferencePath } from '../../src/dataflow';

const data = {
  a: { b: [10, 20, { c: 'deep' }] },
  'odd key': 1,
  'dots.in.key': 2,
  list: [
    { id: 1, ok: true },
    { id: 2, ok: false },
  ],
  zero: 0,
  nil: null,
};
const roots = {
  data,
  context: { Execution: { Name: 'run-1' }, Map: { Item: { Index: 2 } } },
  variables: { user: { name: 'ada', tags: ['x'] }, count: 3 },
};

describe('readPath', () => {
  it.each([
    ['$', data],
    ['$.a.b[1]', 20],
    ['$.a.b[2].c', 'deep'],
    ["$['odd key']", 1],
    ['$["dots.in.key"]', 2],
    ['$.zero', 0],
    ['$.nil', null],
    ['$$.Execution.Name', 'run-1'],
    ['$$.Map.Item.Index', 2],
    ['$user', { name: 'ada', tags: ['x'] }],
    ['$user.name', 'ada'],
    ['$user.tags[0]', 'x'],
    ['$count', 3],
    ['$.list[*].id', [1, 2]],
    ['$.list[?(@.ok)].id', [1]],
    ['$..c', ['deep']],
    ['$.list[0:1]', [{ id: 1, ok: true }]],
    ['$.missing[*]', []],
  ])('%s selects %j', (path, expected) => {
    expect(readPath(path, roots, 'InputPath')).toEqual(expected);
  });

  it.each([
    ['$.missing'],
    ['$.a.b[9]'],
    ['$.a.b.length'],
    ['$.zero.x'],
    ['$$.Task.Token'],
    ['$unknownVariable'],
    ['no-dollar'],
  ])('%s is a States.Runtime error', (path) => {
    expect(() => readPath(path, roots, 'InputPath')).toThrowError(expect.objectContaining({ name: 'States.Runtime' }));
  });

  it('names the field in the message', () => {
    expect(() => readPath('$.missing', { ...roots, data: { a: 1 } }, 'Parameters/x.$')).toThrow(
      `The JSONPath '$.missing' specified for the field 'x.$' could not be found in the input '{"a":1}'`,
    );
    expect(() => readPath('$.missing', roots, 'InputPath')).toThrow(
      "Invalid path '$.missing' : No results for path: $['missing']",
    );
    expect(() => readPath('$.no.such', roots, 'OutputPath')).toThrow(
      "Invalid path '$.no.such' : Missing property in path $['no']",
    );
  });
});

describe('setReferencePath (ResultPath)', () => {
  it.each([
    ['$', { a: 1 }, 'R', 'R'],
    ['$.r', { a: 1 }, 'R', { a: 1, r: 'R' }],
    ['$.a', { a: 1 }, 'R', { a: 'R' }],
    ['$.x.y.z', { a: 1 }, 'R', { a: 1, x: { y: { z: 'R' } } }],
    ['$.x.y', { a: 1, x: { keep: true } }, 'R', { a: 1, x: { keep: true, y: 'R' } }],
    ["$['with space']", {}, 1, { 'with space': 1 }],
    ['$.list[1]', { list: [1, 2] }, 'R', { list: [1, 'R'] }],
  ])('%s into %j', (path, input, value, expected) => {
    expect(setReferencePath(input, path, value)).toEqual(expected);
  });

  it('does not change the input', () => {
    const input = { x: { y: 1 } };
    setReferencePath(input, '$.x.z', 2);
    expect(input).toEqual({ x: { y: 1 } });
  });

  it.each([
    ['$.r', 'a string input'],
    ['$.r', [1, 2]],
    ['$.a.b', { a: 5 }],
    ['$.list[5]', { list: [] }],
    ['$.list[*]', { list: [] }],
    ['$..r', {}],
  ])('%s into %j is a States.ResultPathMatchFailure', (path, input) => {
    expect(() => setReferencePath(input, path, 1)).toThrowError(
      expect.objectContaining({ name: 'States.ResultPathMatchFailure' }),
    );
  });
});
