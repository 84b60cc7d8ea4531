/**
 * What CreateStateMachine accepts and refuses, as AWS answered (localstack's AWS-validated snapshots:
 * outputdecl/test_output, assign/test_assign_base, scenarios/test_base_scenarios, credentials,
 * test_sfn_api_express). asl-validator's schema is stricter than the service; where they disagree the
 * service's answer is the one pinned here.
 */
import { describe, expect, it } from 'vitest';
import { jsonata, jsonpath } from '../unit/local/engine/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const engine = recordedEngine();
const express = recordedEngine({}, { express: true });

describe('accepted as AWS accepts them', () => {
  it.each([
    ['a number', 0.1],
    ['a boolean', true],
    ['null', null],
    ['a list', [null, 0, 'x', { constant: 0 }]],
    ['a plain string', 'constant string'],
    ['a double quote', '"'],
  ])('Output as %s on a JSONata Pass, given back as written', async (_what, output) => {
    const run = await engine.run(jsonata({ State0: { Type: 'Pass', Output: output, End: true } }), { input_value: 1 });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output });
  });

  it('strings holding {% %} that are not wholly an expression are literals', async () => {
    const output = { constant_not_jsonata: ' {% states.input %} ', constant_lst: [' {% states.input %} ', '$states.input'] };
    const run = await engine.run(jsonata({ State0: { Type: 'Pass', Output: output, End: true } }), {});
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output });
  });

  it.each([
    ['JSONata', jsonata({ State0: { Type: 'Pass', Assign: { constant_lst: [null, 0, 0.1, true, [], { constant: 0 }] }, Next: 'S1' }, S1: { Type: 'Pass', Output: '{% $constant_lst %}', End: true } })],
    ['JSONPath', jsonpath({ State0: { Type: 'Pass', Assign: { constant_lst: [null, 0, 0.1, true, [], { constant: 0 }] }, Next: 'S1' }, S1: { Type: 'Pass', Parameters: { 'v.$': '$constant_lst' }, OutputPath: '$.v', End: true } })],
  ])('%s Assign holding a list with null, lists and objects', async (_language, definition) => {
    expect((await engine.run(definition, {})).outcome).toEqual({ status: 'SUCCEEDED', output: [null, 0, 0.1, true, [], { constant: 0 }] });
  });

  it.each([
    [true, 'ConditionTrue'],
    [false, 'DefaultState'],
  ])('a constant Condition %s', async (condition, next) => {
    const def = jsonata({
      ChoiceState: { Type: 'Choice', Choices: [{ Condition: condition, Next: 'ConditionTrue' }], Default: 'DefaultState' },
      ConditionTrue: { Type: 'Pass', Output: 'true branch', End: true },
      DefaultState: { Type: 'Pass', Output: 'default', End: true },
    });
    const run = await engine.run(def, {});
    expect(run.events.find((e) => e.type === 'PassStateEntered')?.stateEnteredEventDetails).toMatchObject({ name: next });
  });

  it.each([
    [true, 'Condition Output block'],
    [false, 'Default Output block'],
  ])('Output strings on a JSONata Choice and its rule (condition %s)', async (condition, output) => {
    const def = jsonata({
      ChoiceState: {
        Type: 'Choice',
        Choices: [{ Condition: '{% $states.input.condition %}', Next: 'Done', Output: 'Condition Output block' }],
        Default: 'Done',
        Output: 'Default Output block',
      },
      Done: { Type: 'Pass', End: true },
    });
    expect((await engine.run(def, { condition })).outcome).toEqual({ status: 'SUCCEEDED', output });
  });
});

describe('refused as AWS refuses them', () => {
  const lambdaTask = { Type: 'Task', Resource: 'arn:aws:states:::lambda:invoke', Parameters: { FunctionName: 'f' }, End: true };

  it('a Credentials block without RoleArn', async () => {
    expect(await engine.create(jsonpath({ State0: { ...lambdaTask, Credentials: {} } }))).toEqual({
      name: 'InvalidDefinition',
      message: "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: The field 'RoleArn' is required but was missing at /States/State0/Credentials'",
    });
  });

  it('Credentials with a RoleArn is accepted', async () => {
    expect(await engine.create(jsonpath({ State0: { ...lambdaTask, Credentials: { RoleArn: 'arn:aws:iam::111111111111:role/r' } } }))).toBe('created');
  });

  it.each(['arn:aws:states:::states:startExecution.sync', 'arn:aws:states:::states:startExecution.sync:2'])('%s in an EXPRESS machine', async (resource) => {
    const def = jsonpath({ StartExecution: { Type: 'Task', Resource: resource, Parameters: { StateMachineArn: 'arn:aws:states:us-east-1:111111111111:stateMachine:x' }, End: true } });
    expect(await express.create(def)).toEqual({
      name: 'InvalidDefinition',
      message: "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: Express state machine does not support '.sync' service integration at /States/StartExecution/Resource'",
    });
    expect(await engine.create(def)).toBe('created');
  });

  const syncDef = jsonpath({ Start: { Type: 'Task', Resource: 'arn:aws:states:::states:startExecution.sync:2', Parameters: { StateMachineArn: 'arn:aws:states:us-east-1:111111111111:stateMachine:x' }, End: true } });

  it('.sync given to UpdateStateMachine of an EXPRESS machine', async () => {
    const arn = await express.harness.machine(jsonpath({ P: { Type: 'Pass', End: true } }), undefined, { type: 'EXPRESS' });
    await expect(express.harness.call('UpdateStateMachine', { stateMachineArn: arn, definition: JSON.stringify(syncDef) })).rejects.toMatchObject({ name: 'InvalidDefinition' });
  });

  it('.sync checked by ValidateStateMachineDefinition for type EXPRESS only', async () => {
    const validate = (type?: string) => engine.harness.call('ValidateStateMachineDefinition', { definition: JSON.stringify(syncDef), ...(type ? { type } : {}) });
    expect(await validate('EXPRESS')).toMatchObject({ result: 'FAIL', diagnostics: [{ code: 'SCHEMA_VALIDATION_FAILED', location: '/States/Start/Resource' }] });
    expect(await validate()).toMatchObject({ result: 'OK' });
  });
});
