/**
 * History events as AWS records them: how Map iterations and Parallel branches chain their
 * `previousEventId`s, which events a retried Map/Parallel writes, and the order of iterations under
 * MaxConcurrency 1. The expected chains are the executions recorded on AWS in localstack's
 * tests/aws/services/stepfunctions/v2/scenarios/test_base_scenarios snapshots (same definitions, same
 * input `{}`), written here as `id<previousEventId Type`.
 */
import { describe, expect, it } from 'vitest';
import { jsonpath, neverReturns } from '../../packages/engine/test/support/engine-harness';
import { type RecordedRun, recordedEngine } from './support/recorded-run';

const order: string[] = [];
const engine = recordedEngine({
  raise: () => {
    throw Object.assign(new Error('Some exception was raised.'), { name: 'Exception' });
  },
  hang: (_payload: unknown, { releaseClock }) => neverReturns(releaseClock),
  item: async (payload: { i: number }) => {
    order.push(`start ${payload.i}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    order.push(`end ${payload.i}`);
    return payload.i;
  },
});

/** The run's history as `id<previousEventId Type` lines. */
const chain = (run: RecordedRun): string[] => run.events.map((e) => `${e.id}<${e.previousEventId} ${e.type}`);

const pass = (rest: object = {}) => ({ Type: 'Pass', ...rest });
const failItem = { Type: 'Fail', Error: 'HandleItemFailError', Cause: 'HandleItemFailCause' };

/** The end states a Map/Parallel's Next and Catch name (each a Pass that ends the run). */
const statesAfter = (fields: { Next?: string; Catch?: { Next: string }[] }) =>
  Object.fromEntries(
    [fields.Next, ...(fields.Catch ?? []).map((c) => c.Next)]
      .filter((n) => n !== undefined)
      .map((n) => [n, pass({ End: true })]),
  );

/** test_base_scenarios' map_state_* templates: StartState puts `items` into `$.arr`, then MapState over it. */
function mapMachine(
  items: unknown[],
  itemState: object,
  mapFields: { Next?: string; Catch?: { ErrorEquals: string[]; Next: string }[]; [field: string]: unknown },
) {
  return jsonpath({
    StartState: pass({ Result: items, ResultPath: '$.arr', Next: 'MapState' }),
    MapState: {
      Type: 'Map',
      ItemsPath: '$.arr',
      MaxConcurrency: 1,
      ItemProcessor: { StartAt: 'HandleItem', States: { HandleItem: itemState } },
      ...mapFields,
    },
    ...statesAfter(mapFields),
  });
}

describe('Map iterations chain as AWS records them', () => {
  it('each MapIterationStarted after the first follows the event before the previous MapIterationSucceeded; MapStateSucceeded follows the last MapIterationSucceeded and MapStateExited shares its previousEventId (AWS: test_map_state_no_processor_config)', async () => {
    const run = await engine.run(mapMachine([1, 2, 3], pass({ End: true }), { End: true }));
    expect(chain(run)).toEqual([
      '1<0 ExecutionStarted',
      '2<0 PassStateEntered',
      '3<2 PassStateExited',
      '4<3 MapStateEntered',
      '5<4 MapStateStarted',
      '6<5 MapIterationStarted',
      '7<6 PassStateEntered',
      '8<7 PassStateExited',
      '9<8 MapIterationSucceeded',
      '10<8 MapIterationStarted',
      '11<10 PassStateEntered',
      '12<11 PassStateExited',
      '13<12 MapIterationSucceeded',
      '14<12 MapIterationStarted',
      '15<14 PassStateEntered',
      '16<15 PassStateExited',
      '17<16 MapIterationSucceeded',
      '18<17 MapStateSucceeded',
      '19<17 MapStateExited',
      '20<19 ExecutionSucceeded',
    ]);
    expect(run.events[4]).toMatchObject({ mapStateStartedEventDetails: { length: 3 } });
  });

  it("a caught Map failure: MapStateFailed follows the failed iteration's last state event, not its MapIterationFailed (AWS: test_map_state_catch)", async () => {
    const run = await engine.run(
      mapMachine([1], failItem, {
        ResultPath: null,
        Catch: [{ ErrorEquals: ['HandleItemFailError'], Next: 'FinalCaught' }],
        Next: 'Final',
      }),
    );
    expect(chain(run)).toEqual([
      '1<0 ExecutionStarted',
      '2<0 PassStateEntered',
      '3<2 PassStateExited',
      '4<3 MapStateEntered',
      '5<4 MapStateStarted',
      '6<5 MapIterationStarted',
      '7<6 FailStateEntered',
      '8<7 MapIterationFailed',
      '9<7 MapStateFailed',
      '10<9 MapStateExited',
      '11<10 PassStateEntered',
      '12<11 PassStateExited',
      '13<12 ExecutionSucceeded',
    ]);
  });

  it("a retried Map writes no MapStateFailed before its retry, and each retry's MapStateStarted carries the length (AWS: test_map_state_retry)", async () => {
    const run = await engine.run(
      mapMachine([1], failItem, {
        ResultPath: null,
        Retry: [{ ErrorEquals: ['HandleItemFailError'], MaxAttempts: 2 }],
        Next: 'Final',
      }),
    );
    expect(chain(run)).toEqual([
      '1<0 ExecutionStarted',
      '2<0 PassStateEntered',
      '3<2 PassStateExited',
      '4<3 MapStateEntered',
      '5<4 MapStateStarted',
      '6<5 MapIterationStarted',
      '7<6 FailStateEntered',
      '8<7 MapIterationFailed',
      '9<7 MapStateStarted',
      '10<9 MapIterationStarted',
      '11<10 FailStateEntered',
      '12<11 MapIterationFailed',
      '13<11 MapStateStarted',
      '14<13 MapIterationStarted',
      '15<14 FailStateEntered',
      '16<15 MapIterationFailed',
      '17<15 MapStateFailed',
      '18<17 ExecutionFailed',
    ]);
    for (const i of [4, 8, 12])
      expect(run.events[i]).toMatchObject({ type: 'MapStateStarted', mapStateStartedEventDetails: { length: 1 } });
    expect(run.outcome).toEqual({ status: 'FAILED', error: 'HandleItemFailError', cause: 'HandleItemFailCause' });
  });

  it('with MaxConcurrency 1, iterations run strictly one after another, Task and all (AWS: every MaxConcurrency 1 recording)', async () => {
    order.length = 0;
    const run = await engine.run(
      jsonpath({
        MapState: {
          Type: 'Map',
          MaxConcurrency: 1,
          ItemSelector: { 'i.$': '$$.Map.Item.Value' },
          ItemProcessor: {
            StartAt: 'Work',
            States: {
              Work: {
                Type: 'Task',
                Resource: 'arn:aws:states:::lambda:invoke',
                Parameters: { FunctionName: 'item', 'Payload.$': '$' },
                OutputPath: '$.Payload',
                Next: 'Pause',
              },
              Pause: { Type: 'Wait', Seconds: 5, End: true },
            },
          },
          End: true,
        },
      }),
      [0, 1, 2],
    );
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: [0, 1, 2] });
    expect(order).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
    // In the history too: an iteration starts only after the previous one's MapIterationSucceeded.
    const iterationEvents = run.events.filter((e) => e.type.startsWith('MapIteration')).map((e) => e.type);
    expect(iterationEvents).toEqual([
      'MapIterationStarted',
      'MapIterationSucceeded',
      'MapIterationStarted',
      'MapIterationSucceeded',
      'MapIterationStarted',
      'MapIterationSucceeded',
    ]);
  });
});

const parallelFail = (fields: { Next: string; Catch?: { ErrorEquals: string[]; Next: string }[]; Retry?: object[] }) =>
  jsonpath({
    ParallelState: {
      Type: 'Parallel',
      Branches: [
        { StartAt: 'Branch1', States: { Branch1: { Type: 'Fail', Error: 'FailureType', Cause: 'Cause description' } } },
      ],
      ...fields,
    },
    ...statesAfter(fields),
  });

describe('Parallel branches chain as AWS records them', () => {
  it("ParallelStateFailed follows the failed branch's last event (AWS: test_parallel_state_catch)", async () => {
    const run = await engine.run(
      parallelFail({ Catch: [{ ErrorEquals: ['FailureType'], Next: 'FinalCaught' }], Next: 'Final' }),
    );
    expect(chain(run)).toEqual([
      '1<0 ExecutionStarted',
      '2<0 ParallelStateEntered',
      '3<2 ParallelStateStarted',
      '4<3 FailStateEntered',
      '5<4 ParallelStateFailed',
      '6<5 ParallelStateExited',
      '7<6 PassStateEntered',
      '8<7 PassStateExited',
      '9<8 ExecutionSucceeded',
    ]);
  });

  it('a retried Parallel writes no ParallelStateFailed before its retry (AWS: test_parallel_state_retry)', async () => {
    const run = await engine.run(
      parallelFail({ Retry: [{ ErrorEquals: ['FailureType'], MaxAttempts: 2 }], Next: 'Final' }),
    );
    expect(chain(run)).toEqual([
      '1<0 ExecutionStarted',
      '2<0 ParallelStateEntered',
      '3<2 ParallelStateStarted',
      '4<3 FailStateEntered',
      '5<4 ParallelStateStarted',
      '6<5 FailStateEntered',
      '7<6 ParallelStateStarted',
      '8<7 FailStateEntered',
      '9<8 ParallelStateFailed',
      '10<9 ExecutionFailed',
    ]);
  });

  it("a branch's Task that fails the branch is recorded as aborted too, beside the chain: ParallelStateFailed follows the TaskFailed (AWS: callback test_sqs_failure_in_wait_for_task_tok_no_error_field[SQS_PARALLEL_WAIT_FOR_TASK_TOKEN], states_variables test_parallel_catch_error)", async () => {
    const lambdaTask = {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: 'raise', 'Payload.$': '$' },
      End: true,
    };
    const run = await engine.run(
      jsonpath({
        ParallelState: {
          Type: 'Parallel',
          Branches: [{ StartAt: 'Invoke', States: { Invoke: lambdaTask } }],
          Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Caught' }],
          End: true,
        },
        Caught: pass({ End: true }),
      }),
    );
    expect(chain(run)).toEqual([
      '1<0 ExecutionStarted',
      '2<0 ParallelStateEntered',
      '3<2 ParallelStateStarted',
      '4<3 TaskStateEntered',
      '5<4 TaskScheduled',
      '6<5 TaskStarted',
      '7<6 TaskFailed',
      '8<7 TaskStateAborted',
      '9<7 ParallelStateFailed',
      '10<9 ParallelStateExited',
      '11<10 PassStateEntered',
      '12<11 PassStateExited',
      '13<12 ExecutionSucceeded',
    ]);
  });

  it("a Map iteration that fails aborts the running iterations' Tasks: MapIterationFailed then its TaskStateAborted, then MapIterationAborted and TaskStateAborted per running iteration (AWS: test_task_service_lambda test_service_lambda_map_timeout)", async () => {
    const run = await engine.run(
      jsonpath({
        MapState: {
          Type: 'Map',
          ItemProcessor: {
            StartAt: 'Invoke',
            States: {
              Invoke: {
                Type: 'Task',
                Resource: 'arn:aws:states:::lambda:invoke',
                Parameters: { 'FunctionName.$': '$' },
                End: true,
              },
            },
          },
          End: true,
        },
      }),
      ['raise', 'hang'],
    );
    const types = run.types.slice(run.types.indexOf('MapIterationFailed'));
    expect(types).toEqual([
      'MapIterationFailed',
      'TaskStateAborted',
      'MapIterationAborted',
      'TaskStateAborted',
      'MapStateFailed',
      'ExecutionFailed',
    ]);
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'Exception' });
  });

  it('ParallelStateExited follows the last branch event, as the event before it does (AWS: test_parallel_state_order)', async () => {
    const branch = (i: number) => ({
      StartAt: `Branch${i}`,
      States: { [`Branch${i}`]: pass({ Result: { branch: i }, End: true }) },
    });
    const run = await engine.run(
      jsonpath({ StartState: { Type: 'Parallel', Branches: [0, 1, 2, 3].map(branch), End: true } }),
    );
    // AWS's recording: branch events are ids 4..11 (their order between branches varies), id 12 the
    // ParallelStateSucceeded, then ParallelStateExited 13<11 and ExecutionSucceeded 14<13.
    const lines = chain(run);
    expect(lines.slice(0, 3)).toEqual(['1<0 ExecutionStarted', '2<0 ParallelStateEntered', '3<2 ParallelStateStarted']);
    expect(run.events.slice(3, 11).every((e) => e.type === 'PassStateEntered' || e.type === 'PassStateExited')).toBe(
      true,
    );
    expect(lines.slice(11)).toEqual([
      '12<11 ParallelStateSucceeded',
      '13<11 ParallelStateExited',
      '14<13 ExecutionSucceeded',
    ]);
    expect(run.outcome).toEqual({
      status: 'SUCCEEDED',
      output: [{ branch: 0 }, { branch: 1 }, { branch: 2 }, { branch: 3 }],
    });
  });
});

describe('StopExecution as AWS records it', () => {
  it('ExecutionAborted has previousEventId 0 and empty details when no error or cause is given (AWS: test_sfn_api test_stop_execution)', async () => {
    const h = engine.harness;
    const arn = await h.machine(
      jsonpath({ State_1: { Type: 'Wait', Seconds: 10, Next: 'State_2' }, State_2: { Type: 'Pass', End: true } }),
    );
    const exec = await h.run(arn, {});
    await h.call('StopExecution', { executionArn: exec });
    const events = await h.history(exec);
    expect(events.map((e) => `${e.id}<${e.previousEventId} ${e.type}`)).toEqual([
      '1<0 ExecutionStarted',
      '2<0 WaitStateEntered',
      '3<0 ExecutionAborted',
    ]);
    expect(events[2].executionAbortedEventDetails).toEqual({});
  });
});
