/**
 * JSONata and JSONPath edge cases as AWS evaluates them (localstack's AWS-validated snapshots:
 * intrinsic_functions/test_array_jsonata, scenarios/test_base_scenarios, base/test_base).
 */
import { describe, expect, it } from 'vitest';
import { jsonata, jsonpath } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine, runtimeCause } from './support/recorded-run';

const engine = recordedEngine();

describe('JSONata', () => {
  it.each([
    [{ fst: 1, snd: 9, trd: 9 }, 1],
    [{ fst: 0, snd: 10, trd: 3 }, [0, 3, 6, 9]],
  ])('a one-item sequence is unwrapped: $range(%j) gives %j', async (args, output) => {
    const def = jsonata({
      State_0: {
        Type: 'Pass',
        Output:
          '{% $range($states.input.FunctionInput.fst, $states.input.FunctionInput.snd, $states.input.FunctionInput.trd) %}',
        End: true,
      },
    });
    expect((await engine.run(def, { FunctionInput: args })).outcome).toEqual({ status: 'SUCCEEDED', output });
  });

  it('a function where data is expected is States.QueryEvaluationError: "returned an unsupported result type"', async () => {
    const def = jsonata({
      MapIterateState: {
        Type: 'Map',
        Items: '{% $fn := function($x){$x} %}',
        ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } },
        End: true,
      },
    });
    expect((await engine.run(def, {})).outcome).toEqual({
      status: 'FAILED',
      error: 'States.QueryEvaluationError',
      cause: runtimeCause(
        'MapIterateState',
        2,
        "The JSONata expression '$fn := function($x){$x}' specified for the field 'Items' returned an unsupported result type.",
      ),
    });
  });
});

describe('JSONPath', () => {
  it('escape sequences in a quoted name resolve: $[\'Test\\""Name"\'] reads the key Test\\""Name"', async () => {
    const def = jsonpath({
      JsonPathEscapeTest: { Type: 'Pass', Parameters: { 'value.$': '$[\'Test\\""Name"\']' }, End: true },
    });
    expect((await engine.run(def, { 'Test\\""Name"': 'Value"\\' })).outcome).toEqual({
      status: 'SUCCEEDED',
      output: { value: 'Value"\\' },
    });
  });

  it.each([
    '$[*]',
    '$.items[*]',
    '$.items[1:]',
    '$.items[:1]',
    '$.item.items[*]',
    '$.items[*].itemValue',
    '$.item.items[1:5].itemValue',
  ])('a wildcard or slice %s over missing input selects an empty list', async (path) => {
    const def = jsonpath({ EntryState: { Type: 'Pass', Parameters: { 'item.$': path }, End: true } });
    expect((await engine.run(def, {})).outcome).toEqual({ status: 'SUCCEEDED', output: { item: [] } });
  });

  it('an index selects that item ($.items[10])', async () => {
    const def = jsonpath({ EntryState: { Type: 'Pass', Parameters: { 'item.$': '$.items[10]' }, End: true } });
    const items = Array.from({ length: 11 }, (_, i) => ({ item_key: i }));
    expect((await engine.run(def, { items })).outcome).toEqual({
      status: 'SUCCEEDED',
      output: { item: { item_key: 10 } },
    });
  });
});
