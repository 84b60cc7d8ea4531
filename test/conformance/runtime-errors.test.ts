/**
 * Runtime errors as AWS records them (localstack's AWS-validated snapshots: base/test_wait, scenarios,
 * evaluate_jsonata, assign): the cause starts with `An error occurred while executing the state '<State>'
 * (entered at the event id #<N>). ` and goes on in AWS's words.
 */
import { describe, expect, it } from 'vitest';
import { jsonata, jsonpath } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine, runtimeCause } from './support/recorded-run';

const engine = recordedEngine();

async function failureOf(definition: object, input: unknown) {
  const run = await engine.run(definition, input);
  const { status, ...failure } = run.outcome as { status: string; error?: string; cause?: string };
  expect(status).toBe('FAILED');
  return failure;
}

describe('JSONata: an expression that returns nothing', () => {
  it("fails with States.QueryEvaluationError: 'returned nothing (undefined)' naming the field", async () => {
    const def = jsonata({ State0: { Type: 'Pass', Output: '{% $doesNotExist %}', End: true } });
    expect(await failureOf(def, {})).toEqual({
      error: 'States.QueryEvaluationError',
      cause: runtimeCause(
        'State0',
        2,
        "The JSONata expression '$doesNotExist' specified for the field 'Output' returned nothing (undefined).",
      ),
    });
  });

  it("records an EvaluationFailed event (error, cause, location, state) threaded beside the state's entry", async () => {
    const def = jsonata({ State0: { Type: 'Pass', Output: { FunctionResult: '{% $doesNotExist %}' }, End: true } });
    const run = await engine.run(def, {});
    expect(run.types).toEqual(['ExecutionStarted', 'PassStateEntered', 'EvaluationFailed', 'ExecutionFailed']);
    expect(run.events[2]).toEqual({
      type: 'EvaluationFailed',
      id: 3,
      previousEventId: 0,
      evaluationFailedEventDetails: {
        error: 'States.QueryEvaluationError',
        cause: runtimeCause(
          'State0',
          2,
          "The JSONata expression '$doesNotExist' specified for the field 'Output/FunctionResult' returned nothing (undefined).",
        ),
        location: 'Output/FunctionResult',
        state: 'State0',
      },
    });
    expect(run.events[3]).toMatchObject({ type: 'ExecutionFailed', id: 4, previousEventId: 3 });
  });

  it('an expression that throws: "threw an error during evaluation." with JSONata\'s code', async () => {
    const def = jsonata({ State_0: { Type: 'Pass', Output: { FunctionResult: '{% $randomSeeded(1) %}' }, End: true } });
    expect((await failureOf(def, {})).cause).toBe(
      runtimeCause(
        'State_0',
        2,
        "The JSONata expression '$randomSeeded(1)' specified for the field 'Output/FunctionResult' threw an error during evaluation. T1006: Attempted to invoke a non-function",
      ),
    );
  });

  it('names the entered event of a later state (#4 after a Pass)', async () => {
    const def = jsonata({
      First: { Type: 'Pass', Next: 'State0' },
      State0: { Type: 'Pass', Output: { result: '{% $doesNotExist %}' }, End: true },
    });
    expect((await failureOf(def, {})).cause).toBe(
      runtimeCause(
        'State0',
        4,
        "The JSONata expression '$doesNotExist' specified for the field 'Output/result' returned nothing (undefined).",
      ),
    );
  });
});

describe('the entered event id in a cause is the one the history has', () => {
  it('a Parallel branch failing while the other branches are written before it in the same group commit', async () => {
    const pass = (name: string, extra: object = {}) => ({
      StartAt: name,
      States: { [name]: { Type: 'Pass', End: true, ...extra } },
    });
    const def = jsonpath({
      Fork: {
        Type: 'Parallel',
        Branches: [
          pass('B0'),
          pass('B1'),
          pass('B2'),
          pass('B3', { Parameters: { 'x.$': '$.a' }, OutputPath: '$.missing' }),
          pass('B4'),
          pass('B5'),
        ],
        End: true,
      },
    });
    const run = await engine.run(def, { a: 1 });
    const entered = run.events.find(
      (e) => e.type === 'PassStateEntered' && (e.stateEnteredEventDetails as { name: string }).name === 'B3',
    );
    expect(run.outcome).toEqual({
      status: 'FAILED',
      error: 'States.Runtime',
      cause: runtimeCause('B3', entered!.id, "Invalid path '$.missing' : No results for path: $['missing']"),
    });
  });
});

