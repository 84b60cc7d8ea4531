/**
 * Hostile input at the engine's API gets the service's own error (never a JavaScript fault): operation
 * names from the prototype chain, names the service refuses, JSON nested past the limit, definitions
 * over 1 MB, pagination tokens the engine never issued.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFINITION_LIMIT_BYTES, MAX_JSON_NESTING_DEPTH } from '../../workflow/src/config/constants';
import { EngineHarness, jsonata } from './support/engine-harness';

const nested = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);
const role = 'arn:aws:iam::123456789012:role/test';

describe('engine API under hostile input', () => {
  let h: EngineHarness;
  let machine: string;
  beforeAll(async () => {
    h = await new EngineHarness().start();
    machine = await h.machine(jsonata({ Echo: { Type: 'Pass', End: true } }), 'echo');
  });
  afterAll(() => h.close());

  const rejects = (op: string, input: object, name: string) =>
    expect(h.call(op, input)).rejects.toMatchObject({ name });

  describe('operation dispatch', () => {
    it.each([
      'constructor',
      'toString',
      '__proto__',
      'valueOf',
      'hasOwnProperty',
      'isPrototypeOf',
      '__defineGetter__',
      'toLocaleString',
    ])('%s is an unknown operation', (op) => rejects(op, {}, 'UnknownOperationException'));
  });

  describe('names', () => {
    it.each([
      ['a lone high surrogate', 'bad\ud800'],
      ['a lone low surrogate', '\udc00bad'],
      ['81 characters', 'a'.repeat(81)],
      ['U+FFFE', 'a\ufffe'],
      ['a tab', 'a\tb'],
      ['a non-breaking space', 'a\u00a0b'],
      ['U+0085 (a C1 control)', 'a\u0085b'],
      ['a slash', 'a/b'],
    ])('a state machine name with %s is InvalidName', (_what, name) =>
      rejects(
        'CreateStateMachine',
        { name, definition: JSON.stringify(jsonata({ P: { Type: 'Pass', End: true } })), roleArn: role },
        'InvalidName',
      ),
    );
    it('an execution name with a lone surrogate is InvalidName', () =>
      rejects('StartExecution', { stateMachineArn: machine, name: 'run\udfff' }, 'InvalidName'));
    it('an alias name with a lone surrogate is InvalidName', () =>
      rejects('CreateStateMachineAlias', { name: 'live\ud83d', routingConfiguration: [] }, 'InvalidName'));
    it('80 characters outside the BMP are a valid name (counted as characters)', async () => {
      await expect(h.machine(jsonata({ P: { Type: 'Pass', End: true } }), '😀'.repeat(80))).resolves.toContain(
        ':stateMachine:',
      );
    });
  });

  describe('nesting depth', () => {
    it('an execution input of 5,000 nested arrays is InvalidExecutionInput', () =>
      rejects('StartExecution', { stateMachineArn: machine, input: nested(5000) }, 'InvalidExecutionInput'));
    it('a definition whose Result nests 5,000 deep is InvalidDefinition on Create, Update and Validate', async () => {
      const deep = `{"StartAt":"P","States":{"P":{"Type":"Pass","Result":${nested(5000)},"End":true}}}`;
      await rejects('CreateStateMachine', { name: 'deep', definition: deep, roleArn: role }, 'InvalidDefinition');
      await rejects('UpdateStateMachine', { stateMachineArn: machine, definition: deep }, 'InvalidDefinition');
      const validated = await h.call('ValidateStateMachineDefinition', { definition: deep });
      expect(validated).toMatchObject({
        result: 'FAIL',
        diagnostics: [expect.objectContaining({ code: 'SCHEMA_VALIDATION_FAILED' })],
      });
    });
    it('TestState refuses a definition nested 10,000 deep as CreateStateMachine does (it answered 500, Maximum call stack size exceeded)', async () => {
      const deep = `{"Type":"Pass","Result":${nested(10_000)},"End":true}`;
      await rejects(
        'CreateStateMachine',
        { name: 'deep-10k', definition: `{"StartAt":"P","States":{"P":${deep}}}`, roleArn: role },
        'InvalidDefinition',
      );
      await rejects('TestState', { definition: deep }, 'InvalidDefinition');
      await rejects(
        'TestState',
        { definition: `{"StartAt":"P","States":{"P":${deep}}}`, stateName: 'P' },
        'InvalidDefinition',
      );
    });
    it.each([
      ['input', { input: nested(10_000) }, 'InvalidExecutionInput'],
      ['variables', { variables: `{"v":${nested(10_000)}}` }, 'ValidationException'],
      ['context', { context: `{"v":${nested(10_000)}}`, mock: { result: '{}' } }, 'ValidationException'],
      ['a mocked result', { mock: { result: `{"Payload":${nested(10_000)}}` } }, 'ValidationException'],
    ])('TestState refuses %s nested 10,000 deep, never with a 500', async (_what, fields, name) => {
      const definition = JSON.stringify({
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Arguments: { FunctionName: 'f' },
        End: true,
        QueryLanguage: 'JSONata',
      });
      await rejects('TestState', { definition, roleArn: role, ...fields }, name);
    });
    it('a task output nested 5,000 deep is InvalidOutput', () =>
      rejects('SendTaskSuccess', { taskToken: `AAAA${'x'.repeat(128)}`, output: nested(5000) }, 'InvalidOutput'));
    it(`an input nested exactly ${MAX_JSON_NESTING_DEPTH} deep runs through JSONata and JSONPath states`, async () => {
      const arn = await h.machine({
        StartAt: 'Copy',
        States: {
          Copy: { Type: 'Pass', QueryLanguage: 'JSONata', Output: '{% $states.input %}', Next: 'Path' },
          Path: { Type: 'Pass', InputPath: '$', Parameters: { 'v.$': '$.v' }, End: true },
        },
      });
      const input = `{"v":${nested(MAX_JSON_NESTING_DEPTH - 1)}}`;
      const run = await h.run(arn, JSON.parse(input));
      expect(await h.describe(run)).toMatchObject({ status: 'SUCCEEDED', output: input });
    });
  });

  describe('the 1 MB definition limit', () => {
    const padded = (bytes: number) => {
      const base = JSON.stringify(jsonata({ P: { Type: 'Pass', Comment: '', End: true } }));
      return base.replace('"Comment":""', `"Comment":"${'x'.repeat(bytes - base.length)}"`);
    };
    it('a definition of exactly 1 MB is accepted', async () => {
      const definition = padded(DEFINITION_LIMIT_BYTES);
      expect(Buffer.byteLength(definition)).toBe(DEFINITION_LIMIT_BYTES);
      await expect(h.call('CreateStateMachine', { name: 'one-mb', definition, roleArn: role })).resolves.toHaveProperty(
        'stateMachineArn',
      );
    });
    it('a 1.1 MB definition is refused by Create and Update with ValidationException', async () => {
      const definition = padded(Math.round(1.1 * DEFINITION_LIMIT_BYTES));
      await rejects('CreateStateMachine', { name: 'too-big', definition, roleArn: role }, 'ValidationException');
      await rejects('UpdateStateMachine', { stateMachineArn: machine, definition }, 'ValidationException');
      await expect(h.call('DescribeStateMachine', { stateMachineArn: machine })).resolves.toMatchObject({
        definition: JSON.stringify(jsonata({ Echo: { Type: 'Pass', End: true } })),
      });
    });
  });

  describe('pagination tokens', () => {
    const token = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    it.each([
      ['an offset of 1e300', token({ o: 1e300 })],
      ['a negative offset', token({ o: -1 })],
      ['a fraction', token({ o: 0.5 })],
      ['a string offset', token({ o: '1' })],
      ['null', token(null)],
      ['not base64 JSON', '%%%'],
      ['a padded spelling of a real token', `${token({ o: 1 })}=`],
      ['2 KB of junk', 'A'.repeat(2048)],
    ])('%s is InvalidToken on every list operation', async (_what, nextToken) => {
      await rejects('ListStateMachines', { nextToken }, 'InvalidToken');
      await rejects('ListExecutions', { stateMachineArn: machine, nextToken }, 'InvalidToken');
      await rejects('ListStateMachineVersions', { stateMachineArn: machine, nextToken }, 'InvalidToken');
      await rejects('ListStateMachineAliases', { stateMachineArn: machine, nextToken }, 'InvalidToken');
    });
    it('a token the engine issued still pages', async () => {
      await h.machine(jsonata({ P: { Type: 'Pass', End: true } }), 'page-2');
      const first = await h.call('ListStateMachines', { maxResults: 1 });
      const second = await h.call('ListStateMachines', { maxResults: 1, nextToken: first.nextToken });
      expect(second.stateMachines[0].name).not.toBe(first.stateMachines[0].name);
    });
  });
});
