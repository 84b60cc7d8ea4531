/**
 * Cross-checks the JSONPath data flow against aws-local-stepfunctions (a reference ASL interpreter):
 * the same machines run through a minimal sequential runner built on `dataFlowFor('JSONPath')` and
 * through the reference must give the same output.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { dataFlowFor, type StateDefinition } from '../../src/dataflow';

type Json = Record<string, unknown>;
type Handler = (input: unknown) => unknown;
const flow = dataFlowFor('JSONPath');

let StateMachine: new (
  definition: object,
  options?: object,
) => { run(input: unknown, options?: object): { result: Promise<unknown> } };

beforeAll(async () => {
  // The reference declares Node 22; this is the one API it needs from it.
  const promise = Promise as unknown as { withResolvers?: () => unknown };
  promise.withResolvers ??= () => {
    let resolve!: (v: unknown) => void;
    let reject!: (e: unknown) => void;
    const p = new Promise((res, rej) => ((resolve = res), (reject = rej)));
    return { promise: p, resolve, reject };
  };
  ({ StateMachine } = (await import('aws-local-stepfunctions')) as never);
});

/** Runs a list of states with the data-flow functions, sequentially (enough for Pass/Task/Choice/Map/Parallel/Succeed). */
async function runLocally(list: Json, input: unknown, handlers: Record<string, Handler>): Promise<unknown> {
  const states = list.States as Record<string, StateDefinition>;
  let name = list.StartAt as string;
  let value = input;
  for (;;) {
    const state = states[name];
    const scope = { input: value, context: {}, variables: {} };
    let next: string | undefined;
    switch (state.Type) {
      case 'Choice': {
        const decision = await flow.choose(state, scope);
        [value, next] = [decision.output, decision.next];
        break;
      }
      case 'Succeed':
        return flow.output(state, scope);
      default: {
        const effective = await flow.effectiveInput(state, scope);
        let result: unknown = effective;
        if (state.Type === 'Task') result = handlers[name](effective);
        if (state.Type === 'Map') {
          const items = await flow.mapItems(state, scope);
          result = [];
          for (const [index, item] of items.entries()) {
            const itemInput = await flow.mapItemInput(state, {
              ...scope,
              context: { Map: { Item: { Index: index, Value: item } } },
            });
            (result as unknown[]).push(await runLocally(state.ItemProcessor as Json, itemInput, handlers));
          }
        }
        if (state.Type === 'Parallel')
          result = await Promise.all(
            (state.Branches as Json[]).map((branch) => runLocally(branch, effective, handlers)),
          );
        value = await flow.output(state, { ...scope, result });
        next = state.Next as string | undefined;
      }
    }
    if (state.End || next === undefined) return value;
    name = next;
  }
}

async function runReference(definition: Json, input: unknown, handlers: Record<string, Handler>): Promise<unknown> {
  const machine = new StateMachine(definition, { validationOptions: { checkArn: false } });
  const taskResourceLocalHandlers = Object.fromEntries(
    Object.entries(handlers).map(([name, fn]) => [name, async (i: unknown) => fn(i)]),
  );
  return machine.run(input, { overrides: { taskResourceLocalHandlers } }).result;
}

const LAMBDA = 'arn:aws:lambda:us-east-1:123456789012:function:f';

