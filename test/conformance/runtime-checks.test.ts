/**
 * Runtime checks AWS makes, and which failures no Retry or Catch takes. Expected histories are the
 * executions recorded on AWS in localstack's tests/aws/services/stepfunctions/v2/scenarios/test_base_scenarios
 * snapshots (test_catch_states_runtime, test_max_concurrency_path*), and the documented rule (AWS Step
 * Functions developer guide, "Handling errors": a States.Runtime error is not retriable and always fails
 * the execution; States.ALL catches neither States.Runtime nor the terminal States.DataLimitExceeded).
 */
import { describe, expect, it } from 'vitest';
import { jsonpath } from '../../packages/engine/test/support/engine-harness';
import { type RecordedRun, recordedEngine, runtimeCause } from './support/recorded-run';

const engine = recordedEngine({
  identity: (payload) => payload,
  big: () => ({ blob: 'x'.repeat(300 * 1024) }),
  half: () => ({ blob: 'x'.repeat(150 * 1024) }),
});

const chain = (run: RecordedRun): string[] => run.events.map((e) => `${e.id}<${e.previousEventId} ${e.type}`);
const FUNCTION = (name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`;

/** test_base_scenarios' catch_states_runtime template: a Lambda returning `{}`, then an OutputPath to nowhere. */
const raiseRuntime = (handling: { Catch?: object[]; Retry?: object[] }) =>
  jsonpath({
    RaiseRuntime: {
      Type: 'Task',
      Resource: FUNCTION('identity'),
      OutputPath: '$.no.such.result.path',
      ...handling,
      Next: 'Final',
    },
    ...(handling.Catch ? { CaughtRuntime: { Type: 'Pass', End: true } } : {}),
    Final: { Type: 'Pass', End: true },
  });

const RECORDED_RUNTIME_FAILURE = [
  '1<0 ExecutionStarted',
  '2<0 TaskStateEntered',
  '3<2 LambdaFunctionScheduled',
  '4<3 LambdaFunctionStarted',
  '5<4 LambdaFunctionSucceeded',
  '6<5 ExecutionFailed',
];

describe('an OutputPath that selects nothing after a Task fails the run with States.Runtime, which no Catch or Retry takes', () => {
  it.each([
    [
      'a Catch naming States.Runtime (AWS: test_catch_states_runtime)',
      { Catch: [{ ErrorEquals: ['States.Runtime'], Next: 'CaughtRuntime' }] },
    ],
    ['a Catch on States.ALL', { Catch: [{ ErrorEquals: ['States.ALL'], Next: 'CaughtRuntime' }] }],
    [
      'a Retry naming States.Runtime',
      { Retry: [{ ErrorEquals: ['States.Runtime'], IntervalSeconds: 1, MaxAttempts: 2 }] },
    ],
    [
      'a Retry on States.ALL and a Catch on States.ALL',
      { Retry: [{ ErrorEquals: ['States.ALL'] }], Catch: [{ ErrorEquals: ['States.ALL'], Next: 'CaughtRuntime' }] },
    ],
  ])('with %s', async (_what, handling) => {
    const run = await engine.run(raiseRuntime(handling));
    expect(chain(run)).toEqual(RECORDED_RUNTIME_FAILURE);
    expect(run.outcome).toEqual({
      status: 'FAILED',
      error: 'States.Runtime',
      cause: runtimeCause('RaiseRuntime', 2, "Invalid path '$.no.such.result.path' : Missing property in path $['no']"),
    });
  });
});

describe('a Task result over 256 KiB fails the Task with States.DataLimitExceeded (AWS: error_handling/test_states_errors *_data_limit_exceeded_on_large_utf8_response)', () => {
  const tooLarge = (what: string) =>
    `The state/task '${what}' returned a result with a size exceeding the maximum number of bytes service limit.`;
  const invoke = (resource: string, catchers: { ErrorEquals: string[]; Next: string }[]) =>
    jsonpath({
      InvokeLambda: {
        Type: 'Task',
        Resource: resource,
        Parameters: { FunctionName: 'big', Payload: null },
        Catch: catchers,
        Next: 'ProcessResult',
      },
      ProcessResult: { Type: 'Pass', End: true },
      ...Object.fromEntries(catchers.map((c) => [c.Next, { Type: 'Pass', End: true }])),
    });

  it('lambda:invoke: TaskFailed names the service, and a Catch on States.DataLimitExceeded takes it', async () => {
    const run = await engine.run(
      invoke('arn:aws:states:::lambda:invoke', [
        { ErrorEquals: ['States.DataLimitExceeded'], Next: 'HandleDataLimitExceeded' },
        { ErrorEquals: ['States.ALL'], Next: 'HandleGeneralError' },
      ]),
    );
    expect(chain(run)).toEqual([
      '1<0 ExecutionStarted',
      '2<0 TaskStateEntered',
      '3<2 TaskScheduled',
      '4<3 TaskStarted',
      '5<4 TaskFailed',
      '6<5 TaskStateExited',
      '7<6 PassStateEntered',
      '8<7 PassStateExited',
      '9<8 ExecutionSucceeded',
    ]);
    expect(run.events[4].taskFailedEventDetails).toEqual({
      resourceType: 'lambda',
      resource: 'invoke',
      error: 'States.DataLimitExceeded',
      cause: tooLarge('lambda'),
    });
    expect(run.events[6].stateEnteredEventDetails).toMatchObject({ name: 'HandleDataLimitExceeded' });
    expect(run.outcome).toEqual({
      status: 'SUCCEEDED',
      output: { Error: 'States.DataLimitExceeded', Cause: tooLarge('lambda') },
    });
  });

  it('a function ARN: LambdaFunctionFailed names the function, and States.ALL takes it', async () => {
    const run = await engine.run(
      invoke(FUNCTION('big'), [{ ErrorEquals: ['States.ALL'], Next: 'HandleGeneralError' }]),
    );
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'LambdaFunctionScheduled',
      'LambdaFunctionStarted',
      'LambdaFunctionFailed',
      'TaskStateExited',
      'PassStateEntered',
      'PassStateExited',
      'ExecutionSucceeded',
    ]);
    expect(run.events[4].lambdaFunctionFailedEventDetails).toEqual({
      error: 'States.DataLimitExceeded',
      cause: tooLarge(FUNCTION('big')),
    });
    expect(run.events[6].stateEnteredEventDetails).toMatchObject({ name: 'HandleGeneralError' });
  });
});

describe('States.ALL does not catch States.DataLimitExceeded of a state output (documented: a terminal error)', () => {
  it('a Task output over 256 KiB (its input with the result) fails the run past a States.ALL catcher', async () => {
    const run = await engine.run(
      jsonpath({
        Half: {
          Type: 'Task',
          Resource: FUNCTION('half'),
          ResultPath: '$.result',
          Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Caught' }],
          End: true,
        },
        Caught: { Type: 'Pass', End: true },
      }),
      { blob: 'y'.repeat(150 * 1024) },
    );
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'States.DataLimitExceeded' });
    expect(run.types).not.toContain('PassStateEntered');
  });
});

/** test_base_scenarios' max_concurrency_path template, with input `{ MaxConcurrencyValue, Values: ['HelloWorld'] }`. */
const maxConcurrencyPath = jsonpath({
  MapState: {
    Type: 'Map',
    ItemsPath: '$.Values',
    MaxConcurrencyPath: '$.MaxConcurrencyValue',
    ItemProcessor: {
      ProcessorConfig: { Mode: 'INLINE' },
      StartAt: 'HandleItem',
      States: { HandleItem: { Type: 'Pass', End: true } },
    },
    Next: 'Final',
  },
  Final: { Type: 'Pass', End: true },
});

describe('MaxConcurrencyPath must lead to a non-negative integer', () => {
  it.each([0, 1])('%j runs the Map (AWS: test_max_concurrency_path[0], [1])', async (value) => {
    const run = await engine.run(maxConcurrencyPath, { MaxConcurrencyValue: value, Values: ['HelloWorld'] });
    expect(chain(run)).toEqual([
      '1<0 ExecutionStarted',
      '2<0 MapStateEntered',
      '3<2 MapStateStarted',
      '4<3 MapIterationStarted',
      '5<4 PassStateEntered',
      '6<5 PassStateExited',
      '7<6 MapIterationSucceeded',
      '8<7 MapStateSucceeded',
      '9<7 MapStateExited',
      '10<9 PassStateEntered',
      '11<10 PassStateExited',
      '12<11 ExecutionSucceeded',
    ]);
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: ['HelloWorld'] });
  });

  it.each([
    [{}, '{}'],
    ['NoNumber', 'NoNumber'],
  ])('%j fails right after MapStateEntered (AWS: test_max_concurrency_path)', async (value, shown) => {
    const run = await engine.run(maxConcurrencyPath, { MaxConcurrencyValue: value, Values: ['HelloWorld'] });
    expect(chain(run)).toEqual(['1<0 ExecutionStarted', '2<0 MapStateEntered', '3<2 ExecutionFailed']);
    expect(run.outcome).toEqual({
      status: 'FAILED',
      error: 'States.Runtime',
      cause: runtimeCause(
        'MapState',
        2,
        `The MaxConcurrencyPath field refers to value "${shown}" which is not a valid integer: $.MaxConcurrencyValue`,
      ),
    });
  });

  it('a string holding an integer is taken as that integer (AWS: test_reference_in_map_state[MAP_STATE_REFERENCE_IN_MAX_CONCURRENCY_PATH])', async () => {
    const run = await engine.run(
      jsonpath({
        Start: { Type: 'Pass', Assign: { maxConcurrency: '1' }, Result: { Values: [1, 2, 3] }, Next: 'MapState' },
        MapState: {
          Type: 'Map',
          ItemsPath: '$.Values',
          MaxConcurrencyPath: '$maxConcurrency',
          ItemProcessor: {
            ProcessorConfig: { Mode: 'INLINE' },
            StartAt: 'HandleItem',
            States: { HandleItem: { Type: 'Pass', End: true } },
          },
          End: true,
        },
      }),
    );
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: [1, 2, 3] });
    // MaxConcurrency 1: each iteration after the previous one's MapIterationSucceeded.
    expect(run.types.filter((t) => t.startsWith('MapIteration'))).toEqual([
      'MapIterationStarted',
      'MapIterationSucceeded',
      'MapIterationStarted',
      'MapIterationSucceeded',
      'MapIterationStarted',
      'MapIterationSucceeded',
    ]);
  });

  // AWS leaves such a run RUNNING with ExecutionStarted alone (test_max_concurrency_path_negative): the
  // engine fails it instead, so a local run never hangs on it.
  it.each([-1, '-1', 1.5])('%j fails the run with States.Runtime', async (value) => {
    const run = await engine.run(maxConcurrencyPath, { MaxConcurrencyValue: value, Values: ['HelloWorld'] });
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    expect(run.types).toEqual(['ExecutionStarted', 'MapStateEntered', 'ExecutionFailed']);
  });
});

describe('a Wait more than about 68 years ahead fails (AWS: test_wait test_timestamp_too_far_in_future_boundary[24856])', () => {
  it('fails with States.Runtime right after WaitStateEntered', async () => {
    const start = new Date(engine.harness.clock.now() + 24_856 * 86_400_000).toISOString();
    const run = await engine.run(jsonpath({ State_1: { Type: 'Wait', TimestampPath: '$.start_at', End: true } }), {
      start_at: start,
    });
    expect(chain(run)).toEqual(['1<0 ExecutionStarted', '2<0 WaitStateEntered', '3<2 ExecutionFailed']);
    expect(run.outcome).toEqual({
      status: 'FAILED',
      error: 'States.Runtime',
      cause: runtimeCause('State_1', 2, 'Wait state delay is too long.'),
    });
  });
});
