import { describe, expect, it } from 'vitest';
import { dataFlowFor, type EvaluationScope, type StateDefinition } from '../../src/dataflow';

const flow = dataFlowFor('JSONPath');

const context = { Execution: { Name: 'run-1', Id: 'exec-arn' }, State: { Name: 'S' }, Task: { Token: 'tok-1' } };
const input = {
  order: { id: 'o-1', qty: 2, items: [{ sku: 'a' }, { sku: 'b' }] },
  user: 'ada',
  wait: 30,
  at: '2026-05-01T00:00:00Z',
  limits: { t: 60, h: 10 },
};

function scope(overrides: Partial<EvaluationScope> = {}): EvaluationScope {
  return { input, context, variables: { region: 'eu', cfg: { retries: 2 } }, ...overrides };
}
const state = (fields: Record<string, unknown>, type = 'Task'): StateDefinition => ({ Type: type, ...fields });

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

describe('JSONPath data flow', () => {
  describe('effectiveInput (InputPath, Parameters)', () => {
    it.each([
      ['no fields: the input', {}, input],
      ['InputPath', { InputPath: '$.order' }, input.order],
      ['InputPath null: {}', { InputPath: null }, {}],
      [
        'Parameters with literals and paths',
        { Parameters: { fixed: 1, 'id.$': '$.order.id', nested: { 'who.$': '$.user' } } },
        { fixed: 1, id: 'o-1', nested: { who: 'ada' } },
      ],
      ['InputPath then Parameters', { InputPath: '$.order', Parameters: { 'q.$': '$.qty' } }, { q: 2 }],
      [
        'context paths',
        { Parameters: { 'token.$': '$$.Task.Token', 'run.$': '$$.Execution.Name' } },
        { token: 'tok-1', run: 'run-1' },
      ],
      ['variables', { Parameters: { 'r.$': '$region', 'n.$': '$cfg.retries' } }, { r: 'eu', n: 2 }],
      [
        'intrinsic functions',
        { Parameters: { 'msg.$': "States.Format('{} ordered {}', $.user, $.order.qty)" } },
        { msg: 'ada ordered 2' },
      ],
      [
        'objects inside arrays',
        { Parameters: { list: [{ 'id.$': '$.order.id' }, 'plain'] } },
        { list: [{ id: 'o-1' }, 'plain'] },
      ],
      ['indefinite paths', { Parameters: { 'skus.$': '$.order.items[*].sku' } }, { skus: ['a', 'b'] }],
      ['a literal ending in $ is not a path', { Parameters: { price: '$5' } }, { price: '$5' }],
    ])('%s', async (_, fields, expected) => {
      expect(await flow.effectiveInput(state(fields), scope())).toEqual(expected);
    });

    it('Pass Result replaces the value', async () => {
      expect(
        await flow.effectiveInput(state({ Result: { fixed: true }, Parameters: { 'a.$': '$.user' } }, 'Pass'), scope()),
      ).toEqual({ fixed: true });
    });

    it('a Map state does not apply Parameters to its whole input (it is the per-item selector)', async () => {
      expect(
        await flow.effectiveInput(
          state({ InputPath: '$.order', Parameters: { 'x.$': '$$.Map.Item.Value' } }, 'Map'),
          scope(),
        ),
      ).toEqual(input.order);
    });

    it.each([
      ['a missing InputPath', { InputPath: '$.nope' }, 'States.Runtime'],
      ['a missing Parameters path', { Parameters: { 'x.$': '$.nope' } }, 'States.Runtime'],
      ['an undefined variable', { Parameters: { 'x.$': '$nope' } }, 'States.Runtime'],
      ['a failing intrinsic', { Parameters: { 'x.$': 'States.ArrayLength($.user)' } }, 'States.IntrinsicFailure'],
    ])('%s is %s', async (_, fields, name) => {
      expect((await failure(flow.effectiveInput(state(fields), scope()))).name).toBe(name);
    });
  });

  describe('output (ResultSelector, ResultPath, OutputPath)', () => {
    const result = { Payload: { ok: true, id: 7 }, StatusCode: 200 };
    it.each([
      ['no fields: the result', {}, result],
      ['ResultPath into a new key', { ResultPath: '$.res' }, { ...input, res: result }],
      ['ResultPath into a nested new key', { ResultPath: '$.a.b.c' }, { ...input, a: { b: { c: result } } }],
      [
        'ResultPath merges into an existing object',
        { ResultPath: '$.order.result' },
        { ...input, order: { ...input.order, result } },
      ],
      ['ResultPath null keeps the input', { ResultPath: null }, input],
      ['ResultPath $ replaces', { ResultPath: '$' }, result],
      [
        'ResultSelector',
        { ResultSelector: { 'ok.$': '$.Payload.ok', 'code.$': '$.StatusCode', 'run.$': '$$.Execution.Name' } },
        { ok: true, code: 200, run: 'run-1' },
      ],
      [
        'ResultSelector + ResultPath + OutputPath',
        { ResultSelector: { 'id.$': '$.Payload.id' }, ResultPath: '$.r', OutputPath: '$.r' },
        { id: 7 },
      ],
      ['OutputPath on the combined value', { ResultPath: '$.r', OutputPath: '$.user' }, 'ada'],
      ['OutputPath null', { OutputPath: null }, {}],
    ])('%s', async (_, fields, expected) => {
      expect(await flow.output(state(fields), scope({ result }))).toEqual(expected);
    });

    it('ResultPath uses the raw input, not the InputPath selection', async () => {
      expect(await flow.output(state({ InputPath: '$.order', ResultPath: '$.r' }), scope({ result: 1 }))).toEqual({
        ...input,
        r: 1,
      });
    });

    it.each(['Choice', 'Wait', 'Succeed'])('%s: InputPath then OutputPath', async (type) => {
      expect(await flow.output(state({ InputPath: '$.order', OutputPath: '$.items[0]' }, type), scope())).toEqual({
        sku: 'a',
      });
    });

    it.each([
      ['Pass with Result and ResultPath', { Result: 'R', ResultPath: '$.r' }, { ...input, r: 'R' }],
      ['Pass with Parameters', { Parameters: { 'u.$': '$.user' } }, { u: 'ada' }],
      ['Pass with nothing', {}, input],
    ])('%s (result computed when not given)', async (_, fields, expected) => {
      expect(await flow.output(state(fields, 'Pass'), scope())).toEqual(expected);
    });

    it.each([
      ['ResultPath through a string', { ResultPath: '$.user.x' }, 'States.ResultPathMatchFailure'],
      ['a missing OutputPath', { OutputPath: '$.nope' }, 'States.Runtime'],
      ['a missing ResultSelector path', { ResultSelector: { 'x.$': '$.nope' } }, 'States.Runtime'],
    ])('%s is %s', async (_, fields, name) => {
      expect((await failure(flow.output(state(fields), scope({ result })))).name).toBe(name);
    });
  });

  describe('assign (Assign)', () => {
    it('reads the result after ResultSelector in a Task', async () => {
      const s = state({
        ResultSelector: { 'id.$': '$.Payload.id' },
        Assign: { 'savedId.$': '$.id', fixed: 'x', 'runName.$': '$$.Execution.Name', 'old.$': '$region' },
      });
      expect(await flow.assign(s, scope({ result: { Payload: { id: 9 } } }))).toEqual({
        savedId: 9,
        fixed: 'x',
        runName: 'run-1',
        old: 'eu',
      });
    });

    it('reads the raw result without ResultSelector', async () => {
      expect(await flow.assign(state({ Assign: { 'p.$': '$.Payload' } }), scope({ result: { Payload: 1 } }))).toEqual({
        p: 1,
      });
    });

    it('reads the state input (after InputPath) in a Wait', async () => {
      expect(await flow.assign(state({ InputPath: '$.order', Assign: { 'q.$': '$.qty' } }, 'Wait'), scope())).toEqual({
        q: 2,
      });
    });

    it('reads the Result in a Pass', async () => {
      expect(await flow.assign(state({ Result: { v: 5 }, Assign: { 'v.$': '$.v' } }, 'Pass'), scope())).toEqual({
        v: 5,
      });
    });
  });

  describe('catchOutput', () => {
    const errorOutput = { Error: 'Boom', Cause: 'why' };
    it.each([
      ['default: the error output', {}, errorOutput],
      ['ResultPath into the input', { ResultPath: '$.error' }, { ...input, error: errorOutput }],
      ['ResultPath null', { ResultPath: null }, input],
    ])('%s', async (_, fields, expected) => {
      expect(
        (await flow.catchOutput({ ErrorEquals: ['States.ALL'], Next: 'X', ...fields }, scope({ errorOutput }))).output,
      ).toEqual(expected);
    });

    it('Assign reads the error output', async () => {
      expect(
        (
          await flow.catchOutput(
            { ErrorEquals: ['States.ALL'], Next: 'X', Assign: { 'e.$': '$.Error' } },
            scope({ errorOutput }),
          )
        ).assign,
      ).toEqual({ e: 'Boom' });
    });
  });

  describe('choose', () => {
    const choice = state(
      {
        InputPath: '$.order',
        OutputPath: '$.items',
        Choices: [
          { Variable: '$.qty', NumericGreaterThan: 5, Next: 'Bulk' },
          {
            And: [
              { Variable: '$.id', StringMatches: 'o-*' },
              { Variable: '$region', StringEquals: 'eu' },
            ],
            Next: 'EuOrder',
            Assign: { 'picked.$': '$.id' },
          },
        ],
        Default: 'Other',
        Assign: { always: true },
      },
      'Choice',
    );

    it('takes the first matching rule, with its Assign merged over the state Assign, and applies OutputPath', async () => {
      expect(await flow.choose(choice, scope())).toEqual({
        next: 'EuOrder',
        assign: { always: true, picked: 'o-1' },
        output: input.order.items,
      });
    });

    it('falls back to Default', async () => {
      expect((await flow.choose(choice, scope({ variables: { region: 'us' } }))).next).toBe('Other');
    });

    it('throws States.NoChoiceMatched without Default', async () => {
      const s = state({ Choices: [{ Variable: '$.user', StringEquals: 'bob', Next: 'B' }] }, 'Choice');
      expect((await failure(flow.choose(s, scope()))).name).toBe('States.NoChoiceMatched');
    });
  });

  describe('waitUntil', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    it.each([
      [{ Seconds: 5 }, now + 5000],
      [{ SecondsPath: '$.wait' }, now + 30_000],
      [{ Timestamp: '2026-02-01T00:00:00Z' }, Date.parse('2026-02-01T00:00:00Z')],
      [{ TimestampPath: '$.at' }, Date.parse('2026-05-01T00:00:00Z')],
      [{ InputPath: '$.limits', SecondsPath: '$.h' }, now + 10_000],
    ])('%j', async (fields, expected) => {
      expect(await flow.waitUntil(state(fields, 'Wait'), scope(), now)).toBe(expected);
    });

    it.each([[{ SecondsPath: '$.user' }], [{ SecondsPath: '$.nope' }], [{ TimestampPath: '$.user' }]])(
      '%j is a States.Runtime error',
      async (fields) => {
        expect((await failure(flow.waitUntil(state(fields, 'Wait'), scope(), now))).name).toBe('States.Runtime');
      },
    );
  });

  describe('Map', () => {
    it.each([
      ['ItemsPath', { ItemsPath: '$.order.items' }, input.order.items],
      ['InputPath then ItemsPath', { InputPath: '$.order', ItemsPath: '$.items' }, input.order.items],
      ['no ItemsPath: the input', {}, [1, 2]],
    ])('%s', async (_, fields, expected) => {
      const s = scope(_ === 'no ItemsPath: the input' ? { input: [1, 2] } : {});
      expect(await flow.mapItems(state(fields, 'Map'), s)).toEqual(expected);
    });

    it('an ItemsPath that is not an array is a States.Runtime error', async () => {
      expect((await failure(flow.mapItems(state({ ItemsPath: '$.user' }, 'Map'), scope()))).name).toBe(
        'States.Runtime',
      );
    });

    const itemScope = scope({ context: { ...context, Map: { Item: { Index: 1, Value: { sku: 'b' } } } } });
    it.each([
      [
        'ItemSelector',
        { ItemSelector: { 'sku.$': '$$.Map.Item.Value.sku', 'i.$': '$$.Map.Item.Index', 'user.$': '$.user' } },
        { sku: 'b', i: 1, user: 'ada' },
      ],
      ['Parameters (the older name)', { Parameters: { 'v.$': '$$.Map.Item.Value' } }, { v: { sku: 'b' } }],
      ['nothing: the item', {}, { sku: 'b' }],
    ])('%s', async (_, fields, expected) => {
      expect(await flow.mapItemInput(state(fields, 'Map'), itemScope)).toEqual(expected);
    });
  });

  describe('mapLimits', () => {
    it.each([
      [{}, { maxConcurrency: 0 }],
      [
        { MaxConcurrency: 4, ToleratedFailureCount: 1, ToleratedFailurePercentage: 50 },
        { maxConcurrency: 4, toleratedFailureCount: 1, toleratedFailurePercentage: 50 },
      ],
      [
        {
          MaxConcurrencyPath: '$.order.qty',
          ToleratedFailureCountPath: '$.limits.h',
          ToleratedFailurePercentagePath: '$.limits.t',
        },
        { maxConcurrency: 2, toleratedFailureCount: 10, toleratedFailurePercentage: 60 },
      ],
    ])('%j gives %j', async (fields, expected) => {
      expect(await flow.mapLimits(state(fields, 'Map'), scope())).toEqual(expected);
    });

    it('a MaxConcurrencyPath to a string is a States.Runtime error', async () => {
      expect((await failure(flow.mapLimits(state({ MaxConcurrencyPath: '$.user' }, 'Map'), scope()))).name).toBe(
        'States.Runtime',
      );
    });
  });

  describe('taskTimeouts and failure', () => {
    it.each([
      [{}, {}],
      [
        { TimeoutSeconds: 5, HeartbeatSeconds: 2 },
        { timeoutSeconds: 5, heartbeatSeconds: 2 },
      ],
      [
        { TimeoutSecondsPath: '$.limits.t', HeartbeatSecondsPath: '$.limits.h' },
        { timeoutSeconds: 60, heartbeatSeconds: 10 },
      ],
    ])('%j', async (fields, expected) => {
      expect(await flow.taskTimeouts(state(fields), scope())).toEqual(expected);
    });

    it('a non-integer TimeoutSecondsPath is a States.Runtime error', async () => {
      expect((await failure(flow.taskTimeouts(state({ TimeoutSecondsPath: '$.user' }), scope()))).name).toBe(
        'States.Runtime',
      );
    });

    it.each([
      [
        { Error: 'E', Cause: 'C' },
        { error: 'E', cause: 'C' },
      ],
      [
        { ErrorPath: '$.user', CausePath: "States.Format('order {}', $.order.id)" },
        { error: 'ada', cause: 'order o-1' },
      ],
      [{}, {}],
    ])('Fail %j', async (fields, expected) => {
      expect(await flow.failure(state(fields, 'Fail'), scope())).toEqual(expected);
    });
  });
});
