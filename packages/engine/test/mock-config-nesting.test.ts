/**
 * A mock config whose `Return` nests arrays and objects deeper than the engine takes anywhere else (1,000
 * levels, as an execution input) is refused when it loads, naming the entry. It was accepted, and the
 * first StartExecution on its test case answered 500 `Maximum call stack size exceeded` (the hostile-workflow
 * tier, issue 29: a Return nested 9,260 deep).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_JSON_NESTING_DEPTH } from '../../workflow/src/config/constants';
import { MockConfig, MockConfigError } from '../src';
import { EngineHarness, jsonata } from './support/engine-harness';

const nested = (depth: number) => '['.repeat(depth) + '1' + ']'.repeat(depth);
const config = (returned: string) =>
  `{"StateMachines":{"mocked":{"TestCases":{"Case":{"Call":"R"}}}},"MockedResponses":{"R":{"0":{"Return":${returned}}}}}`;
const machine = jsonata({
  Call: { Type: 'Task', Resource: 'arn:aws:states:::lambda:invoke', Arguments: { FunctionName: 'f' }, End: true },
});

describe('mock config nesting depth', () => {
  const harnesses: EngineHarness[] = [];
  afterAll(() => Promise.all(harnesses.map((h) => h.close())));

  it.each([MAX_JSON_NESTING_DEPTH + 1, 9_260, 100_000])(
    'a Return nested %i deep is refused, naming the entry',
    (depth) => {
      let refused: unknown;
      try {
        MockConfig.parse(config(nested(depth)), 'deep.json');
      } catch (err) {
        refused = err;
      }
      expect(refused).toBeInstanceOf(MockConfigError);
      expect((refused as Error).message).toContain('MockedResponses.R.0.Return');
      expect((refused as Error).message).toContain(`nested deeper than ${MAX_JSON_NESTING_DEPTH} levels`);
    },
  );

  it('a Return nested as deep as an execution input may be is served', async () => {
    const returned = nested(MAX_JSON_NESTING_DEPTH);
    const h = await new EngineHarness({}, { mockConfig: MockConfig.parse(config(returned)) }).start();
    harnesses.push(h);
    const arn = await h.machine(machine, 'mocked');
    const run = await h.run(`${arn}#Case`);
    expect(await h.describe(run)).toMatchObject({ status: 'SUCCEEDED', output: returned });
  });
});