describe('Wait: SecondsPath and TimestampPath values', () => {
  const waitSecondsPath = jsonpath({ WaitState: { Type: 'Wait', SecondsPath: '$.input.waitSeconds', End: true } });
  it.each([
    [-1, 'The SecondsPath parameter references a negative value: $.input.waitSeconds == -1'],
    [1.5, 'The SecondsPath parameter cannot be parsed as a long value: $.input.waitSeconds == 1.5'],
    [-1.5, 'The SecondsPath parameter cannot be parsed as a long value: $.input.waitSeconds == -1.5'],
  ])('SecondsPath %d fails with States.Runtime in AWS words', async (waitSeconds, message) => {
    expect(await failureOf(waitSecondsPath, { input: { waitSeconds } })).toEqual({
      error: 'States.Runtime',
      cause: runtimeCause('WaitState', 2, message),
    });
  });

  it('a SecondsPath that selects nothing "does not reference an input value"', async () => {
    expect((await failureOf(waitSecondsPath, { input: {} })).cause).toBe(
      runtimeCause('WaitState', 2, 'The SecondsPath parameter does not reference an input value: $.input.waitSeconds'),
    );
  });

  it.each([
    '2016-12-05 21:29:29Z',
    '2016-12-05T21:29:29',
    '2016-13-05T21:29:29Z',
    '2016-12-05T25:29:29Z',
    '05-12-2016T21:29:29Z',
  ])('TimestampPath %s is not an ISO-8601 extended offset date-time', async (stamp) => {
    const def = jsonpath({ WaitUntil: { Type: 'Wait', TimestampPath: '$.TimestampValue', End: true } });
    expect(await failureOf(def, { TimestampValue: stamp })).toEqual({
      error: 'States.Runtime',
      cause: runtimeCause(
        'WaitUntil',
        2,
        `The TimestampPath parameter does not reference a valid ISO-8601 extended offset date-time format string: $.TimestampValue == ${stamp}`,
      ),
    });
  });

  it("a Wait's EvaluationFailed follows its entry", async () => {
    const def = jsonata({ WaitState: { Type: 'Wait', Timestamp: '{% $states.input.TimestampValue %}', End: true } });
    const run = await engine.run(def, { TimestampValue: '2016-12-05T21:29:29' });
    expect(run.events.map((e) => [e.type, e.id, e.previousEventId])).toEqual([
      ['ExecutionStarted', 1, 0],
      ['WaitStateEntered', 2, 0],
      ['EvaluationFailed', 3, 2],
      ['ExecutionFailed', 4, 3],
    ]);
  });

  it('the EvaluationFailed of a JSONata Timestamp that is no timestamp has location "Timestamp"', async () => {
    // recorded on AWS: localstack tests/aws/services/stepfunctions/v2/scenarios/test_base_scenarios.snapshot.json::test_wait_timestamp_jsonata[NO_T] (and NO_Z, INVALID_DATE, INVALID_TIME, INVALID_ISO)
    const def = jsonata({ WaitState: { Type: 'Wait', Timestamp: '{% $states.input.TimestampValue %}', End: true } });
    const run = await engine.run(def, { TimestampValue: '2016-12-05 21:29:29Z' });
    expect(run.events[2]).toEqual({
      type: 'EvaluationFailed',
      id: 3,
      previousEventId: 2,
      evaluationFailedEventDetails: {
        error: 'States.QueryEvaluationError',
        cause: runtimeCause(
          'WaitState',
          2,
          'The Timestamp field cannot be parsed as an ISO-8601 extended offset date-time format string: 2016-12-05 21:29:29Z',
        ),
        location: 'Timestamp',
        state: 'WaitState',
      },
    });
  });

  it('a JSONata Timestamp that is no timestamp "cannot be parsed"', async () => {
    const def = jsonata({ WaitState: { Type: 'Wait', Timestamp: '{% $states.input.TimestampValue %}', End: true } });
    expect(await failureOf(def, { TimestampValue: '2016-12-05 21:29:29Z' })).toEqual({
      error: 'States.QueryEvaluationError',
      cause: runtimeCause(
        'WaitState',
        2,
        'The Timestamp field cannot be parsed as an ISO-8601 extended offset date-time format string: 2016-12-05 21:29:29Z',
      ),
    });
  });
});

