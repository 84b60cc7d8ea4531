import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { TemplateSyntaxError, keyExpression, parseTemplate, renderValue, stringExpression } from '@autosave/workflow';

const stateData = {
  input: { siteId: 'site-4412', version: 3, contractId: 'C-1' },
  steps: { 'verify-site': { registryId: 'REG-1', count: 2 } },
};
const evaluate = (expression: string) => jsonata(expression).evaluate({}, { states: { input: stateData } });

describe('templates', () => {
  it('parses literals and references, with {{ and }} as literal braces', () => {
    expect(parseTemplate('a{{b}}{siteId}:{steps.verify-site.registryId}')).toEqual([
      { literal: 'a{b}' },
      { ref: { text: 'siteId', fields: ['siteId'] } },
      { literal: ':' },
      { ref: { text: 'steps.verify-site.registryId', step: 'verify-site', fields: ['registryId'] } },
    ]);
  });

  it.each(['{unclosed', 'stray}', '{}', '{a b}', '{steps}'])('rejects the malformed template %j', (t) => {
    expect(() => parseTemplate(t)).toThrow(TemplateSyntaxError);
  });

  it('builds text from the input and earlier results', async () => {
    expect(
      await evaluate(stringExpression('{siteId} is {steps.verify-site.registryId} (x{steps.verify-site.count})')),
    ).toBe('site-4412 is REG-1 (x2)');
  });

  it('builds the seed idempotency key site-4412:welcome', async () => {
    expect(await evaluate(keyExpression('{siteId}:welcome', 'email-welcome-pack'))).toBe('site-4412:welcome');
    expect(await evaluate(keyExpression('renewal:{contractId}:{version}', 'send'))).toBe('renewal:C-1:3');
  });

  it('refuses to build a key with a missing part instead of shortening it', async () => {
    await expect(evaluate(keyExpression('{customerId}:welcome', 'email-welcome-pack'))).rejects.toThrow(
      "idempotency key of step 'email-welcome-pack': {customerId} is missing",
    );
  });

  it('keeps the type of a value that is exactly one reference, and leaves literals and raw JSONata alone', () => {
    expect(
      renderValue({ a: '{steps.verify-site}', b: 'plain', c: '{% 1 + 1 %}', d: ['{siteId}!'], e: 3, f: '' }),
    ).toEqual({
      a: '{% $states.input.steps.`verify-site` %}',
      b: 'plain',
      c: '{% 1 + 1 %}',
      d: ['{% $string($states.input.input.siteId) & "!" %}'],
      e: 3,
      f: '{% "" %}',
    });
  });
});
