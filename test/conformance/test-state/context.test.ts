/**
 * The context object of a tested state (API_TestState `context`; recorded: LocalStack's AWS-validated
 * test_test_state_scenarios and test_state_context_object; ../shared/TESTING-APIS.md A3, A5): without
 * one, AWS synthesises an express execution of a made-up machine with the state named "StateName"; a
 * given one is used verbatim as `$$` once it passes AWS's checks.
 */
import { describe, expect, it } from 'vitest';
import { ROLE_ARN, testStateEngine } from './support';

const { testState, refusal } = testStateEngine();

const CONTEXT_PASS = { Type: 'Pass', Parameters: { 'context.$': '$$' }, End: true };
const lambdaTask = (extra: object = {}) => ({
  Type: 'Task',
  Resource: 'arn:aws:states:::lambda:invoke',
  Parameters: { FunctionName: 'lambda_function_name', 'Payload.$': '$' },
  ResultSelector: { 'ContextObjectValue.$': '$$', 'LambdaOutput.$': '$.Payload' },
  End: true,
  ...extra,
});
const MOCK = { result: { StatusCode: 200, Payload: { pokemon: 'pikachu' } } };

describe('the synthesised context', () => {
  it('is an express execution of a state machine, started with the state input, the role given', async () => {
    const { output } = await testState({ definition: CONTEXT_PASS, input: { a: 1 }, roleArn: ROLE_ARN });
    const { Execution, StateMachine } = output.context;
    expect(Execution.Id).toMatch(/^arn:aws:states:[a-z0-9-]+:\d{12}:express:[^:]+:[^:]+$/);
    const [, , , , , , machineName, executionName] = Execution.Id.split(':');
    expect(Execution).toMatchObject({ Input: { a: 1 }, Name: executionName, RoleArn: ROLE_ARN });
    expect(Number.isNaN(Date.parse(Execution.StartTime))).toBe(false);
    expect(StateMachine).toEqual({
      Id: expect.stringMatching(new RegExp(`:stateMachine:${machineName}$`)),
      Name: machineName,
    });
  });

  it('has RoleArn null without a role (recorded: test_state_with_variables)', async () => {
    const { output } = await testState({ definition: CONTEXT_PASS });
    expect(output.context.Execution.RoleArn).toBeNull();
  });

  it('names the state "StateName", even one picked with stateName (recorded)', async () => {
    const machine = {
      StartAt: 'First',
      States: { First: { Type: 'Pass', Next: 'Second' }, Second: { ...CONTEXT_PASS } },
    };
    const { output } = await testState({ definition: machine, stateName: 'Second' });
    expect(output.context.State.Name).toBe('StateName');
    expect(Object.keys(output.context.State).sort()).toEqual(['EnteredTime', 'Name']);
  });

  it('gives a Task, Map or Parallel State.RetryCount 0 (recorded with and without Retry)', async () => {
    const answer = await testState({ definition: lambdaTask(), input: { a: 1 }, mock: MOCK });
    expect(answer.output.ContextObjectValue.State).toMatchObject({ Name: 'StateName', RetryCount: 0 });
  });
});

