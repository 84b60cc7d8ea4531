import { describe, expect, it } from 'vitest';
import {
  MAX_ATTEMPTS,
  RETRY_BACKOFF_RATE,
  RETRY_INTERVAL_SECONDS,
  RETRY_MAX_DELAY_SECONDS,
  hours,
  seconds,
} from '@autosave/workflow/config';
import { LEASE_WAIT_ERRORS, NON_RETRYABLE_ERRORS, StatesError } from '@autosave/workflow/errors';
import {
  Condition,
  DONE_STATE,
  START_STATE,
  WaitTime,
  approval,
  choice,
  compileWorkflow,
  defineWorkflow,
  model,
  tool,
  toAslJson,
  wait,
} from '@autosave/workflow';
import { evaluateField, stateOf, taskStates, validateAsl } from './asl-test-helpers';

const sample = defineWorkflow({
  name: 'sample',
  version: '2.1.0',
  description: 'every step kind but the agent loop',
  steps: [
    model('draft', { prompt: 'Write to {name}', system: 'Be brief', modelId: 'anthropic.claude' }),
    choice('route', {
      branches: [
        { when: Condition.and(Condition.equals('region', 'eu'), Condition.exists('steps.draft.text')), next: 'hold' },
      ],
    }),
    tool('send', {
      tool: 'send-email',
      idempotencyKey: '{id}:send',
      input: { to: '{email}', body: '{steps.draft.text}', tags: ['a', '{region}'] },
      nonRetryableErrors: ['MailboxGoneError'],
      retry: { maxAttempts: 2, interval: seconds(10) },
      end: true,
    }),
    wait('hold', { time: WaitTime.duration(hours(2)) }),
    wait('until', { time: WaitTime.until('{sendAt}') }),
    approval('ok', { title: 'Send to {name}?' }),
    tool('after-ok', { tool: 'send-email', idempotencyKey: '{id}:after-ok', next: 'send' }),
  ],
});
const asl = compileWorkflow(sample);

