import { describe, expect, it } from 'vitest';
import { dataFlowFor, type EvaluationScope, type StateDefinition } from '../../src/dataflow';

const flow = dataFlowFor('JSONata');

const context = {
  Execution: { Id: 'arn:aws:states:us-east-1:123456789012:execution:m:run-1', Name: 'run-1', Input: { a: 1 } },
  State: { Name: 'S', EnteredTime: '2026-01-01T00:00:00.000Z', RetryCount: 0 },
  StateMachine: { Id: 'arn:aws:states:us-east-1:123456789012:stateMachine:m', Name: 'm' },
  Task: { Token: 'tok-1' },
};

function scope(overrides: Partial<EvaluationScope> = {}): EvaluationScope {
  return {
    input: { n: 3, name: 'ada', items: [1, 2, 3], nested: { x: [{ id: 'a' }, { id: 'b' }] } },
    context,
    variables: { limit: 10, who: 'grace' },
    ...overrides,
  };
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

describe('JSONata data flow', () => {
  describe('effectiveInput (Arguments)', () => {
    it.each([
      ['a whole-field expression', '{% $states.input.n * 2 %}', 6],
      ['a literal string', 'plain text', 'plain text'],
      ['a string that only contains {% in the middle', 'a {% b %} c', 'a {% b %} c'],
      [
        'an object with expressions at any depth',
        { a: '{% $states.input.name %}', b: { c: ['{% $limit %}', 2, true, null] } },
        { a: 'ada', b: { c: [10, 2, true, null] } },
      ],
      [
        'the context object',
        { token: '{% $states.context.Task.Token %}', run: '{% $states.context.Execution.Name %}' },
        { token: 'tok-1', run: 'run-1' },
      ],
      ['a variable', '{% $who %}', 'grace'],
      ['a path over arrays (no JSONata sequence leaks out)', '{% $states.input.nested.x.id %}', ['a', 'b']],
      ['a single-item path', '{% [$states.input.nested.x[0].id] %}', ['a']],
      [
        'string concatenation (idempotency keys)',
        { key: "{% $states.input.name & ':welcome' %}" },
        { key: 'ada:welcome' },
      ],
      ['numbers, booleans and null literals', { n: 1.5, b: false, z: null }, { n: 1.5, b: false, z: null }],
      [
        '$merge of state data',
        '{% $merge([$states.input, {"steps": {"s": 1}}]) %}',
        { n: 3, name: 'ada', items: [1, 2, 3], nested: { x: [{ id: 'a' }, { id: 'b' }] }, steps: { s: 1 } },
      ],
    ])('evaluates %s', async (_, Arguments, expected) => {
      expect(await flow.effectiveInput(state({ Arguments }), scope())).toEqual(expected);
    });

    it('defaults to the raw input when there are no Arguments', async () => {
      expect(await flow.effectiveInput(state({}), scope({ input: { q: 1 } }))).toEqual({ q: 1 });
    });

    it('returns plain arrays, not JSONata sequences', async () => {
      const value = (await flow.effectiveInput(
        state({ Arguments: '{% $states.input.nested.x.id %}' }),
        scope(),
      )) as unknown[];
      expect(Object.keys(value)).toEqual(['0', '1']);
      expect(JSON.stringify(value)).toBe('["a","b"]');
    });
  });

  describe('output (Output)', () => {
    it.each([
      ['Task', { Output: '{% $states.result.Payload %}' }, { Payload: { ok: 1 } }, { ok: 1 }],
      ['Task without Output: the result', {}, { r: 1 }, { r: 1 }],
      ['Parallel without Output: the result', {}, [1, 2], [1, 2]],
      ['Map without Output: the result', {}, [{}], [{}]],
      [
        'Task with Output reading input and result',
        { Output: { in: '{% $states.input.n %}', out: '{% $states.result %}' } },
        7,
        { in: 3, out: 7 },
      ],
    ])('%s', async (_, fields, result, expected) => {
      const type = _.split(' ')[0];
      expect(await flow.output(state(fields, type), scope({ result }))).toEqual(expected);
    });

    it.each(['Pass', 'Choice', 'Wait', 'Succeed'])('a %s state without Output passes its input on', async (type) => {
      expect(await flow.output(state({}, type), scope({ input: { keep: true } }))).toEqual({ keep: true });
    });

    it('a Pass state with Output', async () => {
      expect(
        await flow.output(state({ Output: { greeting: "{% 'hi ' & $states.input.name %}" } }, 'Pass'), scope()),
      ).toEqual({ greeting: 'hi ada' });
    });
  });

  describe('assign (Assign)', () => {
    it('evaluates each variable, seeing $states.result and earlier variables', async () => {
      const assign = await flow.assign(
        state({ Assign: { total: '{% $states.result.count + $limit %}', label: 'fixed', list: ['{% $who %}'] } }),
        scope({ result: { count: 5 } }),
      );
      expect(assign).toEqual({ total: 15, label: 'fixed', list: ['grace'] });
    });

    it('is empty without Assign', async () => {
      expect(await flow.assign(state({}), scope())).toEqual({});
    });
  });

  describe('catchOutput', () => {
    const errorOutput = { Error: 'Boom', Cause: 'it broke' };

    it('defaults to the error output', async () => {
      expect(await flow.catchOutput({ ErrorEquals: ['States.ALL'], Next: 'X' }, scope({ errorOutput }))).toEqual({
        output: errorOutput,
        assign: {},
      });
    });

    it('evaluates Output and Assign with $states.errorOutput', async () => {
      const catcher = {
        ErrorEquals: ['States.ALL'],
        Next: 'X',
        Output: { e: '{% $states.errorOutput.Error %}', n: '{% $states.input.n %}' },
        Assign: { lastError: '{% $states.errorOutput.Cause %}' },
      };
      expect(await flow.catchOutput(catcher, scope({ errorOutput }))).toEqual({
        output: { e: 'Boom', n: 3 },
        assign: { lastError: 'it broke' },
      });
    });
  });

  describe('choose (Choice Condition rules)', () => {
    const choice = (fields: Record<string, unknown>) =>
      state(
        {
          Choices: [
            { Condition: '{% $states.input.n > 5 %}', Next: 'Big' },
            {
              Condition: "{% $states.input.name = 'ada' %}",
              Next: 'Ada',
              Output: { who: '{% $states.input.name %}' },
              Assign: { picked: 'ada', shared: 'rule' },
            },
          ],
          ...fields,
        },
        'Choice',
      );

    it.each([
      [{ n: 9, name: 'x' }, 'Big'],
      [{ n: 1, name: 'ada' }, 'Ada'],
      [{ n: 9, name: 'ada' }, 'Big'],
      [{ n: 1, name: 'bob' }, 'Other'],
    ])('input %j goes to %s', async (input, next) => {
      expect((await flow.choose(choice({ Default: 'Other' }), scope({ input }))).next).toBe(next);
    });

    it("uses the matched rule's Output and merges its Assign over the state's", async () => {
      const decision = await flow.choose(
        choice({ Default: 'Other', Assign: { shared: 'state', always: 1 } }),
        scope({ input: { n: 1, name: 'ada' } }),
      );
      expect(decision).toEqual({
        next: 'Ada',
        output: { who: 'ada' },
        assign: { shared: 'rule', always: 1, picked: 'ada' },
      });
    });

    it('uses the state-level Output and Assign for Default', async () => {
      const decision = await flow.choose(
        choice({ Default: 'Other', Output: { d: true }, Assign: { always: 1 } }),
        scope({ input: { n: 1, name: 'bob' } }),
      );
      expect(decision).toEqual({ next: 'Other', output: { d: true }, assign: { always: 1 } });
    });

    it('passes the input on when no Output is set', async () => {
      expect(await flow.choose(choice({ Default: 'Other' }), scope({ input: { n: 7 } }))).toEqual({
        next: 'Big',
        output: { n: 7 },
        assign: {},
      });
    });

    it('reads variables in conditions', async () => {
      const s = state({ Choices: [{ Condition: '{% $limit = 10 %}', Next: 'Ten' }] }, 'Choice');
      expect((await flow.choose(s, scope())).next).toBe('Ten');
    });

    it('throws States.NoChoiceMatched with no match and no Default', async () => {
      const err = await failure(flow.choose(choice({}), scope({ input: { n: 1, name: 'bob' } })));
      expect(err.name).toBe('States.NoChoiceMatched');
    });

    it.each([
      ['a number', '{% 1 %}'],
      ['a string', "{% 'yes' %}"],
      ['undefined', '{% $states.input.missing %}'],
    ])('throws States.QueryEvaluationError when a Condition yields %s', async (_, Condition) => {
      const err = await failure(flow.choose(state({ Choices: [{ Condition, Next: 'X' }] }, 'Choice'), scope()));
      expect(err.name).toBe('States.QueryEvaluationError');
    });
  });

  describe('waitUntil', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    it.each([
      [{ Seconds: 10 }, now + 10_000],
      [{ Seconds: 0 }, now],
      [{ Seconds: '{% $states.input.n * 10 %}' }, now + 30_000],
      [{ Timestamp: '2026-02-01T00:00:00Z' }, Date.parse('2026-02-01T00:00:00Z')],
      [{ Timestamp: '{% $states.input.at %}' }, Date.parse('2026-03-01T12:00:00.500+01:00')],
    ])('%j ends at the right time', async (fields, expected) => {
      expect(
        await flow.waitUntil(
          state(fields, 'Wait'),
          scope({ input: { n: 3, at: '2026-03-01T12:00:00.500+01:00' } }),
          now,
        ),
      ).toBe(expected);
    });

    it.each([
      [{ Seconds: -1 }],
      [{ Seconds: 1.5 }],
      [{ Seconds: "{% 'ten' %}" }],
      [{ Timestamp: 'tomorrow' }],
      [{ Timestamp: '2026-01-01 00:00:00Z' }],
      [{ Timestamp: '{% 5 %}' }],
    ])('%j is a States.QueryEvaluationError', async (fields) => {
      expect((await failure(flow.waitUntil(state(fields, 'Wait'), scope(), now))).name).toBe(
        'States.QueryEvaluationError',
      );
    });
  });

  describe('Map items', () => {
    it.each([
      ['a literal array', { Items: [1, 2] }, [1, 2]],
      ['an expression', { Items: '{% $states.input.items %}' }, [1, 2, 3]],
      ['an array of expressions', { Items: ['{% $states.input.n %}', 'x'] }, [3, 'x']],
    ])('Items as %s', async (_, fields, expected) => {
      expect(await flow.mapItems(state(fields, 'Map'), scope())).toEqual(expected);
    });

    it('defaults to the input when it is an array', async () => {
      expect(await flow.mapItems(state({}, 'Map'), scope({ input: ['a'] }))).toEqual(['a']);
    });

    it.each([[{ Items: '{% $states.input.n %}' }], [{}]])(
      '%j that is not an array is a States.QueryEvaluationError',
      async (fields) => {
        expect((await failure(flow.mapItems(state(fields, 'Map'), scope()))).name).toBe('States.QueryEvaluationError');
      },
    );

    const itemContext = { ...context, Map: { Item: { Index: 1, Value: { id: 'b' } } } };
    it('ItemSelector sees the item and its index', async () => {
      const s = state(
        {
          ItemSelector: {
            id: '{% $states.context.Map.Item.Value.id %}',
            i: '{% $states.context.Map.Item.Index %}',
            who: '{% $who %}',
            n: '{% $states.input.n %}',
          },
        },
        'Map',
      );
      expect(await flow.mapItemInput(s, scope({ context: itemContext }))).toEqual({
        id: 'b',
        i: 1,
        who: 'grace',
        n: 3,
      });
    });

    it('without ItemSelector each iteration gets the item', async () => {
      expect(await flow.mapItemInput(state({}, 'Map'), scope({ context: itemContext }))).toEqual({ id: 'b' });
    });
  });

  describe('mapLimits', () => {
    it.each([
      [{}, { maxConcurrency: 0 }],
      [{ MaxConcurrency: 3 }, { maxConcurrency: 3 }],
      [
        { MaxConcurrency: '{% $limit %}', ToleratedFailureCount: 2, ToleratedFailurePercentage: '{% 12.5 %}' },
        { maxConcurrency: 10, toleratedFailureCount: 2, toleratedFailurePercentage: 12.5 },
      ],
    ])('%j gives %j', async (fields, expected) => {
      expect(await flow.mapLimits(state(fields, 'Map'), scope())).toEqual(expected);
    });

    it.each([[{ MaxConcurrency: -1 }], [{ ToleratedFailurePercentage: 101 }], [{ MaxConcurrency: '{% "2" %}' }]])(
      '%j is a States.QueryEvaluationError',
      async (fields) => {
        expect((await failure(flow.mapLimits(state(fields, 'Map'), scope()))).name).toBe('States.QueryEvaluationError');
      },
    );
  });

  describe('taskTimeouts', () => {
    it.each([
      [{}, {}],
      [{ TimeoutSeconds: 30 }, { timeoutSeconds: 30 }],
      [
        { HeartbeatSeconds: 5, TimeoutSeconds: '{% $limit * 60 %}' },
        { timeoutSeconds: 600, heartbeatSeconds: 5 },
      ],
    ])('%j gives %j', async (fields, expected) => {
      expect(await flow.taskTimeouts(state(fields), scope())).toEqual(expected);
    });

    it.each([[{ TimeoutSeconds: 0 }], [{ HeartbeatSeconds: '{% "5" %}' }], [{ TimeoutSeconds: 2.5 }]])(
      '%j is a States.QueryEvaluationError',
      async (fields) => {
        expect((await failure(flow.taskTimeouts(state(fields), scope()))).name).toBe('States.QueryEvaluationError');
      },
    );
  });

  describe('failure (Fail state)', () => {
    it.each([
      [{}, {}],
      [
        { Error: 'Oops', Cause: 'because' },
        { error: 'Oops', cause: 'because' },
      ],
      [
        { Error: "{% 'E' & $states.input.n %}", Cause: '{% $string($states.input.items) %}' },
        { error: 'E3', cause: '[1,2,3]' },
      ],
    ])('%j gives %j', async (fields, expected) => {
      expect(await flow.failure(state(fields, 'Fail'), scope())).toEqual(expected);
    });

    it('a non-string Error is a States.QueryEvaluationError', async () => {
      expect((await failure(flow.failure(state({ Error: '{% 42 %}' }, 'Fail'), scope()))).name).toBe(
        'States.QueryEvaluationError',
      );
    });
  });

  describe('errors', () => {
    it.each([
      ['an undefined result', '{% $states.input.missing %}', /returned nothing \(undefined\)/],
      ['an undefined result in a nested field', { a: { b: '{% $nope %}' } }, /field 'Arguments\/a\/b'/],
      ['a runtime error', '{% $number("x") %}', /threw an error/],
      ['a type error', "{% 'a' + 1 %}", /threw an error/],
      ['a syntax error', '{% $states.input. %}', /is invalid/],
      ['an explicit $error', "{% $error('custom') %}", /custom/],
      [
        '$eval, which Step Functions leaves out',
        "{% $eval('1 + 1') %}",
        /\$eval is not available in Step Functions; use \$parse/,
      ],
    ])('%s is a States.QueryEvaluationError', async (_, Arguments, message) => {
      const err = await failure(flow.effectiveInput(state({ Arguments }), scope()));
      expect(err.name).toBe('States.QueryEvaluationError');
      expect(err.message).toMatch(message);
    });
  });

  describe('the functions Step Functions adds', () => {
    const evaluate = (expression: string, input: unknown = {}) =>
      flow.effectiveInput(state({ Arguments: `{% ${expression} %}` }), scope({ input }));

    it.each([
      ['$partition([1,2,3,4,5], 2)', [[1, 2], [3, 4], [5]]],
      ['$partition([], 3)', []],
      ['$range(0, 10, 2)', [0, 2, 4, 6, 8, 10]],
      ['$range(5, 1, -2)', [5, 3, 1]],
      ['$range(1, 1, 1)', 1],
      ["$hash('abc', 'MD5')", '900150983cd24fb0d6963f7d28e17f72'],
      ["$hash('abc', 'SHA-1')", 'a9993e364706816aba3e25717850c26c9cd0d89d'],
      ["$hash('abc', 'SHA-256')", 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
      [
        "$hash('abc', 'SHA-384')",
        'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7',
      ],
      [
        "$hash('abc', 'SHA-512')",
        'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
      ],
      ['$parse(\'{"a":[1,{"b":null}]}\')', { a: [1, { b: null }] }],
      ["$parse('3')", 3],
      ['$random(42) = $random(42)', true],
      ['$random(42) = $random(43)', false],
      ['$random() >= 0 and $random() < 1', true],
      ['$length($uuid())', 36],
    ])('%s', async (expression, expected) => {
      expect(await evaluate(expression)).toEqual(expected);
    });

    it('$uuid() is a version 4 UUID and differs per call', async () => {
      const [a, b] = (await evaluate('[$uuid(), $uuid()]')) as string[];
      expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(a).not.toBe(b);
    });

    it('$random(seed) is in [0, 1)', async () => {
      const value = (await evaluate('$random("seed")')) as number;
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
    });

    it.each([
      "$hash('abc', 'SHA-999')",
      '$hash(5, "MD5")',
      '$partition([1], 0)',
      '$partition("x", 1)',
      '$range(0, 10, 0)',
      '$range(0, 5000, 1)',
      "$parse('{nope')",
    ])('%s is a States.QueryEvaluationError', async (expression) => {
      expect((await failure(evaluate(expression))).name).toBe('States.QueryEvaluationError');
    });
  });

  describe('time', () => {
    it('$now() and $millis() read the engine clock when nowMillis is given', async () => {
      const nowMillis = Date.parse('2030-05-06T07:08:09.010Z');
      const value = await flow.effectiveInput(
        state({ Arguments: { iso: '{% $now() %}', ms: '{% $millis() %}', year: "{% $now('[Y0001]') %}" } }),
        scope({ nowMillis }),
      );
      expect(value).toEqual({ iso: '2030-05-06T07:08:09.010Z', ms: nowMillis, year: '2030' });
    });
  });

  describe('compiled expressions are cached', () => {
    it('evaluates the same expression many times with different inputs', async () => {
      const s = state({ Arguments: '{% $states.input.i * 2 %}' });
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => flow.effectiveInput(s, scope({ input: { i } }))),
      );
      expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i * 2));
    });
  });
});
