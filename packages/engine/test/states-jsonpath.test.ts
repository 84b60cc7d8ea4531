import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineHarness, jsonpath, namedError } from './support/engine-harness';

const FN = 'arn:aws:lambda:us-east-1:123456789012:function';

describe('states (JSONPath)', () => {
  let h: EngineHarness;
  const tokens: string[] = [];
  beforeEach(async () => {
    tokens.length = 0;
    h = await new EngineHarness({
      add: (p) => ({ sum: p.a + p.b, extra: 'dropped' }),
      boom: () => {
        throw namedError('BoomError', 'nope');
      },
      ask: (p) => void tokens.push(p.token),
    }).start();
  });
  afterEach(() => h.close());

  it('runs a Task with Parameters, ResultSelector, ResultPath and OutputPath', async () => {
    const m = await h.machine(
      jsonpath({
        Add: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke',
          Parameters: { FunctionName: `${FN}:add`, Payload: { 'a.$': '$.x', 'b.$': '$.y' } },
          ResultSelector: { 'sum.$': '$.Payload.sum' },
          ResultPath: '$.result',
          OutputPath: '$.result',
          End: true,
        },
      }),
    );
    expect(await h.output(await h.run(m, { x: 2, y: 3 }))).toEqual({ sum: 5 });
  });

  it('routes with Choice rules and passes Result into ResultPath', async () => {
    const m = await h.machine(
      jsonpath({
        Route: {
          Type: 'Choice',
          Choices: [{ Variable: '$.n', NumericGreaterThan: 10, Next: 'Big' }],
          Default: 'Small',
        },
        Big: { Type: 'Pass', Result: 'big', ResultPath: '$.size', End: true },
        Small: { Type: 'Pass', Result: 'small', ResultPath: '$.size', End: true },
      }),
    );
    expect(await h.output(await h.run(m, { n: 11 }))).toEqual({ n: 11, size: 'big' });
    expect(await h.output(await h.run(m, { n: 1 }))).toEqual({ n: 1, size: 'small' });
  });

  it('catches with ResultPath keeping the input', async () => {
    const m = await h.machine(
      jsonpath({
        T: {
          Type: 'Task',
          Resource: `${FN}:boom`,
          Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Done' }],
          End: true,
        },
        Done: { Type: 'Pass', End: true },
      }),
    );
    const out = (await h.output(await h.run(m, { keep: true }))) as any;
    expect(out.keep).toBe(true);
    expect(out.error.Error).toBe('BoomError');
  });

  it('maps over ItemsPath with ItemSelector and the $$.Map.Item context', async () => {
    const m = await h.machine(
      jsonpath({
        Each: {
          Type: 'Map',
          ItemsPath: '$.xs',
          ItemSelector: { 'v.$': '$$.Map.Item.Value', 'i.$': '$$.Map.Item.Index' },
          ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } },
          End: true,
        },
      }),
    );
    expect(await h.output(await h.run(m, { xs: ['a', 'b'] }))).toEqual([
      { v: 'a', i: 0 },
      { v: 'b', i: 1 },
    ]);
  });

  it('waits for SecondsPath and passes the task token from $$.Task.Token', async () => {
    const m = await h.machine(
      jsonpath({
        W: { Type: 'Wait', SecondsPath: '$.delay', Next: 'Ask' },
        Ask: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
          Parameters: { FunctionName: 'ask', Payload: { 'token.$': '$$.Task.Token' } },
          End: true,
        },
      }),
    );
    const arn = await h.run(m, { delay: 30 });
    expect(tokens).toHaveLength(0);
    await h.clock.advance(30_000);
    expect(tokens).toHaveLength(1);
    await h.call('SendTaskSuccess', { taskToken: tokens[0], output: '{"ok":1}' });
    await h.idle();
    expect(await h.output(arn)).toEqual({ ok: 1 });
  });

  it('fails a JSONPath run whose path selects nothing with States.Runtime, which States.ALL does not catch', async () => {
    const m = await h.machine(
      jsonpath({
        P: { Type: 'Pass', InputPath: '$.missing.deep', Next: 'Q' },
        Q: { Type: 'Pass', End: true },
      }),
    );
    const arn = await h.run(m, {});
    expect(await h.describe(arn)).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
  });
});
