/**
 * A mocked run stays mocked through its whole life: redriven after it failed, in the same engine or after a
 * restart, its Task takes the mock's next response and never calls the function. The engine keeps in memory the
 * test cases of open runs only, and reads a closed run's back from the store when it is redriven.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MockConfig } from '../src';
import { EngineHarness, jsonata } from './support/engine-harness';

const config = MockConfig.parse(
  JSON.stringify({
    StateMachines: { mocked: { TestCases: { FailsThenWorks: { Call: 'FailsThenWorks' } } } },
    MockedResponses: {
      FailsThenWorks: {
        '0': { Throw: { Error: 'Flaky', Cause: 'first call' } },
        '1': { Return: { worked: true } },
      },
    },
  }),
);
const machine = jsonata({
  Call: { Type: 'Task', Resource: 'arn:aws:states:::lambda:invoke', Arguments: { FunctionName: 'f' }, End: true },
});

describe('RedriveExecution of a mocked run', () => {
  const harnesses: EngineHarness[] = [];
  afterAll(() => Promise.all(harnesses.map((h) => h.close())));

  it.each([false, true])('answers from the mock again (engine restarted in between: %s)', async (restart) => {
    let h = await new EngineHarness({ f: () => ({ real: true }) }, { mockConfig: config }).start();
    const arn = await h.machine(machine, 'mocked');
    const run = await h.run(`${arn}#FailsThenWorks`);
    expect(await h.describe(run)).toMatchObject({ status: 'FAILED', error: 'Flaky' });
    if (restart) {
      await h.engine.stop();
      h = await h.restart();
    }
    harnesses.push(h);
    await h.call('RedriveExecution', { executionArn: run });
    await h.idle();
    expect(await h.describe(run)).toMatchObject({ status: 'SUCCEEDED', output: '{"worked":true}' });
    expect(h.count('f')).toBe(0);
  });
});
