import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineHarness, invokeTask, jsonata, namedError } from './support/engine-harness';

describe('states (JSONata)', () => {
  let h: EngineHarness;
  beforeEach(async () => {
    h = await new EngineHarness({
      double: (p) => ({ n: p.n * 2 }),
      boom: () => {
        throw namedError('BoomError', 'it broke');
      },
      failOdd: (p) => {
        if (p.n % 2 === 1) throw namedError('OddError');
        return p.n;
      },
    }).start();
  });
  afterEach(() => h.close());

  it('runs Pass, Choice and Succeed, with Choice picking by Condition', async () => {
    const m = await h.machine(
      jsonata({
        Start: { Type: 'Pass', Output: { n: '{% $states.input.n %}' }, Next: 'Route' },
        Route: {
          Type: 'Choice',
          Choices: [{ Condition: '{% $states.input.n > 10 %}', Next: 'Big' }],
          Default: 'Small',
        },
        Big: { Type: 'Pass', Output: { size: 'big' }, End: true },
        Small: { Type: 'Succeed', Output: { size: 'small' } },
      }),
    );
    expect(await h.output(await h.run(m, { n: 50 }))).toEqual({ size: 'big' });
    const small = await h.run(m, { n: 1 });
    expect(await h.output(small)).toEqual({ size: 'small' });
    expect(await h.eventTypes(small)).toEqual([
      'ExecutionStarted',
      'PassStateEntered',
      'PassStateExited',
      'ChoiceStateEntered',
      'ChoiceStateExited',
      'SucceedStateEntered',
      'SucceedStateExited',
      'ExecutionSucceeded',
    ]);
  });

  it('fails with States.NoChoiceMatched when no rule matches and there is no Default', async () => {
    const m = await h.machine(
      jsonata({
        Route: { Type: 'Choice', Choices: [{ Condition: '{% false %}', Next: 'X' }] },
        X: { Type: 'Succeed' },
      }),
    );
    const arn = await h.run(m);
    expect(await h.describe(arn)).toMatchObject({ status: 'FAILED', error: 'States.NoChoiceMatched' });
  });

  it('fails the run at a Fail state with its Error and Cause', async () => {
    const m = await h.machine(
      jsonata({ F: { Type: 'Fail', Error: 'Custom.Error', Cause: '{% "because " & $states.input.why %}' } }),
    );
    const arn = await h.run(m, { why: 'reasons' });
    expect(await h.describe(arn)).toMatchObject({ status: 'FAILED', error: 'Custom.Error', cause: 'because reasons' });
    expect((await h.history(arn)).at(-1)).toMatchObject({
      type: 'ExecutionFailed',
      executionFailedEventDetails: { error: 'Custom.Error', cause: 'because reasons' },
    });
  });

  it('surfaces a Lambda error with its errorType as the error name', async () => {
    const m = await h.machine(jsonata({ T: invokeTask('boom', { End: true }) }));
    const arn = await h.run(m);
    const d = await h.describe(arn);
    expect(d).toMatchObject({ status: 'FAILED', error: 'BoomError' });
    expect(JSON.parse(d.cause)).toMatchObject({ errorType: 'BoomError', errorMessage: 'it broke' });
    const failed = (await h.history(arn)).find((e) => e.type === 'TaskFailed');
    expect(failed.taskFailedEventDetails).toMatchObject({
      resourceType: 'lambda',
      resource: 'invoke',
      error: 'BoomError',
    });
  });

  it('runs a direct Lambda function ARN as Resource, returning the payload itself and writing LambdaFunction* events', async () => {
    const m = await h.machine(
      jsonata({
        T: { Type: 'Task', Resource: 'arn:aws:lambda:eu-west-1:999999999999:function:double:live', End: true },
      }),
    );
    const arn = await h.run(m, { n: 4 });
    expect(await h.output(arn)).toEqual({ n: 8 });
    expect(await h.eventTypes(arn)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'LambdaFunctionScheduled',
      'LambdaFunctionStarted',
      'LambdaFunctionSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
  });

  it('matches a function by name whatever region and account its ARN names, and passes the qualifier through', async () => {
    h.functions.whoami = (_p: unknown, req: { qualifier?: string }) => ({ qualifier: req.qualifier ?? null });
    const m = await h.machine(
      jsonata({
        Direct: {
          Type: 'Task',
          Resource: 'arn:aws:lambda:ap-south-1:111111111111:function:whoami:v7',
          Output: { direct: '{% $states.result.qualifier %}' },
          Next: 'Invoke',
        },
        Invoke: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke',
          Arguments: { FunctionName: 'arn:aws:lambda:eu-west-1:222222222222:function:whoami:live', Payload: {} },
          Output: {
            direct: '{% $states.input.direct %}',
            invoke: '{% $states.result.Payload.qualifier %}',
            version: '{% $states.result.ExecutedVersion %}',
          },
          End: true,
        },
      }),
    );
    expect(await h.output(await h.run(m))).toEqual({ direct: 'v7', invoke: 'live', version: '$LATEST' });
  });

  it('runs Parallel branches and collects their outputs in order', async () => {
    const m = await h.machine(
      jsonata({
        Both: {
          Type: 'Parallel',
          Branches: [
            { StartAt: 'D', States: { D: invokeTask('double', { End: true }) } },
            { StartAt: 'P', States: { P: { Type: 'Pass', Output: { second: true }, End: true } } },
          ],
          End: true,
        },
      }),
    );
    const arn = await h.run(m, { n: 3 });
    expect(await h.output(arn)).toEqual([{ n: 6 }, { second: true }]);
    const types = await h.eventTypes(arn);
    expect(types.slice(0, 3)).toEqual(['ExecutionStarted', 'ParallelStateEntered', 'ParallelStateStarted']);
    expect(types.slice(-3)).toEqual(['ParallelStateSucceeded', 'ParallelStateExited', 'ExecutionSucceeded']);
  });

  it('fails a Parallel with its failing branch error, catchable by Catch', async () => {
    const m = await h.machine(
      jsonata({
        Both: {
          Type: 'Parallel',
          Branches: [
            { StartAt: 'B', States: { B: invokeTask('boom', { End: true }) } },
            { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } },
          ],
          Catch: [{ ErrorEquals: ['BoomError'], Next: 'Caught', Output: '{% $states.errorOutput %}' }],
          End: true,
        },
        Caught: { Type: 'Pass', End: true },
      }),
    );
    const arn = await h.run(m);
    expect(await h.output(arn)).toMatchObject({ Error: 'BoomError' });
    expect(await h.eventTypes(arn)).toContain('ParallelStateFailed');
  });

  it('runs a Map over Items with ItemSelector and MaxConcurrency, output in item order', async () => {
    let running = 0;
    let peak = 0;
    h.functions.slow = async (p: any) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setImmediate(r));
      running--;
      return p.value * 10;
    };
    const m = await h.machine(
      jsonata({
        Each: {
          Type: 'Map',
          Items: '{% $states.input.xs %}',
          ItemSelector: {
            value: '{% $states.context.Map.Item.Value %}',
            index: '{% $states.context.Map.Item.Index %}',
          },
          MaxConcurrency: 2,
          ItemProcessor: {
            ProcessorConfig: { Mode: 'INLINE' },
            StartAt: 'S',
            States: { S: invokeTask('slow', { End: true }) },
          },
          End: true,
        },
      }),
    );
    const arn = await h.run(m, { xs: [1, 2, 3, 4, 5] });
    expect(await h.output(arn)).toEqual([10, 20, 30, 40, 50]);
    expect(peak).toBeLessThanOrEqual(2);
    const events = await h.history(arn);
    expect(events.find((e) => e.type === 'MapStateStarted').mapStateStartedEventDetails).toEqual({ length: 5 });
    expect(
      events
        .filter((e) => e.type === 'MapIterationStarted')
        .map((e) => e.mapIterationStartedEventDetails.index)
        .sort(),
    ).toEqual([0, 1, 2, 3, 4]);
    expect(events.filter((e) => e.type === 'MapIterationSucceeded')).toHaveLength(5);
  });

  it('finishes a Map over no items at once with an empty array', async () => {
    const m = await h.machine(
      jsonata({
        Each: {
          Type: 'Map',
          Items: '{% [] %}',
          ItemProcessor: { StartAt: 'S', States: { S: { Type: 'Pass', End: true } } },
          End: true,
        },
      }),
    );
    expect(await h.output(await h.run(m))).toEqual([]);
  });

  it('fails a Map with the error of a failed iteration', async () => {
    const processor = { StartAt: 'S', States: { S: invokeTask('failOdd', { End: true }) } };
    const m = await h.machine(
      jsonata({
        Each: {
          Type: 'Map',
          Items: '{% $states.input %}',
          ItemSelector: { n: '{% $states.context.Map.Item.Value %}' },
          ItemProcessor: processor,
          End: true,
        },
      }),
    );
    const failed = await h.run(m, [2, 3, 4]);
    expect(await h.describe(failed)).toMatchObject({ status: 'FAILED', error: 'OddError' });
    expect(await h.eventTypes(failed)).toContain('MapStateFailed');
    expect(await h.output(await h.run(m, [2, 4]))).toEqual([2, 4]);
  });

  it('keeps variables: Assign is visible later, inner scopes read outer variables but cannot write them back', async () => {
    const m = await h.machine(
      jsonata({
        Init: { Type: 'Pass', Assign: { greeting: 'hello', count: 1 }, Next: 'Each' },
        Each: {
          Type: 'Map',
          Items: '{% [1, 2] %}',
          ItemProcessor: {
            StartAt: 'Inner',
            States: {
              Inner: {
                Type: 'Pass',
                Assign: { count: 99 },
                Output: '{% $greeting & " " & $states.input %}',
                End: true,
              },
            },
          },
          Next: 'After',
        },
        After: { Type: 'Pass', Output: { items: '{% $states.input %}', count: '{% $count %}' }, End: true },
      }),
    );
    expect(await h.output(await h.run(m))).toEqual({ items: ['hello 1', 'hello 2'], count: 1 });
  });

  it('exposes the context object: execution, state and machine (RetryCount only in a Task with Retry, as on AWS)', async () => {
    const m = await h.machine(
      jsonata({
        Ctx: {
          Type: 'Pass',
          Output: {
            id: '{% $states.context.Execution.Id %}',
            name: '{% $states.context.Execution.Name %}',
            input: '{% $states.context.Execution.Input %}',
            state: '{% $states.context.State.Name %}',
            machine: '{% $states.context.StateMachine.Name %}',
          },
          End: true,
        },
      }),
      'ctxm',
    );
    const arn = await h.run(m, { k: 'v' }, 'ctx-run');
    expect(await h.output(arn)).toEqual({ id: arn, name: 'ctx-run', input: { k: 'v' }, state: 'Ctx', machine: 'ctxm' });
  });

  it('waits until a Timestamp, then carries on', async () => {
    const m = await h.machine(
      jsonata({ W: { Type: 'Wait', Timestamp: '{% $states.input.at %}', Next: 'Done' }, Done: { Type: 'Succeed' } }),
    );
    const at = new Date(h.clock.now() + 86_400_000).toISOString();
    const arn = await h.run(m, { at });
    expect((await h.describe(arn)).status).toBe('RUNNING');
    await h.clock.advance(86_400_000 - 1);
    expect((await h.describe(arn)).status).toBe('RUNNING');
    await h.clock.advance(1);
    const d = await h.describe(arn);
    expect(d.status).toBe('SUCCEEDED');
    expect(d.stopDate * 1000).toBe(Date.parse(at));
  });

  it('goes on at once from a Wait whose Timestamp has passed, without moving the virtual clock', async () => {
    const m = await h.machine(
      jsonata({ W: { Type: 'Wait', Timestamp: '{% $states.input.at %}', Next: 'Done' }, Done: { Type: 'Succeed' } }),
    );
    const arn = await h.run(m, { at: new Date(h.clock.now() - 1000).toISOString() });
    expect((await h.describe(arn)).status).toBe('SUCCEEDED');
  });

  it('times an execution out at the definition TimeoutSeconds', async () => {
    const m = await h.machine(jsonata({ W: { Type: 'Wait', Seconds: 100, End: true } }, { TimeoutSeconds: 10 }));
    const arn = await h.run(m);
    await h.clock.advance(10_000);
    expect(await h.describe(arn)).toMatchObject({ status: 'TIMED_OUT' });
    expect((await h.history(arn)).at(-1)).toMatchObject({
      type: 'ExecutionTimedOut',
      executionTimedOutEventDetails: { error: 'States.Timeout' },
    });
  });
});
