/**
 * Mocked states inside Map and Parallel: the test case maps state names, including states of an item
 * processor or a branch, and all invocations of one state in a run share its counter (the docs advise
 * `MaxConcurrency: 1` in a Map for a predictable order; LocalStack keeps one counter per state name per run).
 */
import { describe, expect, it } from 'vitest';
import { jsonpath } from '../../../packages/engine/test/support/engine-harness';
import { mockedEngine, oneCase, SwitchableMockConfig, uniqueName } from './support';

const mocks = new SwitchableMockConfig();
const engine = mockedEngine(mocks);

const lambdaTask = (rest: object = {}) => ({
  Type: 'Task',
  Resource: 'arn:aws:states:::lambda:invoke',
  Parameters: { FunctionName: 'f', 'Payload.$': '$' },
  ResultSelector: { 'v.$': '$.Payload' },
  ...rest,
});

describe("Map iterations share the state's counter", () => {
  it('with MaxConcurrency 1 the iterations take 0, 1, 2 in item order', async () => {
    const name = uniqueName('MapSeq');
    mocks.use(
      oneCase(
        name,
        'Items',
        { Process: 'Each' },
        {
          Each: {
            '0': { Return: { Payload: 'a' } },
            '1': { Return: { Payload: 'b' } },
            '2': { Return: { Payload: 'c' } },
          },
        },
      ),
    );
    const def = jsonpath({
      Fan: {
        Type: 'Map',
        MaxConcurrency: 1,
        ItemProcessor: { StartAt: 'Process', States: { Process: lambdaTask({ End: true }) } },
        End: true,
      },
    });
    const run = await engine.run(def, [1, 2, 3], { machineName: name, testCase: 'Items' });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: [{ v: 'a' }, { v: 'b' }, { v: 'c' }] });
  });

  it('concurrent iterations each take a distinct number: every response is used once', async () => {
    const name = uniqueName('MapPar');
    const each = Object.fromEntries([0, 1, 2, 3, 4].map((n) => [String(n), { Return: { Payload: n } }]));
    mocks.use(oneCase(name, 'Items', { Process: 'Each' }, { Each: each }));
    const def = jsonpath({
      Fan: {
        Type: 'Map',
        ItemProcessor: { StartAt: 'Process', States: { Process: lambdaTask({ End: true }) } },
        End: true,
      },
    });
    const run = await engine.run(def, [0, 0, 0, 0, 0], { machineName: name, testCase: 'Items' });
    expect(run.outcome.status).toBe('SUCCEEDED');
    const values = (run.outcome as { output: { v: number }[] }).output.map((o) => o.v);
    expect([...values].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('a sixth iteration finds no response for invocation 5 and fails the run', async () => {
    const name = uniqueName('MapShort');
    const each = Object.fromEntries([0, 1, 2, 3, 4].map((n) => [String(n), { Return: { Payload: n } }]));
    mocks.use(oneCase(name, 'Items', { Process: 'Each' }, { Each: each }));
    const def = jsonpath({
      Fan: {
        Type: 'Map',
        MaxConcurrency: 1,
        ItemProcessor: { StartAt: 'Process', States: { Process: lambdaTask({ End: true }) } },
        End: true,
      },
    });
    const run = await engine.run(def, [0, 0, 0, 0, 0, 0], { machineName: name, testCase: 'Items' });
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    expect((run.outcome as { cause: string }).cause).toContain("invocation 5 of state 'Process'");
  });

  it('a mocked Throw in an iteration is retried inside it, taking the next numbers', async () => {
    const name = uniqueName('MapRetry');
    mocks.use(
      oneCase(
        name,
        'Flaky',
        { Process: 'Each' },
        {
          Each: {
            '0': { Throw: { Error: 'Busy', Cause: 'try again' } },
            '1': { Return: { Payload: 'first' } },
            '2': { Return: { Payload: 'second' } },
          },
        },
      ),
    );
    const def = jsonpath({
      Fan: {
        Type: 'Map',
        MaxConcurrency: 1,
        ItemProcessor: {
          StartAt: 'Process',
          States: { Process: lambdaTask({ Retry: [{ ErrorEquals: ['Busy'], MaxAttempts: 1 }], End: true }) },
        },
        End: true,
      },
    });
    const run = await engine.run(def, ['x', 'y'], { machineName: name, testCase: 'Flaky' });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: [{ v: 'first' }, { v: 'second' }] });
  });
});

describe('Parallel branches', () => {
  const leftAndRight = {
    Type: 'Parallel',
    Branches: [
      { StartAt: 'Left', States: { Left: lambdaTask({ End: true }) } },
      { StartAt: 'Right', States: { Right: lambdaTask({ End: true }) } },
    ],
  };

  it('states of different branches are mocked by name, each with its own response', async () => {
    const name = uniqueName('Par');
    mocks.use(
      oneCase(
        name,
        'Both',
        { Left: 'L', Right: 'R' },
        { L: { '0': { Return: { Payload: 'left' } } }, R: { '0': { Return: { Payload: 'right' } } } },
      ),
    );
    const def = jsonpath({
      Both: {
        ...leftAndRight,
        End: true,
      },
    });
    const run = await engine.run(def, {}, { machineName: name, testCase: 'Both' });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: [{ v: 'left' }, { v: 'right' }] });
  });

  it('a Throw in a branch fails the Parallel, whose Catch takes it as the real error', async () => {
    const name = uniqueName('ParCatch');
    mocks.use(
      oneCase(
        name,
        'Fails',
        { Left: 'L', Right: 'R' },
        { L: { '0': { Return: { Payload: 'left' } } }, R: { '0': { Throw: { Error: 'Right.Failed', Cause: 'no' } } } },
      ),
    );
    const def = jsonpath({
      Both: {
        ...leftAndRight,
        Catch: [{ ErrorEquals: ['Right.Failed'], Next: 'Recovered' }],
        End: true,
      },
      Recovered: { Type: 'Pass', End: true },
    });
    const run = await engine.run(def, {}, { machineName: name, testCase: 'Fails' });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: { Error: 'Right.Failed', Cause: 'no' } });
    expect(run.types).toContain('ParallelStateFailed');
  });
});
