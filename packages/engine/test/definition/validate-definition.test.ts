import { describe, expect, it } from 'vitest';
import { InvalidDefinitionError, validateDefinition } from '../../src/definition';
import { workflows } from '../../../../statemachines';
import { compileWorkflow } from '@autosave/workflow';
import { localPlaceholderValues, substitutePlaceholders } from '../../../workflow/src/placeholders';

const LAMBDA = 'arn:aws:states:::lambda:invoke';
type Json = Record<string, unknown>;

/** A JSONPath machine: A (Task) -> B (Pass, end), with `a`/`b` fields merged in. */
function jsonPathMachine(a: Json = {}, b: Json = {}, top: Json = {}): Json {
  return {
    StartAt: 'A',
    States: { A: { Type: 'Task', Resource: LAMBDA, Next: 'B', ...a }, B: { Type: 'Pass', End: true, ...b } },
    ...top,
  };
}
function jsonataMachine(a: Json = {}, b: Json = {}): Json {
  return {
    QueryLanguage: 'JSONata',
    StartAt: 'A',
    States: { A: { Type: 'Task', Resource: LAMBDA, Next: 'B', ...a }, B: { Type: 'Pass', End: true, ...b } },
  };
}

function refusal(definition: Json | string): InvalidDefinitionError {
  try {
    validateDefinition(typeof definition === 'string' ? definition : JSON.stringify(definition));
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidDefinitionError);
    return err as InvalidDefinitionError;
  }
  throw new Error('expected the definition to be refused');
}

