/**
 * Intrinsic functions as AWS evaluates them (executions recorded on AWS: localstack's
 * tests/aws/services/stepfunctions/v2/intrinsic_functions snapshots). Each case is one Pass state
 * `{"FunctionResult.$": <call>}` run on the engine against the recorded output.
 */
import { describe, expect, it } from 'vitest';
import { jsonpath } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const engine = recordedEngine();

const callOf = (call: string) =>
  jsonpath({ State_0: { Type: 'Pass', Parameters: { 'FunctionResult.$': call }, End: true } });

async function resultOf(call: string, input: unknown): Promise<unknown> {
  const run = await engine.run(callOf(call), { FunctionInput: input });
  expect(run.outcome.status, JSON.stringify(run.outcome)).toBe('SUCCEEDED');
  expect(run.types).toEqual(['ExecutionStarted', 'PassStateEntered', 'PassStateExited', 'ExecutionSucceeded']);
  return (run.outcome as { output: { FunctionResult: unknown } }).output.FunctionResult;
}

describe('States.MathAdd rounds each argument half up before adding (AWS: 1.49 + 1.5 = 3)', () => {
  it.each([
    [-9, 3, -6],
    [1.49, 1.5, 3],
    [1.5, 1.51, 4],
    [-1.49, -1.5, -2],
    [-1.5, -1.51, -3],
    [1.49, -1.49, 0],
    [-1.5, 0, -1],
    [-0.5, 0, 0],
    [-0.5, 0.5, 1],
    [2.5, 0, 3],
    [-2.5, 0, -2],
  ])('MathAdd(%d, %d) = %d', async (fst, snd, sum) => {
    expect(await resultOf('States.MathAdd($.FunctionInput.fst, $.FunctionInput.snd)', { fst, snd })).toBe(sum);
  });
});

describe('States.StringToJson of a blank string is null (AWS)', () => {
  it.each([
    ['', null],
    [' ', null],
    ['null', null],
    ['-0', 0],
    ['1.1', 1.1],
    ['[1, 2, "HelloWorld"]', [1, 2, 'HelloWorld']],
  ])('StringToJson(%j) = %j', async (text, value) => {
    expect(await resultOf('States.StringToJson($.FunctionInput)', text)).toEqual(value);
  });
});

describe('States.Format prints object and array arguments the Java way (AWS: {Arg1=1, Arg2=[]})', () => {
  it.each([
    [{ Arg1: 1, Arg2: [] }, '{Arg1=1, Arg2=[]}'],
    [{ a: 'x', b: [1, 'two', null], c: { d: true } }, '{a=x, b=[1, two, null], c={d=true}}'],
    [[], '[]'],
    ['{"Arg1": 1, "Arg2": []}', '{"Arg1": 1, "Arg2": []}'],
    [null, 'null'],
    [1.1, '1.1'],
  ])('Format with %j prints %s', async (arg, printed) => {
    const call = "States.Format('Formatting arguments fst={} and snd={}.', $.FunctionInput.fst, $.FunctionInput.snd)";
    expect(await resultOf(call, { fst: arg, snd: arg })).toBe(
      `Formatting arguments fst=${printed} and snd=${printed}.`,
    );
  });

  it('prints the context object Java-style too ($$.StateMachine)', async () => {
    const call = "States.Format('fst={} and snd={}.', $$.Execution.Name, $$.StateMachine)";
    const out = (await resultOf(call, {})) as string;
    expect(out).toMatch(/^fst=[0-9a-f-]+ and snd=\{Id=arn:aws:states:[^,]+:stateMachine:[^,]+, Name=[^}]+\}\.$/);
  });
});

describe('States.MathRandom takes float bounds (AWS: MathRandom(12.5, 44.51) succeeds)', () => {
  it.each([
    [12.5, 44.51],
    [9999, 99999],
    [-99999, -9999],
  ])('MathRandom(%d, %d) is an integer within the rounded bounds', async (fst, snd) => {
    const value = (await resultOf('States.MathRandom($.FunctionInput.fst, $.FunctionInput.snd)', {
      fst,
      snd,
    })) as number;
    expect(Number.isInteger(value)).toBe(true);
    expect(value).toBeGreaterThanOrEqual(Math.floor(fst));
    expect(value).toBeLessThanOrEqual(Math.ceil(snd));
  });
});