const machines: Array<[string, Json, unknown[], Record<string, Handler>]> = [
  [
    'Pass states with Parameters, intrinsics, Result, ResultPath, InputPath and OutputPath',
    {
      StartAt: 'Shape',
      States: {
        Shape: {
          Type: 'Pass',
          Parameters: {
            'greeting.$': "States.Format('Hello, {}! You have {} items.', $.user.name, States.ArrayLength($.items))",
            'first.$': 'States.ArrayGetItem($.items, 0)',
            'pages.$': 'States.ArrayPartition($.items, 2)',
            'encoded.$': 'States.Base64Encode($.user.name)',
            'merged.$': 'States.JsonMerge($.user, $.extra, false)',
            'parsed.$': 'States.StringToJson($.raw)',
            'unique.$': 'States.ArrayUnique($.items)',
            'has.$': 'States.ArrayContains($.items, 3)',
            'sum.$': 'States.MathAdd($.n, 7)',
            'parts.$': "States.StringSplit($.csv, ',')",
            'range.$': 'States.ArrayRange(1, 7, 3)',
            'digest.$': "States.Hash($.user.name, 'SHA-256')",
            'arr.$': 'States.Array($.n, $.user.name)',
            // Not $.user: the reference's States.JsonMerge above changes its first argument in place.
            'json.$': 'States.JsonToString($.extra)',
            static: { a: [1, { b: 2 }] },
          },
          ResultPath: '$.shaped',
          Next: 'Narrow',
        },
        Narrow: {
          Type: 'Pass',
          InputPath: '$.shaped',
          Result: { note: 'fixed' },
          ResultPath: '$.deep.note',
          OutputPath: '$',
          Next: 'Keep',
        },
        Keep: { Type: 'Pass', ResultPath: null, OutputPath: '$', End: true },
      },
    },
    [
      {
        user: { name: 'ada', id: 1 },
        extra: { id: 2, role: 'x' },
        items: [3, 1, 3, 2],
        raw: '{"k":[true]}',
        n: 5,
        csv: 'a,b,c',
      },
    ],
    {},
  ],
  [
    'Choice rules over many operators',
    {
      StartAt: 'Route',
      States: {
        Route: {
          Type: 'Choice',
          Choices: [
            {
              And: [
                { Variable: '$.kind', StringEquals: 'vip' },
                { Variable: '$.amount', NumericGreaterThanEquals: 100 },
              ],
              Next: 'Vip',
            },
            {
              Or: [
                { Variable: '$.when', TimestampLessThan: '2020-01-01T00:00:00Z' },
                { Variable: '$.flag', BooleanEquals: true },
              ],
              Next: 'Old',
            },
            { Not: { Variable: '$.name', StringMatches: 'a*' }, Next: 'NotA' },
            { Variable: '$.amount', NumericLessThanPath: '$.limit', Next: 'Under' },
            { Variable: '$.optional', IsPresent: true, Next: 'Present' },
          ],
          Default: 'Other',
        },
        Vip: { Type: 'Pass', Result: 'vip', End: true },
        Old: { Type: 'Pass', Result: 'old', End: true },
        NotA: { Type: 'Pass', Result: 'not-a', End: true },
        Under: { Type: 'Pass', Result: 'under', End: true },
        Present: { Type: 'Pass', Result: 'present', End: true },
        Other: { Type: 'Pass', Result: 'other', End: true },
      },
    },
    [
      { kind: 'vip', amount: 150, when: '2024-01-01T00:00:00Z', flag: false, name: 'ann', limit: 10 },
      { kind: 'std', amount: 150, when: '2019-01-01T00:00:00Z', flag: false, name: 'ann', limit: 10 },
      { kind: 'std', amount: 150, when: '2024-01-01T00:00:00Z', flag: true, name: 'ann', limit: 10 },
      { kind: 'std', amount: 150, when: '2024-01-01T00:00:00Z', flag: false, name: 'bob', limit: 10 },
      { kind: 'std', amount: 5, when: '2024-01-01T00:00:00Z', flag: false, name: 'ann', limit: 10 },
      { kind: 'std', amount: 50, when: '2024-01-01T00:00:00Z', flag: false, name: 'ann', limit: 10, optional: null },
      { kind: 'std', amount: 50, when: '2024-01-01T00:00:00Z', flag: false, name: 'ann', limit: 10 },
    ],
    {},
  ],
  [
    'Tasks with Parameters, ResultSelector, ResultPath; a Map with ItemsPath and ItemSelector; a Parallel',
    {
      StartAt: 'Fetch',
      States: {
        Fetch: {
          Type: 'Task',
          Resource: LAMBDA,
          Parameters: { 'id.$': '$.orderId', source: 'test' },
          ResultSelector: { 'lines.$': '$.body.lines', 'count.$': 'States.ArrayLength($.body.lines)' },
          ResultPath: '$.order',
          Next: 'EachLine',
        },
        EachLine: {
          Type: 'Map',
          ItemsPath: '$.order.lines',
          ItemSelector: { 'sku.$': '$$.Map.Item.Value.sku', 'index.$': '$$.Map.Item.Index', 'orderId.$': '$.orderId' },
          ItemProcessor: {
            StartAt: 'Price',
            States: { Price: { Type: 'Task', Resource: LAMBDA, ResultPath: '$.price', End: true } },
          },
          ResultPath: '$.priced',
          Next: 'Both',
        },
        Both: {
          Type: 'Parallel',
          Branches: [
            {
              StartAt: 'Count',
              States: { Count: { Type: 'Pass', Parameters: { 'n.$': '$.order.count' }, End: true } },
            },
            { StartAt: 'Ids', States: { Ids: { Type: 'Pass', InputPath: '$.priced[*].sku', End: true } } },
          ],
          ResultSelector: { 'count.$': '$[0].n', 'skus.$': '$[1]' },
          ResultPath: '$.summary',
          OutputPath: '$.summary',
          End: true,
        },
      },
    },
    [{ orderId: 'o-9' }],
    {
      Fetch: (input) => ({
        body: {
          lines: [
            { sku: 'a', qty: 1 },
            { sku: 'b', qty: 2 },
          ],
          echo: input,
        },
      }),
      Price: (input) => ((input as { sku: string }).sku === 'a' ? 10 : 20),
    },
  ],
];

describe('the JSONPath data flow agrees with aws-local-stepfunctions', () => {
  for (const [name, definition, inputs, handlers] of machines) {
    it.each(inputs.map((input, i) => [i, input] as const))(`${name} (input %i)`, async (_, input) => {
      const [ours, reference] = await Promise.all([
        runLocally(definition, input, handlers),
        runReference(definition, input, handlers),
      ]);
      expect(reference).toBeDefined();
      expect(ours).toEqual(reference);
    });
  }
});
