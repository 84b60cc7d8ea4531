/**
 * The engine compiles asl-validator's JSON schemas once (packages/engine/src/definition/asl-schema-check.ts)
 * instead of at every definition: its findings must be asl-validator's own, here over the public definitions of
 * the corpus as they are and with a state broken.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { aslValidator } from '../../packages/engine/src/definition/asl-schema-check';

type Check = ((definition: unknown, options: object) => unknown[]) & { uncompiled: Check };
const root = new URL('../fixtures/corpus/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', root), 'utf8')) as { definitions: { file: string }[] };
const fromValidator = createRequire(createRequire(import.meta.url).resolve('asl-validator'));
const ENGINE_OPTIONS = { checkPaths: false, checkArn: false };
/** Every other definition as it is, and every fifth with a state broken: asl-validator's own check is slow. */
const AS_IS_EVERY = 2;
const BROKEN_EVERY = 5;

/** The definition with each state's query language explicit (as asl-validator's validator passes it on). */
function asTheValidatorPassesIt(node: unknown, language = 'JSONPath'): void {
  if (Array.isArray(node)) return node.forEach((item) => asTheValidatorPassesIt(item, language));
  if (node === null || typeof node !== 'object') return;
  const object = node as Record<string, unknown>;
  const own = typeof object.QueryLanguage === 'string' ? object.QueryLanguage : language;
  if (object.States && typeof object.States === 'object')
    for (const state of Object.values(object.States as Record<string, Record<string, unknown>>))
      if (state && typeof state === 'object') state.QueryLanguage ??= own;
  for (const value of Object.values(object)) asTheValidatorPassesIt(value, own);
}

/** A copy whose first state has a type the language does not have and a Next that is no name. */
function broken(definition: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(definition);
  const states = copy.States as Record<string, Record<string, unknown>> | undefined;
  const first = states && Object.values(states)[0];
  if (first) Object.assign(first, { Type: 'Tsak', Next: 7 });
  return copy;
}

describe("asl-validator's schema check, compiled once, over the corpus", () => {
  it("finds what asl-validator's own check finds", () => {
    aslValidator();
    const check = (fromValidator('./checks/json-schema-errors') as { jsonSchemaErrors: Check }).jsonSchemaErrors;
    let compared = 0;
    let refused = 0;
    manifest.definitions.forEach(({ file }, i) => {
      let definition: Record<string, unknown>;
      try {
        definition = JSON.parse(readFileSync(new URL(file, root), 'utf8')) as Record<string, unknown>;
      } catch {
        return; // a definition whose text is a template's, not JSON
      }
      const variants = [
        ...(i % AS_IS_EVERY === 0 ? [definition] : []),
        ...(i % BROKEN_EVERY === 0 ? [broken(definition)] : []),
      ];
      for (const variant of variants) {
        asTheValidatorPassesIt(variant);
        const findings = check(structuredClone(variant), ENGINE_OPTIONS);
        expect(findings, file).toEqual(check.uncompiled(structuredClone(variant), ENGINE_OPTIONS));
        compared += 1;
        if (findings.length > 0) refused += 1;
      }
    });
    expect(compared).toBeGreaterThan(150);
    expect(refused).toBeGreaterThan(50);
  }, 120_000);
});
