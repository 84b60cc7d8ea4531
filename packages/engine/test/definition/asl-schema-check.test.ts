/**
 * asl-validator compiles its fifteen JSON schemas at every call: 70-325 ms of the engine's thread for each new
 * definition, while no run steps and no API call is answered. The engine compiles them once (asl-schema-check.ts)
 * and must find exactly what asl-validator's own check finds.
 */
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { validateDefinition } from '../../src/definition';
import { aslValidator } from '../../src/definition/asl-schema-check';

type Check = ((definition: unknown, options: object) => unknown[]) & { uncompiled: Check };
const fromValidator = createRequire(createRequire(import.meta.url).resolve('asl-validator'));
const ENGINE_OPTIONS = { checkPaths: false, checkArn: false };

const pass = (extra: Record<string, unknown> = {}) => ({
  StartAt: 'A',
  States: { A: { Type: 'Pass', End: true, ...extra } },
});
const withState = (state: Record<string, unknown>, top: Record<string, unknown> = {}) => ({
  StartAt: 'A',
  States: { A: state, B: { Type: 'Succeed' } },
  ...top,
});
const task = { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:123456789012:function:f', Next: 'B' };

/** Definitions asl-validator's schemas accept, and ones they refuse in as many ways as they have. */
const CASES: readonly (readonly [string, unknown])[] = [
  ['a Pass', pass()],
  [
    'a Task with Retry and Catch',
    withState({
      ...task,
      Retry: [{ ErrorEquals: ['States.ALL'] }],
      Catch: [{ ErrorEquals: ['States.ALL'], Next: 'B' }],
    }),
  ],
  ['a JSONata Pass', pass({ QueryLanguage: 'JSONata', Output: '{% $states.input %}' })],
  ['an unknown state type', withState({ Type: 'Pas', Next: 'B' })],
  ['a Next that is a number', withState({ Type: 'Pass', Next: 7 })],
  ['a Task without Resource', withState({ Type: 'Task', Next: 'B' })],
  ['a Choice rule without a comparison', withState({ Type: 'Choice', Choices: [{ Variable: '$.x', Next: 'B' }] })],
  ['a Wait whose Seconds is text', withState({ Type: 'Wait', Seconds: 'ten', Next: 'B' })],
  ['a Retry whose ErrorEquals is text', withState({ ...task, Retry: [{ ErrorEquals: 'States.ALL' }] })],
  ['a Catch without Next', withState({ ...task, Catch: [{ ErrorEquals: ['States.ALL'] }] })],
  ['Branches that are no list', withState({ Type: 'Parallel', Branches: {}, Next: 'B' })],
  ['a field the language does not have', withState({ Type: 'Pass', Next: 'B', Foo: 1 })],
  ['a Fail whose Error is a number', withState({ Type: 'Fail', Error: 42 })],
  ['a JSONata expression that does not parse', pass({ QueryLanguage: 'JSONata', Output: '{% $$$( %}' })],
  ['a negative TimeoutSeconds', withState({ ...task, TimeoutSeconds: -1 })],
  ['a Comment that is a number', withState({ Type: 'Pass', Next: 'B' }, { Comment: 3 })],
  ['a top-level field the language does not have', withState({ Type: 'Pass', Next: 'B' }, { Version: 2, Extra: true })],
];

/** A copy with each state's query language made explicit, as asl-validator's validator does before its checks. */
function asTheValidatorPassesIt(definition: unknown): unknown {
  const copy = structuredClone(definition) as {
    QueryLanguage?: string;
    States: Record<string, Record<string, unknown>>;
  };
  for (const state of Object.values(copy.States)) state.QueryLanguage ??= copy.QueryLanguage ?? 'JSONPath';
  return copy;
}

describe("asl-validator's schema check, compiled once", () => {
  it("finds what asl-validator's own check finds, for definitions it accepts and ones it refuses", () => {
    aslValidator();
    const check = (fromValidator('./checks/json-schema-errors') as { jsonSchemaErrors: Check }).jsonSchemaErrors;
    expect(check.uncompiled).toBeTypeOf('function');
    let refused = 0;
    for (const [name, definition] of CASES) {
      const findings = check(asTheValidatorPassesIt(definition), ENGINE_OPTIONS);
      expect(findings, name).toEqual(check.uncompiled(asTheValidatorPassesIt(definition), ENGINE_OPTIONS));
      if (findings.length > 0) refused += 1;
    }
    expect(refused).toBe(CASES.length - 3);
  });

  it('builds its schemas once however many new definitions are created', () => {
    const definition = (i: number) => JSON.stringify(pass({ Result: { definition: i } }));
    validateDefinition(definition(0));
    const Ajv = (fromValidator('ajv') as { default: { prototype: { addSchema: () => unknown } } }).default;
    const added = vi.spyOn(Ajv.prototype, 'addSchema');
    try {
      for (let i = 1; i <= 12; i += 1) validateDefinition(definition(i));
      expect(added).not.toHaveBeenCalled();
    } finally {
      added.mockRestore();
    }
  });
});