describe('a given context', () => {
  it('is used verbatim as $$ (recorded: EXECUTION_INPUT and ALL)', async () => {
    const context = {
      Execution: {
        Id: 'arn:aws:states:::execution:MyStateMachine:execution-name-12345',
        Input: { values: ['charizard', 'pikachu'] },
        Name: 'execution-name-12345',
      },
      State: { Name: 'MyTaskState' },
    };
    const answer = await testState({ definition: lambdaTask(), input: { 'input-value': 0 }, context, mock: MOCK });
    expect(answer.output).toEqual({ ContextObjectValue: context, LambdaOutput: { pokemon: 'pikachu' } });
  });

  it.each([{}, { Execution: {}, State: {}, StateMachine: {} }])(
    'is taken as it is when empty: %j (recorded)',
    async (context) => {
      const answer = await testState({ definition: lambdaTask(), context, mock: MOCK });
      expect(answer.output.ContextObjectValue).toEqual(context);
    },
  );

  it("gives a .waitForTaskToken Task its Task.Token (recorded: the mock is the callback's result)", async () => {
    const definition = {
      Type: 'Task',
      Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
      Parameters: {
        QueueUrl: 'https://sqs.us-east-1.amazonaws.com/111111111111/test-queue',
        MessageBody: { Message: 'Hello', 'TaskToken.$': '$$.Task.Token' },
      },
      ResultPath: '$.SQS',
      Next: 'NEXT_STATE',
    };
    const answer = await testState({
      definition,
      context: { Task: { Token: 'abcd123' } },
      inspectionLevel: 'DEBUG',
      mock: { result: { pokemon: ['pikachu'] } },
    });
    expect(answer.inspectionData.afterParameters.MessageBody.TaskToken).toBe('abcd123');
    expect(answer).toMatchObject({
      status: 'SUCCEEDED',
      output: { SQS: { pokemon: ['pikachu'] } },
      nextState: 'NEXT_STATE',
    });
  });

  it.each([
    ['Execution.Id not a string', { Execution: { Id: 1 } }, 'Execution.Id must be a string'],
    ['an unknown field inside Execution', { Execution: { pokemon: 'pikachu' } }, "Field 'pokemon' is not allowed"],
    ['an unknown top-level field', { Pokedex: {} }, "Field 'Pokedex' is not allowed"],
    ['a Map field', { Map: { Item: { Index: 0 } } }, "'Map' field is not supported when mocking a Context object"],
    [
      'a Task field for a state without a token',
      { Task: { Token: 't' } },
      "Context object contains 'Task' when state is not a Task state with a '.sync' or '.waitForTaskToken' service integration pattern",
    ],
  ])('refuses %s (recorded)', async (_name, context, reason) => {
    expect(await refusal({ definition: lambdaTask(), context, mock: MOCK })).toEqual({
      name: 'ValidationException',
      message: `Invalid Context object provided: ${reason}`,
    });
  });

  it('checks the state type first: a Pass with a mock and a context gives the Pass error (recorded)', async () => {
    expect(
      await refusal({
        definition: { Type: 'Pass', End: true },
        context: { Task: { Token: 't' } },
        mock: { result: {} },
      }),
    ).toEqual({
      name: 'ValidationException',
      message: "State type 'Pass' is not supported when a mock is specified",
    });
  });

  it('is refused without a mock, as the API documents it may only come with one', async () => {
    expect((await refusal({ definition: CONTEXT_PASS, context: {} })).name).toBe('ValidationException');
  });
});

describe('a Map whose ItemsPath reads the context (recorded: test_state_map_context_object, context CONTEXT_OBJECT_FULL, TRACE)', () => {
  const FULL = {
    Execution: {
      Id: 'arn:aws:states:::execution:MyStateMachine:execution-name-12345',
      Input: { 'input-value': 0, message: 'test data', values: ['charizard', 'pikachu', 'bulbasaur'] },
      Name: 'execution-name-12345',
    },
    State: { Name: 'MyTaskState' },
  };
  const map = (itemsPath: string) => ({
    Type: 'Map',
    ItemsPath: itemsPath,
    MaxConcurrency: 1,
    ItemProcessor: { StartAt: 'HandleItem', States: { HandleItem: { Type: 'Pass', End: true } } },
    End: true,
  });
  const INPUT = ['fire', 'electricity', 'grass'];
  const MOCKED = { result: ['CHARIZARD', 'PIKACHU', 'BULBASAUR'] };

  it.each([
    ['ALL', '$$', '$'],
    ['EXECUTION_INPUT', '$$.Execution.Input', '$.Execution.Input'],
  ])(
    '[%s] %s, not an array, fails with States.Runtime: Reference path "%s" must point to array.',
    async (_id, itemsPath, shown) => {
      const answer = await testState({
        definition: map(itemsPath),
        input: INPUT,
        context: FULL,
        inspectionLevel: 'TRACE',
        mock: MOCKED,
      });
      expect(answer).toEqual({
        status: 'FAILED',
        error: 'States.Runtime',
        cause: `Reference path "${shown}" must point to array.`,
        inspectionData: { input: INPUT, afterInputPath: INPUT },
      });
    },
  );

  it('[EXECUTION_INPUT_VALUES] $$.Execution.Input.values, an array, runs the mock', async () => {
    const answer = await testState({
      definition: map('$$.Execution.Input.values'),
      input: INPUT,
      context: FULL,
      inspectionLevel: 'TRACE',
      mock: MOCKED,
    });
    expect(answer).toEqual({
      status: 'SUCCEEDED',
      output: MOCKED.result,
      inspectionData: {
        input: INPUT,
        afterInputPath: INPUT,
        afterItemsPath: FULL.Execution.Input.values,
        afterResultSelector: MOCKED.result,
        afterResultPath: MOCKED.result,
        maxConcurrency: 1,
      },
    });
  });
});
