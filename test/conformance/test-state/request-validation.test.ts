/**
 * TestState request validation, as AWS refuses requests: the API model's constraints (botocore
 * service-2.json TestStateInput) and the refusals recorded on AWS (LocalStack's AWS-validated
 * test_state_mock_validation, test_test_state_scenarios, test_test_state_machine_scenarios snapshots,
 * summarised in ../shared/TESTING-APIS.md A2, A4, A5).
 */
import { describe, expect, it } from 'vitest';
import { ROLE_ARN, testStateEngine } from './support';

const { refusal, wireRefusal, testState } = testStateEngine();

const PASS = { Type: 'Pass', End: true };
const FAIL = { Type: 'Fail', Error: 'SomeFailure', Cause: 'c' };
const SUCCEED = { Type: 'Succeed' };
const LAMBDA_TASK = {
  Type: 'Task',
  Resource: 'arn:aws:states:::lambda:invoke',
  Parameters: { FunctionName: 'f', 'Payload.$': '$' },
  End: true,
};
const BRANCH = (name: string) => ({ StartAt: name, States: { [name]: { Type: 'Pass', End: true } } });
const PARALLEL = { Type: 'Parallel', Branches: [BRANCH('B1'), BRANCH('B2')], End: true };
const MAP = {
  Type: 'Map',
  QueryLanguage: 'JSONata',
  Items: '{% $states.input.Values %}',
  ItemProcessor: {
    ProcessorConfig: { Mode: 'INLINE' },
    StartAt: 'TestState',
    States: { TestState: { Type: 'Pass', End: true } },
  },
  End: true,
};

describe('TestState request fields (API model constraints)', () => {
  it('refuses a request without a definition (definition is required)', async () => {
    expect(await wireRefusal({ input: '{}' })).toEqual({
      name: 'ValidationException',
      message:
        "1 validation error detected: Value null at 'definition' failed to satisfy constraint: Member must not be null",
    });
  });

  it('refuses an empty stateName (length 1..80)', async () => {
    expect(
      (await wireRefusal({ definition: JSON.stringify({ StartAt: 'A', States: { A: PASS } }), stateName: '' })).name,
    ).toBe('ValidationException');
  });

  it('refuses an inspectionLevel outside INFO, DEBUG, TRACE', async () => {
    const refused = await wireRefusal({ definition: JSON.stringify(PASS), inspectionLevel: 'VERBOSE' });
    expect(refused.name).toBe('ValidationException');
    expect(refused.message).toContain('[INFO, DEBUG, TRACE]');
  });

  it('refuses a fieldValidationMode outside STRICT, PRESENT, NONE', async () => {
    const refused = await wireRefusal({
      definition: JSON.stringify(LAMBDA_TASK),
      mock: { result: '{}', fieldValidationMode: 'LOOSE' },
    });
    expect(refused.name).toBe('ValidationException');
  });

  it('answers input that is not JSON with InvalidExecutionInput (a modelled TestState error)', async () => {
    expect((await wireRefusal({ definition: JSON.stringify(PASS), input: '{not json' })).name).toBe(
      'InvalidExecutionInput',
    );
  });

  it('takes {} as the input when none is given (the API default)', async () => {
    expect(await testState({ definition: PASS })).toEqual({ status: 'SUCCEEDED', output: {} });
  });
});

describe('TestState definitions (recorded on AWS)', () => {
  it('answers a definition that is not JSON with InvalidDefinition', async () => {
    expect((await refusal({ definition: '{"Type": ' })).name).toBe('InvalidDefinition');
  });

  it('refuses a stateName the definition does not have: "State not found in definition" (recorded for dne and invalid)', async () => {
    const machine = { StartAt: 'State0', States: { State0: PASS } };
    for (const stateName of ['dne', 'invalid']) {
      expect(await refusal({ definition: machine, stateName })).toEqual({
        name: 'ValidationException',
        message: 'State not found in definition',
      });
    }
  });

  it('refuses a whole machine with an invalid state with its schema error (recorded: ExistingButInvalidState)', async () => {
    const machine = {
      StartAt: 'State0',
      States: {
        State0: { Type: 'Pass', Next: 'ExistingButInvalidState' },
        ExistingButInvalidState: { Type: 'Invalid', End: true },
      },
    };
    const refused = await refusal({ definition: machine, stateName: 'State0' });
    expect(refused.name).toBe('InvalidDefinition');
    expect(refused.message).toMatch(
      /^Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: .*at \/States\/ExistingButInvalidState\/Type'$/,
    );
  });

  it('wraps a single state as the state "StateName": its schema errors point into /States/StateName (recorded: empty Branches)', async () => {
    expect(await refusal({ definition: { ...PARALLEL, Branches: [] }, mock: { result: [] } })).toEqual({
      name: 'InvalidDefinition',
      message:
        "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: Value cannot be empty at /States/StateName/Branches'",
    });
  });

  it('lets a single state name any Next, Default or catcher target (the states it goes to are not part of the test)', async () => {
    const choice = { Type: 'Choice', Choices: [{ Variable: '$.v', NumericEquals: 1, Next: 'One' }], Default: 'Other' };
    expect(await testState({ definition: choice, input: { v: 1 } })).toEqual({
      status: 'SUCCEEDED',
      output: { v: 1 },
      nextState: 'One',
    });
  });

  it.each([
    ['Map', MAP],
    ['Parallel', PARALLEL],
  ])(
    'refuses a %s state without a mock with InvalidDefinition, naming the supported types (recorded)',
    async (_type, definition) => {
      expect(await refusal({ definition })).toEqual({
        name: 'InvalidDefinition',
        message:
          'TestState API does not support Map or Parallel states. Supported state types include: [Task, Wait, Pass, Succeed, Fail, Choice]',
      });
    },
  );
});

