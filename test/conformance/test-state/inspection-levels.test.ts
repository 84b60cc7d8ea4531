/**
 * TestState inspection levels (API_TestState inspectionLevel, API_InspectionData; recorded: LocalStack's
 * AWS-validated test_test_state_scenarios, test_test_state_machine_scenarios, test_test_state_mock_scenarios,
 * test_state_configuration; ../shared/TESTING-APIS.md A7): INFO has no inspectionData; DEBUG shows the
 * data-flow steps that apply to the state, with exactly the key sets AWS records per state type and query
 * language; TRACE adds an HTTP Task's request and response and is otherwise DEBUG.
 */
import { describe, expect, it } from 'vitest';
import { ROLE_ARN, testStateEngine, type TestStateCall } from './support';

const { testState, raw } = testStateEngine({ greet: (p: { inputData: string }) => `${p.inputData}!` });

const HELLO = { Value: 'HelloWorld' };
const NESTED = {
  initialData: { fieldFromInput: 'value from input', otherField: 'other' },
  unrelatedData: { someOtherField: 1234 },
};
const BRANCH = (name: string) => ({ StartAt: name, States: { [name]: { Type: 'Pass', End: true } } });

/** Each case: a request and the inspectionData keys AWS records for it at DEBUG. */
const CASES: readonly [string, TestStateCall, readonly string[]][] = [
  [
    'JSONPath Pass without Result',
    { definition: { Type: 'Pass', End: true }, input: HELLO },
    ['input', 'afterInputPath', 'afterParameters', 'afterResultSelector', 'afterResultPath'],
  ],
  [
    'JSONPath Pass with Result',
    { definition: { Type: 'Pass', Result: { resultKey: 'result value' }, End: true }, input: HELLO },
    ['input', 'result', 'afterResultSelector', 'afterResultPath'],
  ],
  [
    'JSONPath Choice',
    {
      definition: { Type: 'Choice', Choices: [{ Variable: '$.value', NumericEquals: 22, Next: 'A' }], Default: 'B' },
      input: { value: 22 },
    },
    ['input', 'afterInputPath'],
  ],
  ['JSONPath Succeed', { definition: { Type: 'Succeed' }, input: HELLO }, ['input', 'afterInputPath']],
  [
    'JSONPath Fail',
    { definition: { Type: 'Fail', Error: 'E', Cause: 'C' }, input: HELLO },
    ['input', 'afterInputPath'],
  ],
  [
    'JSONPath Task (real call)',
    {
      definition: { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:123456789012:function:greet', End: true },
      input: { inputData: 'HelloWorld' },
      roleArn: ROLE_ARN,
    },
    ['input', 'afterInputPath', 'afterParameters', 'result', 'afterResultSelector', 'afterResultPath'],
  ],
  [
    'JSONata Task (mocked result)',
    {
      definition: {
        QueryLanguage: 'JSONata',
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Arguments: { FunctionName: 'f', Payload: 'p' },
        End: true,
      },
      mock: { result: { StatusCode: 200 } },
    },
    ['input', 'afterArguments', 'result'],
  ],
  [
    'JSONata Task (mocked error)',
    {
      definition: {
        QueryLanguage: 'JSONata',
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Arguments: { FunctionName: 'f' },
        Catch: [{ ErrorEquals: ['States.ALL'], Next: 'H' }],
        End: true,
      },
      mock: { errorOutput: { error: 'E', cause: 'C' } },
    },
    ['input', 'afterArguments', 'errorDetails'],
  ],
  [
    'JSONata Choice',
    {
      definition: {
        QueryLanguage: 'JSONata',
        Type: 'Choice',
        Choices: [{ Condition: '{% $states.input.cost > 9 %}', Next: 'A' }],
        Default: 'B',
      },
      input: { cost: 10 },
    },
    ['input'],
  ],
  [
    'JSONata Pass',
    { definition: { QueryLanguage: 'JSONata', Type: 'Pass', Output: '{% $states.input %}', End: true }, input: HELLO },
    ['input'],
  ],
  [
    'JSONata Fail (whole machine)',
    {
      definition: {
        QueryLanguage: 'JSONata',
        StartAt: 'State0',
        States: { State0: { Type: 'Fail', Error: 'E', Cause: 'C' } },
      },
      stateName: 'State0',
    },
    ['input'],
  ],
  [
    'JSONPath Parallel (mocked)',
    {
      definition: { Type: 'Parallel', Branches: [BRANCH('B1'), BRANCH('B2')], End: true },
      input: HELLO,
      mock: { result: [1, 2] },
    },
    ['input', 'afterResultSelector', 'afterResultPath'],
  ],
  [
    'JSONata Parallel (mocked)',
    {
      definition: {
        QueryLanguage: 'JSONata',
        Type: 'Parallel',
        Branches: [BRANCH('B1'), BRANCH('B2')],
        Output: '{% $states.result %}',
        End: true,
      },
      input: HELLO,
      mock: { result: [1, 2] },
    },
    ['input'],
  ],
  [
    'JSONata Map with ToleratedFailureCount (mocked)',
    {
      definition: {
        QueryLanguage: 'JSONata',
        Type: 'Map',
        Items: '{% $states.input.Values %}',
        ToleratedFailureCount: 1,
        ItemProcessor: BRANCH('P'),
        End: true,
      },
      input: { Values: [1, 2, 3] },
      mock: { result: [1, 1, 1] },
    },
    ['input', 'maxConcurrency', 'toleratedFailureCount'],
  ],
  [
    'JSONPath Map in a whole machine (mocked)',
    {
      definition: {
        StartAt: 'State0',
        States: {
          State0: {
            Type: 'Map',
            ItemsPath: '$.Values',
            ItemProcessor: BRANCH('HandleItem'),
            ToleratedFailureCount: 2,
            End: true,
          },
        },
      },
      stateName: 'State0',
      input: { Values: [1, 2, 3] },
      mock: { errorOutput: { error: 'E', cause: 'C' } },
    },
    ['input', 'afterInputPath', 'afterItemsPath', 'maxConcurrency', 'toleratedFailureCount'],
  ],
];

describe('INFO', () => {
  it.each(CASES)('%s: no inspectionData at all', async (_name, call) => {
    const answer = await raw(call);
    expect(answer).not.toHaveProperty('inspectionData');
  });
});

describe('DEBUG', () => {
  it.each(CASES)('%s: exactly the keys AWS records', async (_name, call, keys) => {
    const answer = await testState({ ...call, inspectionLevel: 'DEBUG' });
    expect(Object.keys(answer.inspectionData).sort()).toEqual([...keys].sort());
  });

  it('shows each JSONPath step of a Pass: InputPath, Parameters, ResultPath (recorded: IO_PASS_STATE)', async () => {
    const pass = {
      Type: 'Pass',
      InputPath: '$.initialData',
      Parameters: { staticValue: 'some value', 'inputValue.$': '$.fieldFromInput' },
      ResultPath: '$.modifiedData',
      End: true,
    };
    const modified = { staticValue: 'some value', inputValue: 'value from input' };
    expect(await testState({ definition: pass, input: NESTED, inspectionLevel: 'DEBUG' })).toEqual({
      status: 'SUCCEEDED',
      output: { ...NESTED, modifiedData: modified },
      inspectionData: {
        input: NESTED,
        afterInputPath: NESTED.initialData,
        afterParameters: modified,
        afterResultSelector: modified,
        afterResultPath: { ...NESTED, modifiedData: modified },
      },
    });
  });

  it('shows the ResultSelector step of a Task on its own', async () => {
    const task = {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: 'f' },
      ResultSelector: { 'code.$': '$.StatusCode' },
      ResultPath: '$.r',
      OutputPath: '$.r',
      End: true,
    };
    const answer = await testState({
      definition: task,
      input: { a: 1 },
      inspectionLevel: 'DEBUG',
      mock: { result: { StatusCode: 200 } },
    });
    expect(answer.inspectionData).toMatchObject({
      result: { StatusCode: 200 },
      afterResultSelector: { code: 200 },
      afterResultPath: { a: 1, r: { code: 200 } },
    });
    expect(answer.output).toEqual({ code: 200 });
  });

  it('shows the variables in scope only when there are some (recorded: test_state_with_variables)', async () => {
    const pass = { QueryLanguage: 'JSONata', Type: 'Pass', Output: '{% $x %}', End: true };
    expect(
      (await testState({ definition: pass, variables: { x: 1 }, inspectionLevel: 'DEBUG' })).inspectionData,
    ).toEqual({ input: {}, variables: { x: 1 } });
    expect((await testState({ definition: pass, variables: {}, inspectionLevel: 'DEBUG' })).inspectionData).toEqual({
      input: {},
    });
  });

  it('reports a Map without MaxConcurrency as maxConcurrency 0 (recorded)', async () => {
    const map = {
      QueryLanguage: 'JSONata',
      Type: 'Map',
      ToleratedFailurePercentage: 1,
      ItemProcessor: BRANCH('P'),
      End: true,
    };
    const answer = await testState({
      definition: map,
      input: [1, 2, 3],
      inspectionLevel: 'DEBUG',
      mock: { result: [1, 1, 1] },
    });
    expect(answer.inspectionData).toEqual({ input: [1, 2, 3], maxConcurrency: 0, toleratedFailurePercentage: 1 });
  });

  it('keeps the text of a value taken over untouched byte for byte (recorded: a mocked "[1, 1, 1]" came back with its spaces)', async () => {
    const task = {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: 'f' },
      End: true,
    };
    const answer = await raw({
      definition: task,
      input: '{"a":  1}',
      inspectionLevel: 'DEBUG',
      mock: { result: '[1, 1, 1]', fieldValidationMode: 'NONE' },
    });
    expect(answer.output).toBe('[1, 1, 1]');
    expect(answer.inspectionData.input).toBe('{"a":  1}');
    expect(answer.inspectionData.result).toBe('[1, 1, 1]');
  });
});

describe('TRACE', () => {
  it.each(CASES)('%s: the same answer as DEBUG for a state that is not an HTTP Task', async (_name, call) => {
    const debug = await testState({ ...call, inspectionLevel: 'DEBUG' });
    const trace = await testState({ ...call, inspectionLevel: 'TRACE' });
    expect(trace).toEqual(debug);
  });
});