describe('Map: items that are not an array', () => {
  const iterator = {
    ProcessorConfig: { Mode: 'INLINE' },
    StartAt: 'Item',
    States: { Item: { Type: 'Pass', End: true } },
  };
  it.each([[1], ['string'], [null], [true], [{ foo: 'bar' }]])(
    'JSONPath ItemsPath to %j: States.Runtime "Reference path "$.items" must point to array." (AWS\'s words for a JSONPath ItemsPath, recorded by TestState test_state_map_context_object)',
    async (items) => {
      const def = jsonpath({
        MapIterateState: { Type: 'Map', ItemsPath: '$.items', ItemProcessor: iterator, End: true },
      });
      expect(await failureOf(def, { items })).toEqual({
        error: 'States.Runtime',
        cause: runtimeCause('MapIterateState', 2, 'Reference path "$.items" must point to array.'),
      });
    },
  );

  it('a JSONata Map without Items over a non-array input: EvaluationFailed, MapStateFailed, ExecutionFailed', async () => {
    const def = jsonata({ MapIterateState: { Type: 'Map', ItemProcessor: iterator, End: true } });
    const run = await engine.run(def, 1);
    expect(run.types).toEqual([
      'ExecutionStarted',
      'MapStateEntered',
      'EvaluationFailed',
      'MapStateFailed',
      'ExecutionFailed',
    ]);
    expect(run.outcome).toEqual({
      status: 'FAILED',
      error: 'States.QueryEvaluationError',
      cause: runtimeCause('MapIterateState', 2, 'Map state input must be an array but was: 1'),
    });
  });

  it.each([
    ['{% 1 %}', '1', 'number', '1'],
    ["{% 'string' %}", "'string'", 'string', '"string"'],
    ['{% null %}', 'null', 'null', 'null'],
    ["{% {'foo': 'bar'} %}", "{'foo': 'bar'}", 'object', '{"foo":"bar"}'],
  ])('JSONata Items %s: "returned an unexpected result type"', async (items, text, kind, shown) => {
    const def = jsonata({ MapIterateState: { Type: 'Map', Items: items, ItemProcessor: iterator, End: true } });
    expect(await failureOf(def, {})).toEqual({
      error: 'States.QueryEvaluationError',
      cause: runtimeCause(
        'MapIterateState',
        2,
        `The JSONata expression '${text}' specified for the field 'Items' returned an unexpected result type. Expected 'array', but was '${kind}' for value: ${shown}`,
      ),
    });
  });

  it.each([
    [
      'NoNumber',
      'The MaxConcurrencyPath field refers to value "NoNumber" which is not a valid integer: $.MaxConcurrencyValue',
    ],
    [{}, 'The MaxConcurrencyPath field refers to value "{}" which is not a valid integer: $.MaxConcurrencyValue'],
  ])('MaxConcurrencyPath to %j fails before the Map starts', async (value, message) => {
    const def = jsonpath({
      MapState: {
        Type: 'Map',
        ItemsPath: '$.Values',
        MaxConcurrencyPath: '$.MaxConcurrencyValue',
        ItemProcessor: iterator,
        End: true,
      },
    });
    const run = await engine.run(def, { MaxConcurrencyValue: value, Values: ['HelloWorld'] });
    expect(run.types).toEqual(['ExecutionStarted', 'MapStateEntered', 'ExecutionFailed']);
    expect(run.outcome).toEqual({
      status: 'FAILED',
      error: 'States.Runtime',
      cause: runtimeCause('MapState', 2, message),
    });
  });

  it('MaxConcurrencyPath 1 runs the Map', async () => {
    const def = jsonpath({
      MapState: {
        Type: 'Map',
        ItemsPath: '$.Values',
        MaxConcurrencyPath: '$.MaxConcurrencyValue',
        ItemProcessor: iterator,
        End: true,
      },
    });
    expect((await engine.run(def, { MaxConcurrencyValue: 1, Values: ['HelloWorld'] })).outcome).toEqual({
      status: 'SUCCEEDED',
      output: ['HelloWorld'],
    });
  });

  it.each([
    [
      'ToleratedFailureCountPath',
      '$.ToleratedFailureCount',
      { ToleratedFailureCount: -1 },
      'ToleratedFailureCount cannot be negative.',
    ],
    [
      'ToleratedFailurePercentagePath',
      '$.ToleratedFailurePercentage',
      { ToleratedFailurePercentage: 100.1 },
      'ToleratedFailurePercentage must be between 0 and 100.',
    ],
    [
      'ToleratedFailureCountPath',
      '$.ToleratedFailureCount',
      { ToleratedFailureCount: 'NoNumber' },
      'The ToleratedFailureCountPath field refers to value "NoNumber" which is not a valid integer: $.ToleratedFailureCount',
    ],
    [
      'ToleratedFailurePercentagePath',
      '$.ToleratedFailurePercentage',
      { ToleratedFailurePercentage: {} },
      'The ToleratedFailurePercentagePath field refers to value "{}" which is not a valid float: $.ToleratedFailurePercentage',
    ],
  ])('%s out of range fails the Map', async (field, path, input, message) => {
    const def = jsonpath({
      MapState: { Type: 'Map', ItemsPath: '$.Items', [field]: path, ItemProcessor: iterator, End: true },
    });
    const run = await engine.run(def, { Items: [0], ...input });
    expect(run.outcome).toEqual({
      status: 'FAILED',
      error: 'States.Runtime',
      cause: runtimeCause('MapState', 2, message),
    });
  });

  it('a tolerated-failure value out of range fails after MapStateStarted', async () => {
    const def = jsonpath({
      MapState: {
        Type: 'Map',
        ItemsPath: '$.Items',
        ToleratedFailureCountPath: '$.n',
        ItemProcessor: iterator,
        End: true,
      },
    });
    expect((await engine.run(def, { Items: [0], n: -1 })).types).toEqual([
      'ExecutionStarted',
      'MapStateEntered',
      'MapStateStarted',
      'ExecutionFailed',
    ]);
  });
});