describe('TestState mocks: where they are allowed (recorded on AWS)', () => {
  it.each([
    ['Pass', PASS],
    ['Fail', FAIL],
    ['Succeed', SUCCEED],
  ])('refuses a mock on a %s state, for a result and for an errorOutput alike', async (type, definition) => {
    const expected = {
      name: 'ValidationException',
      message: `State type '${type}' is not supported when a mock is specified`,
    };
    expect(await refusal({ definition, mock: { result: {} } })).toEqual(expected);
    expect(await refusal({ definition, mock: { errorOutput: { error: 'E', cause: 'C' } } })).toEqual(expected);
  });

  it('refuses a mock with both result and errorOutput', async () => {
    expect(
      await refusal({ definition: LAMBDA_TASK, mock: { result: {}, errorOutput: { error: 'E', cause: 'C' } } }),
    ).toEqual({
      name: 'ValidationException',
      message: 'A test mock should have only one of the following fields: [result, errorOutput].',
    });
  });

  it('refuses revealSecrets together with a mock', async () => {
    expect(await refusal({ definition: LAMBDA_TASK, revealSecrets: true, mock: { result: {} } })).toEqual({
      name: 'ValidationException',
      message: 'TestState does not support RevealSecrets when a mock is specified.',
    });
  });

  it('refuses a mocked result that is not JSON, even with fieldValidationMode NONE', async () => {
    const expected = { name: 'ValidationException', message: 'Mocked result must be valid JSON' };
    expect(await refusal({ definition: LAMBDA_TASK, mock: { result: 'not json' } })).toEqual(expected);
    expect(
      await refusal({ definition: LAMBDA_TASK, mock: { result: 'not json', fieldValidationMode: 'NONE' } }),
    ).toEqual(expected);
  });
});

describe('TestState roles (recorded on AWS)', () => {
  it('refuses an un-mocked Task without a roleArn', async () => {
    expect(await refusal({ definition: LAMBDA_TASK })).toEqual({
      name: 'ValidationException',
      message: 'RoleArn must be specified when testing a Task state',
    });
  });

  it('runs a mocked Task without a roleArn', async () => {
    expect(
      (await testState({ definition: LAMBDA_TASK, mock: { result: { StatusCode: 200, Payload: 1 } } })).status,
    ).toBe('SUCCEEDED');
  });

  it('runs a JSONata Choice or Pass state of a whole machine without a roleArn', async () => {
    const machine = {
      QueryLanguage: 'JSONata',
      StartAt: 'Pick',
      States: {
        Pick: {
          Type: 'Choice',
          Choices: [{ Condition: '{% $states.input.cost > 9 %}', Next: 'Done' }],
          Default: 'Done',
        },
        Done: { Type: 'Pass', End: true },
      },
    };
    expect(await testState({ definition: machine, stateName: 'Pick', input: { cost: 10 } })).toEqual({
      status: 'SUCCEEDED',
      output: { cost: 10 },
      nextState: 'Done',
    });
    expect(await testState({ definition: machine, stateName: 'Done', input: { cost: 10 } })).toEqual({
      status: 'SUCCEEDED',
      output: { cost: 10 },
    });
  });

  it('refuses an un-mocked .waitForTaskToken Task: AWS documents that callback and .sync patterns need a mock', async () => {
    const definition = {
      Type: 'Task',
      Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
      Parameters: { QueueUrl: 'q', MessageBody: { 'T.$': '$$.Task.Token' } },
      End: true,
    };
    expect((await refusal({ definition, roleArn: ROLE_ARN })).name).toBe('ValidationException');
  });
});