describe('compileWorkflow', () => {
  it('emits a valid JSONata definition that names the workflow version', () => {
    expect(validateAsl(asl).errorsText()).toBe('');
    expect(asl.QueryLanguage).toBe('JSONata');
    expect(asl.Comment).toBe('sample@2.1.0: every step kind but the agent loop');
    expect(asl.StartAt).toBe(START_STATE);
  });

  it('starts by building the state data {input, steps} from the execution input', async () => {
    const start = stateOf(asl, START_STATE, 'Pass');
    expect(await evaluateField(start.Output, { input: { id: 'x' } })).toEqual({ input: { id: 'x' }, steps: {} });
    expect(start).toMatchObject({ Next: 'draft' });
  });

  it('gives every Task the house retry policy, with step-declared errors and overrides', () => {
    for (const [name, task] of taskStates(asl)) {
      const [never, leaseWait, backoff] = task.Retry;
      expect(never.MaxAttempts, name).toBe(0);
      expect(never.ErrorEquals.slice(0, NON_RETRYABLE_ERRORS.length), name).toEqual(NON_RETRYABLE_ERRORS);
      expect(leaseWait.ErrorEquals, name).toEqual(LEASE_WAIT_ERRORS);
      expect(backoff.ErrorEquals, name).toEqual([StatesError.ALL]);
      expect(backoff.JitterStrategy, name).toBe('FULL');
      expect(
        task.Catch?.some((c) => c.Next === 'Fail'),
        name,
      ).not.toBe(true);
    }
    expect(stateOf(asl, 'draft', 'Task').Retry[2]).toEqual({
      ErrorEquals: [StatesError.ALL],
      IntervalSeconds: RETRY_INTERVAL_SECONDS,
      MaxAttempts: MAX_ATTEMPTS,
      BackoffRate: RETRY_BACKOFF_RATE,
      MaxDelaySeconds: RETRY_MAX_DELAY_SECONDS,
      JitterStrategy: 'FULL',
    });
    const send = stateOf(asl, 'send', 'Task');
    expect(send.Retry[0].ErrorEquals).toEqual([...NON_RETRYABLE_ERRORS, 'MailboxGoneError']);
    expect(send.Retry[2]).toMatchObject({ MaxAttempts: 2, IntervalSeconds: 10 });
  });

  it('never emits a Fail state', () => {
    expect(Object.values(asl.States).map((s) => s.Type)).not.toContain('Fail');
  });

  it('invokes the model-step Lambda with the §2 payload and records the result under the step name', async () => {
    const draft = stateOf(asl, 'draft', 'Task');
    expect(draft.Resource).toBe('arn:aws:states:::lambda:invoke');
    const args = draft.Arguments as { FunctionName: string; Payload: Record<string, unknown> };
    expect(args.FunctionName).toBe('${ModelStepFunctionArn}');
    expect(Object.keys(args.Payload)).toEqual([
      'workflow',
      'executionArn',
      'step',
      'turn',
      'prompt',
      'system',
      'modelId',
    ]);
    const states = {
      input: { input: { name: 'Ada' }, steps: {} },
      result: { Payload: { text: 'Hi Ada' } },
      context: { Execution: { Id: 'arn:x' } },
    };
    expect(await evaluateField(args.Payload.prompt, states)).toBe('Write to Ada');
    expect(await evaluateField(args.Payload.executionArn, states)).toBe('arn:x');
    expect(await evaluateField(draft.Output, states)).toEqual({
      input: { name: 'Ada' },
      steps: { draft: { text: 'Hi Ada' } },
    });
  });

  it('invokes the tool-step Lambda with tool, computed key and rendered input', async () => {
    const send = stateOf(asl, 'send', 'Task');
    const { FunctionName, Payload } = send.Arguments as { FunctionName: string; Payload: Record<string, unknown> };
    expect(FunctionName).toBe('${ToolStepFunctionArn}');
    const states = {
      input: { input: { id: 'u1', email: 'a@b.c', region: 'eu' }, steps: { draft: { text: 'Hello' } } },
    };
    expect(Payload.tool).toBe('send-email');
    expect(await evaluateField(Payload.idempotencyKey, states)).toBe('u1:send');
    const input = Payload.input as Record<string, unknown>;
    expect(await evaluateField(input.to, states)).toBe('a@b.c');
    expect(await evaluateField(input.body, states)).toBe('Hello');
    expect((input.tags as unknown[])[0]).toBe('a');
    expect(send).toMatchObject({ End: true });
  });

  it("records the tool's result from the tool-step envelope, so later steps never see `source`", async () => {
    const send = stateOf(asl, 'send', 'Task');
    const states = {
      input: { input: { id: 'u1' }, steps: { draft: { text: 'Hello' } } },
      result: { Payload: { result: { messageId: 'm-1' }, source: 'replayed' }, StatusCode: 200 },
    };
    expect(await evaluateField(send.Output, states)).toEqual({
      input: { id: 'u1' },
      steps: { draft: { text: 'Hello' }, send: { messageId: 'm-1' } },
    });
  });

  it('passes the execution input to a tool step that declares no input', async () => {
    const after = stateOf(asl, 'after-ok', 'Task');
    const payload = (after.Arguments as { Payload: { input: unknown } }).Payload;
    expect(await evaluateField(payload.input, { input: { input: { id: 'u1' }, steps: {} } })).toEqual({ id: 'u1' });
    expect(after).toMatchObject({ Next: 'send' });
  });

  it('routes a choice on the input and earlier results, falling through to the next step', async () => {
    const route = stateOf(asl, 'route', 'Choice');
    expect(route.Default).toBe('send');
    expect(route.Choices[0].Next).toBe('hold');
    const cond = route.Choices[0].Condition;
    expect(await evaluateField(cond, { input: { input: { region: 'eu' }, steps: { draft: { text: 'x' } } } })).toBe(
      true,
    );
    expect(await evaluateField(cond, { input: { input: { region: 'us' }, steps: { draft: { text: 'x' } } } })).toBe(
      false,
    );
  });

  it('compiles waits for a duration and until a timestamp from the input', async () => {
    expect(stateOf(asl, 'hold', 'Wait')).toMatchObject({ Seconds: 7200, Next: 'until' });
    const until = stateOf(asl, 'until', 'Wait');
    expect(
      await evaluateField(until.Timestamp, { input: { input: { sendAt: '2027-01-01T00:00:00Z' }, steps: {} } }),
    ).toBe('2027-01-01T00:00:00Z');
  });

  it('waits for an approval with a token, the default 7-day timeout, and ends the run on rejection', () => {
    const ok = stateOf(asl, 'ok', 'Task');
    expect(ok.Resource).toBe('arn:aws:states:::lambda:invoke.waitForTaskToken');
    expect(ok.TimeoutSeconds).toBe(7 * 24 * 3600);
    expect(ok.Catch).toBeUndefined(); // default: fail at the approval, so a redrive asks again
    expect(ok.Retry[0].ErrorEquals).toEqual(
      expect.arrayContaining([StatesError.Timeout, StatesError.HeartbeatTimeout]),
    );
    const decision = stateOf(asl, 'ok-decision', 'Choice');
    expect(decision.Choices[0].Next).toBe('after-ok');
    expect(decision.Default).toBe(DONE_STATE);
    expect(stateOf(asl, DONE_STATE, 'Succeed')).toEqual({ Type: 'Succeed' });
  });

  it('compiles byte-identically every time, whatever order the code built the fields in', () => {
    expect(toAslJson(compileWorkflow(sample))).toBe(toAslJson(asl));
    const shuffled = {
      States: { b: { Next: 'x', Type: 'Pass' }, a: { End: true, Type: 'Succeed' } },
      StartAt: 'b',
      QueryLanguage: 'JSONata',
      Comment: 'c',
    };
    expect(toAslJson(shuffled)).toBe(
      JSON.stringify(
        {
          Comment: 'c',
          QueryLanguage: 'JSONata',
          StartAt: 'b',
          States: { b: { Type: 'Pass', Next: 'x' }, a: { Type: 'Succeed', End: true } },
        },
        null,
        2,
      ) + '\n',
    );
  });
});
