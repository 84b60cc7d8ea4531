/**
 * Selecting a test case: StartExecution (Step Functions Local, LocalStack) and StartSyncExecution
 * (LocalStack) on `<stateMachineArn>#<TestCase>`. The execution's ARN and the other APIs know no suffix.
 * An unknown test case is InvalidName in LocalStack's words (TESTING-APIS.md B3).
 */
import { describe, expect, it } from 'vitest';
import { jsonpath } from '../../../packages/engine/test/support/engine-harness';
import { mockedEngine, oneCase, SwitchableMockConfig, uniqueName } from './support';
import { recordedEngine } from '../support/recorded-run';

const mocks = new SwitchableMockConfig();
const engine = mockedEngine(mocks);
const unmockedEngine = recordedEngine();

const oneTask = jsonpath({
  Call: {
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke',
    Parameters: { FunctionName: 'f' },
    OutputPath: '$.Payload',
    End: true,
  },
});
const invalidName = (testCase: string, machine: string) =>
  `Invalid mock test case name '${testCase}' for state machine '${machine}'.Either the test case is not defined or the mock configuration file could not be loaded. See logs for details.`;

async function startError(
  h: typeof engine.harness,
  stateMachineArn: string,
  operation = 'StartExecution',
): Promise<{ name: string; message: string }> {
  try {
    await h.call(operation, { stateMachineArn, input: '{}' });
  } catch (err) {
    return { name: (err as Error).name, message: (err as Error).message };
  }
  throw new Error('the start was accepted');
}

describe('selecting a test case', () => {
  it('StartExecution on <arn>#<TestCase> runs under it; the execution ARN and DescribeExecution carry no suffix', async () => {
    const name = uniqueName('Select');
    mocks.use(oneCase(name, 'Happy', { Call: 'Ok' }, { Ok: { '0': { Return: { Payload: 'mocked' } } } }));
    const arn = await engine.harness.machine(oneTask, name);
    const { executionArn } = await engine.harness.call('StartExecution', {
      stateMachineArn: `${arn}#Happy`,
      input: '{}',
      name: 'one',
    });
    await engine.harness.idle();
    expect(executionArn).toBe(`${arn.replace(':stateMachine:', ':execution:')}:one`);
    const described = await engine.harness.describe(executionArn);
    expect(described).toMatchObject({ stateMachineArn: arn, status: 'SUCCEEDED', output: '"mocked"' });
  });

  it('a test case mocking a state the machine does not have is warned about when a run starts under it (the run still starts)', async () => {
    const name = uniqueName('Typo');
    mocks.use(
      oneCase(
        name,
        'Typo',
        { Call: 'Ok', Cal: 'Ok', Nowhere: 'Ok' },
        { Ok: { '0': { Return: { Payload: 'mocked' } } } },
      ),
    );
    const arn = await engine.harness.machine(oneTask, name);
    const { executionArn } = await engine.harness.call('StartExecution', {
      stateMachineArn: `${arn}#Typo`,
      input: '{}',
    });
    await engine.harness.idle();
    expect((await engine.harness.describe(executionArn)).status).toBe('SUCCEEDED');
    expect(mocks.unknownStates).toContainEqual({ testCase: 'Typo', states: ['Cal', 'Nowhere'] });
  });

  it('an unknown test case is InvalidName naming the case and the machine', async () => {
    const name = uniqueName('Unknown');
    mocks.use(oneCase(name, 'Happy', { Call: 'Ok' }, { Ok: { '0': { Return: {} } } }));
    const arn = await engine.harness.machine(oneTask, name);
    expect(await startError(engine.harness, `${arn}#Sad`)).toEqual({
      name: 'InvalidName',
      message: invalidName('Sad', name),
    });
  });

  it('a machine the config does not name is InvalidName too', async () => {
    mocks.use(oneCase('SomeOtherMachine', 'Happy', { Call: 'Ok' }, { Ok: { '0': { Return: {} } } }));
    const name = uniqueName('NotInConfig');
    const arn = await engine.harness.machine(oneTask, name);
    expect(await startError(engine.harness, `${arn}#Happy`)).toEqual({
      name: 'InvalidName',
      message: invalidName('Happy', name),
    });
  });

  it('with no mock config loaded, a start on <arn>#<TestCase> is InvalidName ("could not be loaded")', async () => {
    const name = uniqueName('NoConfig');
    const arn = await unmockedEngine.harness.machine(oneTask, name);
    expect(await startError(unmockedEngine.harness, `${arn}#Happy`)).toEqual({
      name: 'InvalidName',
      message: invalidName('Happy', name),
    });
  });

  it("StartSyncExecution on an EXPRESS machine's <arn>#<TestCase> answers with the mocked run's output", async () => {
    const name = uniqueName('Sync');
    mocks.use(oneCase(name, 'Happy', { Call: 'Ok' }, { Ok: { '0': { Return: { Payload: { sync: true } } } } }));
    const arn = await engine.harness.machine(oneTask, name, { type: 'EXPRESS' });
    const answer = await engine.harness.call('StartSyncExecution', { stateMachineArn: `${arn}#Happy`, input: '{}' });
    expect(answer).toMatchObject({ status: 'SUCCEEDED', output: '{"sync":true}', stateMachineArn: arn });
    expect(answer.executionArn).toContain(`:express:${name}:`);
    // The express run's rows go when it closes, and so does its place among the mocked runs.
    await engine.harness.idle();
    await new Promise((resolve) => setImmediate(resolve));
    const express = (
      engine.harness.engine as unknown as {
        express: { runtime: { mocks: { mockedState(arn: string, state: string): unknown } } };
      }
    ).express;
    expect(express.runtime.mocks.mockedState(answer.executionArn, 'Call')).toBeUndefined();
  });

  it('StartSyncExecution with an unknown test case is InvalidName', async () => {
    const name = uniqueName('SyncUnknown');
    mocks.use(oneCase(name, 'Happy', { Call: 'Ok' }, { Ok: { '0': { Return: {} } } }));
    const arn = await engine.harness.machine(oneTask, name, { type: 'EXPRESS' });
    expect(await startError(engine.harness, `${arn}#Nope`, 'StartSyncExecution')).toEqual({
      name: 'InvalidName',
      message: invalidName('Nope', name),
    });
  });

  it('the run keeps the test case it started with when the config changes under it', async () => {
    const name = uniqueName('Kept');
    mocks.use(
      oneCase(
        name,
        'Case',
        { Call: 'Ok' },
        { Ok: { '0': { Throw: { Error: 'Slow', Cause: '' } }, '1': { Return: { Payload: 'first config' } } } },
      ),
    );
    const def = jsonpath({
      Call: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { FunctionName: 'f' },
        Retry: [{ ErrorEquals: ['Slow'], IntervalSeconds: 60 }],
        OutputPath: '$.Payload',
        End: true,
      },
    });
    const arn = await engine.harness.machine(def, name);
    const exec = await engine.harness.run(`${arn}#Case`, {});
    mocks.use(oneCase(name, 'Case', { Call: 'Ok' }, { Ok: { '0-1': { Return: { Payload: 'second config' } } } }));
    await engine.harness.clock.advance(60_000);
    await engine.harness.idle();
    expect(await engine.harness.output(exec)).toBe('first config');
  });
});
