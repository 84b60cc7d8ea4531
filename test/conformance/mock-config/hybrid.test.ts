/**
 * Hybrid runs (the guide's HybridPath): a state the selected test case does not map makes its real call
 * (to the local services), beside mocked states; a run started without `#<TestCase>` ignores the mock
 * config altogether.
 */
import { describe, expect, it } from 'vitest';
import { jsonpath } from '../../../packages/engine/test/support/engine-harness';
import { mockedEngine, oneCase, SwitchableMockConfig, uniqueName } from './support';

const mocks = new SwitchableMockConfig();
const engine = mockedEngine(mocks, {
  real: (payload: { n?: number; real?: number }) => ({ real: (payload.n ?? payload.real ?? 0) + 1 }),
});

const twoTasks = jsonpath({
  Mocked: {
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke',
    Parameters: { FunctionName: 'real', Payload: { n: 0 } },
    OutputPath: '$.Payload',
    Next: 'Real',
  },
  Real: {
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke',
    Parameters: { FunctionName: 'real', 'Payload.$': '$' },
    OutputPath: '$.Payload',
    End: true,
  },
});

describe('hybrid runs', () => {
  it('an unmapped state makes the real local call, after a mocked one (HybridPath)', async () => {
    const name = uniqueName('Hybrid');
    mocks.use(
      oneCase(
        name,
        'HybridPath',
        { Mocked: 'Canned' },
        { Canned: { '0': { Return: { StatusCode: 200, Payload: { n: 41 } } } } },
      ),
    );
    const before = engine.harness.count('real');
    const run = await engine.run(twoTasks, {}, { machineName: name, testCase: 'HybridPath' });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: { real: 42 } });
    expect(engine.harness.count('real') - before).toBe(1);
    // The real call's result has the service's metadata; the mocked one is exactly the Return.
    const outputs = run.events
      .filter((e) => e.type === 'TaskSucceeded')
      .map((e) => Object.keys((e.taskSucceededEventDetails as { output: object }).output));
    expect(outputs).toEqual([
      ['StatusCode', 'Payload'],
      ['ExecutedVersion', 'Payload', 'SdkHttpMetadata', 'SdkResponseMetadata', 'StatusCode'],
    ]);
  });

  it('a run started without #<TestCase> ignores the mock config: every call is real', async () => {
    const name = uniqueName('Plain');
    mocks.use(
      oneCase(
        name,
        'HybridPath',
        { Mocked: 'Canned', Real: 'Canned' },
        { Canned: { '0': { Return: { Payload: 'never' } } } },
      ),
    );
    const before = engine.harness.count('real');
    const run = await engine.run(twoTasks, {}, { machineName: name });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: { real: 2 } });
    expect(engine.harness.count('real') - before).toBe(2);
  });

  it.each([
    ['arn:aws:states:::sns:publish', 'sns', 'publish', { MessageId: 'a0b1c2d3' }],
    [
      'arn:aws:states:::events:putEvents',
      'events',
      'putEvents',
      { Entries: [{ EventId: 'e-1' }], FailedEntryCount: 0 },
    ],
    ['arn:aws:states:::ecs:runTask.sync', 'ecs', 'runTask.sync', { Tasks: [{ LastStatus: 'STOPPED' }] }],
  ])(
    'an integration the engine does not serve (%s) is creatable and runs mocked, with the events of the real call',
    async (resource, resourceType, resourceName, answer) => {
      const name = uniqueName('Unserved');
      mocks.use(oneCase(name, 'Mocked', { Notify: 'Answer' }, { Answer: { '0': { Return: answer } } }));
      const def = jsonpath({ Notify: { Type: 'Task', Resource: resource, Parameters: { Any: 'thing' }, End: true } });
      const run = await engine.run(def, {}, { machineName: name, testCase: 'Mocked' });
      expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: answer });
      expect(run.events[3].taskStartedEventDetails).toEqual({ resourceType, resource: resourceName });
      // Unmocked, the same machine fails at run time naming what the engine does not serve.
      const real = await engine.run(def, {}, { machineName: uniqueName('Unserved') });
      expect(real.outcome.status).toBe('FAILED');
    },
  );
});
