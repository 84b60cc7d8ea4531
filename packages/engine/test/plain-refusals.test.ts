/**
 * Mistakes answered at once, in plain words, instead of accepted or answered with a puzzle: a task token
 * that is a number ("Value null" before), TestState's `roleArn: "x"`, an `errorOutput` with neither error
 * nor cause, and an `errorCausedByState` that names no state inside the tested Map or Parallel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineHarness } from './support/engine-harness';

const ROLE = 'arn:aws:iam::123456789012:role/test';
const task = JSON.stringify({
  Type: 'Task',
  Resource: 'arn:aws:states:::lambda:invoke',
  Arguments: { FunctionName: 'f' },
  End: true,
  QueryLanguage: 'JSONata',
});
const parallel = JSON.stringify({
  Type: 'Parallel',
  End: true,
  Branches: [
    {
      StartAt: 'Inner',
      States: {
        Inner: {
          Type: 'Map',
          End: true,
          ItemProcessor: { StartAt: 'Deep', States: { Deep: { Type: 'Pass', End: true } } },
        },
      },
    },
  ],
});

describe('plain refusals', () => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await new EngineHarness().start();
  });
  afterAll(() => h.close());

  it.each(['SendTaskSuccess', 'SendTaskFailure', 'SendTaskHeartbeat'])(
    '%s with a numeric taskToken is a ValidationException that says it is a number',
    async (operation) => {
      await expect(h.call(operation, { taskToken: 12345, output: '{}' })).rejects.toMatchObject({
        name: 'ValidationException',
        message: "Value at 'taskToken' must be a string, not the number 12345",
      });
    },
  );

  it("TestState refuses roleArn 'x' as CreateStateMachine's service does, InvalidArn", async () => {
    await expect(h.call('TestState', { definition: task, roleArn: 'x' })).rejects.toMatchObject({
      name: 'InvalidArn',
      message: "Invalid Role Arn: 'x'",
    });
    await expect(
      h.call('TestState', { definition: task, roleArn: ROLE, mock: { result: '{}' } }),
    ).resolves.toMatchObject({ status: 'SUCCEEDED' });
  });

  it('TestState refuses a mocked errorOutput with neither error nor cause', async () => {
    await expect(h.call('TestState', { definition: task, mock: { errorOutput: {} } })).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'A test mock errorOutput should have at least one of the following fields: [error, cause].',
    });
    await expect(
      h.call('TestState', { definition: task, mock: { errorOutput: { error: 'E' } } }),
    ).resolves.toMatchObject({ status: 'FAILED', error: 'E' });
  });

  it('TestState refuses an errorCausedByState that names no state inside the tested state, and takes one nested at any depth', async () => {
    const mock = { errorOutput: { error: 'E', cause: 'c' } };
    await expect(
      h.call('TestState', { definition: parallel, mock, stateConfiguration: { errorCausedByState: 'Nowhere' } }),
    ).rejects.toMatchObject({
      name: 'ValidationException',
      message: "The errorCausedByState 'Nowhere' names no state inside the tested Parallel state.",
    });
    await expect(
      h.call('TestState', { definition: parallel, mock, stateConfiguration: { errorCausedByState: 'Deep' } }),
    ).resolves.toMatchObject({ status: 'FAILED', error: 'E' });
  });
});