describe('validateDefinition', () => {
  describe('accepts', () => {
    it('a JSONPath machine, with the lookup and the default query language', () => {
      const prepared = validateDefinition(
        JSON.stringify(jsonPathMachine({ Parameters: { 'x.$': "States.Format('{}', $.a)" } })),
      );
      expect(prepared.queryLanguage).toBe('JSONPath');
      expect(prepared.root).toEqual({ path: [], startAt: 'A', stateNames: ['A', 'B'] });
      expect(prepared.states.get('A')?.queryLanguage).toBe('JSONPath');
      expect(prepared.states.get('B')?.definition).toEqual({ Type: 'Pass', End: true });
    });

    it('a JSONata state inside a JSONPath machine', () => {
      const prepared = validateDefinition(
        JSON.stringify(jsonPathMachine({ QueryLanguage: 'JSONata', Arguments: { k: '{% $states.input.k %}' } })),
      );
      expect(prepared.states.get('A')?.queryLanguage).toBe('JSONata');
      expect(prepared.states.get('B')?.queryLanguage).toBe('JSONPath');
    });

    it('nested Parallel branches and Map item processors, each with its own StartAt/States', () => {
      const definition = {
        QueryLanguage: 'JSONata',
        StartAt: 'Fan',
        States: {
          Fan: {
            Type: 'Parallel',
            Next: 'Each',
            Branches: [
              { StartAt: 'B1', States: { B1: { Type: 'Pass', End: true } } },
              { StartAt: 'B2', States: { B2: { Type: 'Wait', Seconds: 1, Next: 'B3' }, B3: { Type: 'Succeed' } } },
            ],
          },
          Each: {
            Type: 'Map',
            Items: '{% $states.input %}',
            MaxConcurrency: 2,
            ItemProcessor: {
              ProcessorConfig: { Mode: 'INLINE' },
              StartAt: 'Item',
              States: {
                Item: {
                  Type: 'Task',
                  Resource: LAMBDA,
                  Arguments: { FunctionName: 'f', Payload: '{% $states.input %}' },
                  End: true,
                },
              },
            },
            End: true,
          },
        },
      };
      const prepared = validateDefinition(JSON.stringify(definition));
      expect([...prepared.states.keys()]).toEqual(['Fan', 'B1', 'B2', 'B3', 'Each', 'Item']);
      expect(prepared.states.get('Fan')?.branches).toEqual([
        { path: ['Fan', 0], startAt: 'B1', stateNames: ['B1'] },
        { path: ['Fan', 1], startAt: 'B2', stateNames: ['B2', 'B3'] },
      ]);
      expect(prepared.states.get('B3')?.list.path).toEqual(['Fan', 1]);
      expect(prepared.states.get('Each')?.itemProcessor).toEqual({
        path: ['Each', 'items'],
        startAt: 'Item',
        stateNames: ['Item'],
      });
      expect(prepared.states.get('Item')?.queryLanguage).toBe('JSONata');
    });

    const supportedResources = [
      'arn:aws:states:::lambda:invoke',
      'arn:aws:states:::lambda:invoke.waitForTaskToken',
      'arn:aws:lambda:eu-west-1:111122223333:function:my-fn',
      'arn:aws:lambda:us-east-1:123456789012:function:my-fn:live',
      'arn:aws:states:::states:startExecution',
      'arn:aws:states:::states:startExecution.sync',
      'arn:aws:states:::states:startExecution.sync:2',
      'arn:aws:states:::sqs:sendMessage',
      'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
      'arn:aws:states:::dynamodb:getItem',
      'arn:aws:states:::dynamodb:putItem',
      'arn:aws:states:::dynamodb:updateItem',
      'arn:aws:states:::dynamodb:deleteItem',
    ];
    it(`every supported resource (${supportedResources.length}, one machine: asl-validator costs ~0.5 s a call)`, () => {
      const States = Object.fromEntries(
        supportedResources.map((Resource, i) => [
          `T${i}`,
          { Type: 'Task', Resource, ...(i === supportedResources.length - 1 ? { End: true } : { Next: `T${i + 1}` }) },
        ]),
      );
      const prepared = validateDefinition(JSON.stringify({ StartAt: 'T0', States }));
      expect(prepared.states.size).toBe(supportedResources.length);
    });

    it('Retry and Catch with States.ALL alone and last', () => {
      const a = {
        Retry: [
          { ErrorEquals: ['Lambda.ServiceException', 'Custom'], MaxAttempts: 0 },
          { ErrorEquals: ['States.ALL'], MaxAttempts: 5, BackoffRate: 2, JitterStrategy: 'FULL', MaxDelaySeconds: 60 },
        ],
        Catch: [
          { ErrorEquals: ['States.Timeout'], Next: 'B' },
          { ErrorEquals: ['States.ALL'], Next: 'B', ResultPath: '$.error' },
        ],
      };
      expect(() => validateDefinition(JSON.stringify(jsonPathMachine(a)))).not.toThrow();
    });

    it.each(workflows.map((workflow) => [workflow.name, workflow] as const))(
      'the compiled %s workflow',
      (name, workflow) => {
        const asl = substitutePlaceholders(compileWorkflow(workflow), localPlaceholderValues(name));
        const prepared = validateDefinition(JSON.stringify(asl));
        expect(prepared.queryLanguage).toBe('JSONata');
        expect(prepared.states.size).toBeGreaterThan(1);
      },
    );
  });

  describe('refuses, naming the state and the field', () => {
    it.each<[string, Json | string, string, RegExp]>([
      ['bad JSON', '{"StartAt": ', 'INVALID_JSON_DESCRIPTION', /not valid JSON/],
      [
        'a non-object',
        '[1]',
        'SCHEMA_VALIDATION_FAILED',
        /'SCHEMA_VALIDATION_FAILED: Definition must be a valid JSON object'/,
      ],
      [
        'an unknown top-level QueryLanguage',
        { ...jsonPathMachine(), QueryLanguage: 'XPath' },
        'SCHEMA_VALIDATION_FAILED',
        /QueryLanguage must be JSONata or JSONPath/,
      ],
      [
        'an unknown StartAt',
        { ...jsonPathMachine(), StartAt: 'Nope' },
        'MISSING_TRANSITION_TARGET',
        /StartAt names the state 'Nope'.* at \/StartAt/,
      ],
      [
        'an unknown Next',
        jsonPathMachine({ Next: 'Nope' }),
        'MISSING_TRANSITION_TARGET',
        /State 'A' field Next names 'Nope'.* at \/States\/A\/Next/,
      ],
      [
        'an unknown Catch Next',
        jsonPathMachine({ Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Nope' }] }),
        'MISSING_TRANSITION_TARGET',
        /State 'A' field Catch\[0\]\/Next names 'Nope'/,
      ],
      [
        'an unknown Choice Next and Default',
        {
          StartAt: 'C',
          States: {
            C: { Type: 'Choice', Choices: [{ Variable: '$.x', IsPresent: true, Next: 'Gone' }], Default: 'Away' },
            D: { Type: 'Succeed' },
          },
        },
        'MISSING_TRANSITION_TARGET',
        /State 'C' field Default names 'Away'.*State 'C' field Choices\[0\]\/Next names 'Gone'/,
      ],
      [
        'a Next out of a Parallel branch',
        {
          StartAt: 'P',
          States: {
            P: {
              Type: 'Parallel',
              End: true,
              Branches: [{ StartAt: 'X', States: { X: { Type: 'Pass', Next: 'P' } } }],
            },
          },
        },
        'MISSING_TRANSITION_TARGET',
        /State 'X' field Next names 'P'.* at \/States\/P\/Branches\/0\/States\/X\/Next/,
      ],
      [
        'an unknown state Type',
        jsonPathMachine({ Type: 'Sleep' }),
        'SCHEMA_VALIDATION_FAILED',
        /The field 'Type' should have one of these values: \[Task, Wait, Pass, Succeed, Fail, Choice, Parallel, Map\] at \/States\/A\/Type/,
      ],
      [
        'duplicate state names across branches',
        {
          StartAt: 'P',
          States: {
            P: { Type: 'Parallel', Next: 'X', Branches: [{ StartAt: 'X', States: { X: { Type: 'Succeed' } } }] },
            X: { Type: 'Succeed' },
          },
        },
        'DUPLICATE_STATE_NAMES',
        /The state name 'X' is used more than once/,
      ],
      [
        'InputPath in a JSONata state',
        jsonataMachine({ InputPath: '$.x' }),
        'SCHEMA_VALIDATION_FAILED',
        /State 'A' uses JSONata, which has no field 'InputPath'.* at \/States\/A\/InputPath/,
      ],
      [
        'Parameters in a JSONata state',
        jsonataMachine({ Parameters: {} }),
        'SCHEMA_VALIDATION_FAILED',
        /no field 'Parameters'/,
      ],
      [
        'ResultPath in a JSONata state',
        jsonataMachine({ ResultPath: '$.x' }),
        'SCHEMA_VALIDATION_FAILED',
        /no field 'ResultPath'/,
      ],
      [
        'Pass Result in a JSONata state',
        jsonataMachine({}, { Result: 1 }),
        'SCHEMA_VALIDATION_FAILED',
        /State 'B' uses JSONata, which has no field 'Result'/,
      ],
      [
        'a Catch ResultPath in a JSONata state',
        jsonataMachine({ Catch: [{ ErrorEquals: ['States.ALL'], Next: 'B', ResultPath: '$.e' }] }),
        'SCHEMA_VALIDATION_FAILED',
        /Catch\[0\]\/ResultPath/,
      ],
      [
        'Arguments in a JSONPath state',
        jsonPathMachine({ Arguments: {} }),
        'SCHEMA_VALIDATION_FAILED',
        /State 'A' uses JSONPath, which has no field 'Arguments'/,
      ],
      [
        'Output in a JSONPath state',
        jsonPathMachine({}, { Output: 1 }),
        'SCHEMA_VALIDATION_FAILED',
        /State 'B' uses JSONPath, which has no field 'Output'/,
      ],
      [
        'a JSONPath state in a JSONata machine',
        jsonataMachine({ QueryLanguage: 'JSONPath' }),
        'SCHEMA_VALIDATION_FAILED',
        /'QueryLanguage' can not be 'JSONPath' if set to 'JSONata' for whole state machine at \/States\/A'/,
      ],
      [
        'an unclosed {% expression',
        jsonataMachine({ Arguments: { k: '{% $states.input' } }),
        'SCHEMA_VALIDATION_FAILED',
        /State 'A' field Arguments\/k has a malformed JSONata expression/,
      ],
      [
        'a JSONata syntax error',
        jsonataMachine({}, { Output: '{% $states.input.( %}' }),
        'SCHEMA_VALIDATION_FAILED',
        /State 'B': The JSONata expression .* specified for the field 'Output' is invalid/,
      ],
      [
        'a JSONata syntax error in a Catch Output',
        jsonataMachine({ Catch: [{ ErrorEquals: ['States.ALL'], Next: 'B', Output: '{% ]] %}' }] }),
        'SCHEMA_VALIDATION_FAILED',
        /field 'Catch\[0\]\/Output' is invalid/,
      ],
      [
        'a JSONata syntax error in Assign',
        jsonataMachine({ Assign: { v: '{% 1 + %}' } }),
        'SCHEMA_VALIDATION_FAILED',
        /field 'Assign\/v' is invalid/,
      ],
      [
        'a JSONata Choice rule without Condition',
        {
          QueryLanguage: 'JSONata',
          StartAt: 'C',
          States: { C: { Type: 'Choice', Choices: [{ Next: 'D' }], Default: 'D' }, D: { Type: 'Succeed' } },
        },
        'SCHEMA_VALIDATION_FAILED',
        /State 'C' uses JSONata: Choices\[0\] needs a Condition/,
      ],
      [
        'a JSONPath rule operator in a JSONata Choice',
        {
          QueryLanguage: 'JSONata',
          StartAt: 'C',
          States: {
            C: { Type: 'Choice', Choices: [{ Condition: '{% true %}', Variable: '$.x', Next: 'D' }] },
            D: { Type: 'Succeed' },
          },
        },
        'SCHEMA_VALIDATION_FAILED',
        /no Choice rule field 'Variable'/,
      ],
      [
        'a reserved variable name',
        jsonataMachine({ Assign: { states: 1 } }),
        'SCHEMA_VALIDATION_FAILED',
        /assigns the invalid variable name 'states'/,
      ],
      [
        'an invalid variable name',
        jsonPathMachine({ Assign: { '1bad.$': '$.x' } }),
        'SCHEMA_VALIDATION_FAILED',
        /assigns the invalid variable name '1bad'/,
      ],
      [
        'an unknown intrinsic',
        jsonPathMachine({ Parameters: { 'x.$': 'States.Nope(1)' } }),
        'SCHEMA_VALIDATION_FAILED',
        /The value for the field 'x\.\$' must be a valid JSONPath or a valid intrinsic function call at \/States\/A\/Parameters'/,
      ],
      [
        'a malformed intrinsic',
        jsonPathMachine({ ResultSelector: { 'x.$': "States.Format('a'" } }),
        'SCHEMA_VALIDATION_FAILED',
        /The value for the field 'x\.\$' must be a valid JSONPath or a valid intrinsic function call at \/States\/A\/ResultSelector'/,
      ],
      [
        'a wrong intrinsic arity',
        jsonPathMachine({}, { Parameters: { nested: { 'x.$': 'States.UUID(1)' } } }),
        'SCHEMA_VALIDATION_FAILED',
        /The value for the field 'x\.\$' must be a valid JSONPath or a valid intrinsic function call at \/States\/B\/Parameters'/,
      ],
      [
        'a path that is not a path',
        jsonPathMachine({ InputPath: 'x' }),
        'SCHEMA_VALIDATION_FAILED',
        /State 'A' field InputPath must be a JSONPath/,
      ],
      [
        'a ResultPath that is not a reference path',
        jsonPathMachine({ ResultPath: '$.a[*]' }),
        'SCHEMA_VALIDATION_FAILED',
        /State 'A' field ResultPath must be null or a reference path/,
      ],
      [
        'a Parameters .$ value that is not a path',
        jsonPathMachine({ Parameters: { 'x.$': 'plain' } }),
        'SCHEMA_VALIDATION_FAILED',
        /The value for the field 'x\.\$' must be a valid JSONPath or a valid intrinsic function call at \/States\/A\/Parameters'/,
      ],
      [
        'an unknown Choice operator',
        {
          StartAt: 'C',
          States: {
            C: { Type: 'Choice', Choices: [{ Variable: '$.x', StringContains: 'a', Next: 'D' }] },
            D: { Type: 'Succeed' },
          },
        },
        'SCHEMA_VALIDATION_FAILED',
        /State 'C' Choices\[0\]: needs exactly one comparison operator \(StringContains given\)/,
      ],
      [
        'a Choice operand of the wrong type',
        {
          StartAt: 'C',
          States: {
            C: { Type: 'Choice', Choices: [{ Not: { Variable: '$.x', NumericEquals: '5' }, Next: 'D' }] },
            D: { Type: 'Succeed' },
          },
        },
        'SCHEMA_VALIDATION_FAILED',
        /Choices\[0\]\/Not: NumericEquals needs a number/,
      ],
      [
        'a Choice timestamp that is not RFC 3339',
        {
          StartAt: 'C',
          States: {
            C: { Type: 'Choice', Choices: [{ Variable: '$.t', TimestampLessThan: 'yesterday', Next: 'D' }] },
            D: { Type: 'Succeed' },
          },
        },
        'SCHEMA_VALIDATION_FAILED',
        /TimestampLessThan needs an RFC 3339 timestamp/,
      ],
      [
        'States.ALL not alone',
        jsonPathMachine({ Retry: [{ ErrorEquals: ['States.ALL', 'Custom'] }] }),
        'SCHEMA_VALIDATION_FAILED',
        /State 'A' field Retry\[0\]\/ErrorEquals: States\.ALL must appear alone, in the last retrier/,
      ],
      [
        'States.ALL not last',
        jsonPathMachine({
          Catch: [
            { ErrorEquals: ['States.ALL'], Next: 'B' },
            { ErrorEquals: ['X'], Next: 'B' },
          ],
        }),
        'SCHEMA_VALIDATION_FAILED',
        /Catch\[0\]\/ErrorEquals: States\.ALL must appear alone, in the last catcher/,
      ],
      [
        'an empty ErrorEquals',
        jsonPathMachine({ Retry: [{ ErrorEquals: [] }] }),
        'SCHEMA_VALIDATION_FAILED',
        /Retry\[0\]\/ErrorEquals must be a non-empty array/,
      ],
      [
        'a service integration AWS does not have',
        jsonPathMachine({ Resource: 'arn:aws:states:::sns:createTopic' }),
        'SCHEMA_VALIDATION_FAILED',
        /The resource provided arn:aws:states:::sns:createTopic is not recognized\./,
      ],
      [
        'lambda:invoke.sync',
        jsonPathMachine({ Resource: 'arn:aws:states:::lambda:invoke.sync' }),
        'SCHEMA_VALIDATION_FAILED',
        /The resource provided arn:aws:states:::lambda:invoke.sync is not recognized\./,
      ],
      [
        'dynamodb:query',
        jsonPathMachine({ Resource: 'arn:aws:states:::dynamodb:query' }),
        'SCHEMA_VALIDATION_FAILED',
        /The resource provided arn:aws:states:::dynamodb:query is not recognized\./,
      ],
      [
        'an ItemReader on an inline Map',
        {
          StartAt: 'M',
          States: {
            M: {
              Type: 'Map',
              End: true,
              ItemReader: { Resource: 'arn:aws:states:::s3:getObject' },
              ItemProcessor: { StartAt: 'I', States: { I: { Type: 'Succeed' } } },
            },
          },
        },
        'SCHEMA_VALIDATION_FAILED',
        /Map state 'M' field ItemReader is only supported in DISTRIBUTED mode/,
      ],
      [
        'a Map processor mode that is neither INLINE nor DISTRIBUTED',
        {
          StartAt: 'M',
          States: {
            M: {
              Type: 'Map',
              End: true,
              ItemProcessor: { ProcessorConfig: { Mode: 'REMOTE' }, StartAt: 'I', States: { I: { Type: 'Succeed' } } },
            },
          },
        },
        'SCHEMA_VALIDATION_FAILED',
        /Map state 'M' field ItemProcessor\.ProcessorConfig\.Mode must be INLINE or DISTRIBUTED, got "REMOTE"/,
      ],
      [
        'a Map without ItemProcessor',
        { StartAt: 'M', States: { M: { Type: 'Map', End: true } } },
        'SCHEMA_VALIDATION_FAILED',
        /Map state 'M' needs an ItemProcessor/,
      ],
      [
        'no terminal state (asl-validator)',
        { StartAt: 'A', States: { A: { Type: 'Pass', Next: 'B' }, B: { Type: 'Pass', Next: 'A' } } },
        'MISSING_TERMINAL_STATE',
        /missing a terminal state/,
      ],
      [
        'a Task without End or Next (asl-validator)',
        { StartAt: 'A', States: { A: { Type: 'Task', Resource: LAMBDA } } },
        'TERMINAL_STATE_WITH_NEXT',
        /State "A" MUST contain exactly one of "End", "Next"/,
      ],
    ])('%s', (_, definition, code, message) => {
      const err = refusal(definition);
      expect(err.name).toBe('InvalidDefinition');
      expect(err.problems.map((p) => p.code)).toContain(code);
      expect(err.message).toMatch(/^Invalid State Machine Definition: '/);
      expect(err.message).toMatch(message);
    });

    it('lists every problem at once', () => {
      const err = refusal(jsonataMachine({ InputPath: '$', Next: 'Nope', Arguments: '{% ( %}' }));
      expect(err.problems.length).toBeGreaterThanOrEqual(3);
    });

    it('does not change the definition it is given (asl-validator gets a copy)', () => {
      const text = JSON.stringify(jsonPathMachine());
      const prepared = validateDefinition(text);
      expect(JSON.stringify(prepared.definition)).toBe(text);
    });
  });
});