describe('JSONPath: paths that select nothing', () => {
  it.each([
    ['InputPath', '$.NoSuchInputPath', "Invalid path '$.NoSuchInputPath' : No results for path: $['NoSuchInputPath']"],
    [
      'OutputPath',
      '$.NoSuchOutputPath',
      "Invalid path '$.NoSuchOutputPath' : No results for path: $['NoSuchOutputPath']",
    ],
    ['OutputPath', '$.no.such.result.path', "Invalid path '$.no.such.result.path' : Missing property in path $['no']"],
  ])('%s %s: "Invalid path"', async (field, path, message) => {
    const def = jsonpath({ pass: { Type: 'Pass', [field]: path, End: true } });
    expect(await failureOf(def, { a: 1 })).toEqual({
      error: 'States.Runtime',
      cause: runtimeCause('pass', 2, message),
    });
  });

  it.each([['$.no_such_jsonpath'], ['$$.Execution.Input.no_such_jsonpath']])(
    "a Parameters path %s: 'could not be found in the input' with the input's text",
    async (path) => {
      const def = jsonpath({ pass: { Type: 'Pass', Parameters: { 'value.$': path }, End: true } });
      expect((await failureOf(def, { a: 1 })).cause).toBe(
        runtimeCause(
          'pass',
          2,
          `The JSONPath '${path}' specified for the field 'value.$' could not be found in the input '{"a":1}'`,
        ),
      );
    },
  );

  it('an ErrorPath that selects nothing names the Fail state', async () => {
    const def = jsonpath({
      start: { Type: 'Pass', Next: 'fail' },
      fail: { Type: 'Fail', ErrorPath: '$.ErrorX', Cause: 'c' },
    });
    expect((await failureOf(def, { Error: 'E' })).cause).toBe(
      runtimeCause(
        'fail',
        4,
        `The JSONPath '$.ErrorX' specified for the field 'ErrorPath' could not be found in the input '{"Error":"E"}'`,
      ),
    );
  });
});
