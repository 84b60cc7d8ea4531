import { describe, expect, it } from 'vitest';
import { HISTORY_EVENT_BUDGET, days, seconds } from '@autosave/workflow/config';
import {
  Condition,
  WaitTime,
  WorkflowDefinitionError,
  WorkflowType,
  agentLoop,
  approval,
  choice,
  compileWorkflow,
  defineWorkflow,
  model,
  tool,
  wait,
  type Step,
  type WorkflowType as WorkflowTypeName,
} from '@autosave/workflow';

const send = (name: string, key = '{id}:' + name) => tool(name, { tool: 'send-email', idempotencyKey: key });
const loop = (name: string, continueAsNewEvery?: number) =>
  agentLoop(name, {
    task: '{question}',
    tools: [{ name: 'calculator', description: 'adds', inputSchema: { type: 'object' } }],
    continueAsNewEvery,
  });

const cases: [string, Step[], string | undefined, RegExp, WorkflowTypeName?][] = [
  ['a duplicate step name', [send('a'), send('a')], 'a', /duplicate step name/],
  [
    'a step name clashing with a compiler state',
    [send('Start')],
    'Start',
    /state name 'Start' is already used by the compiler/,
  ],
  [
    "a step name clashing with another step's state",
    [approval('ok', { title: 't' }), send('ok-decision')],
    'ok-decision',
    /already used by step 'ok'/,
  ],
  [
    'an unknown next step',
    [tool('a', { tool: 't', idempotencyKey: '{id}', next: 'nowhere' })],
    'a',
    /unknown step 'nowhere'/,
  ],
  [
    'an unknown choice target',
    [choice('c', { branches: [{ when: Condition.isTrue('ok'), next: 'ghost' }] }), send('a')],
    'c',
    /unknown step 'ghost'/,
  ],
  [
    'an unknown approval rejection target',
    [approval('ok', { title: 't', onRejected: 'ghost' })],
    'ok',
    /unknown step 'ghost'/,
  ],
  [
    'an unknown approval timeout target',
    [approval('ok', { title: 't', onTimeout: 'ghost' })],
    'ok',
    /unknown step 'ghost'/,
  ],
  ['a tool step without an idempotency key', [tool('a', { tool: 't', idempotencyKey: '' })], 'a', /no idempotency key/],
  [
    'a tool step with a constant idempotency key',
    [tool('a', { tool: 't', idempotencyKey: 'welcome' })],
    'a',
    /references nothing/,
  ],
  ['a key template reading an unknown step', [send('a', '{steps.ghost.id}')], 'a', /unknown step 'ghost'/],
  ['a key template reading a later step', [send('a', '{steps.b.id}'), send('b')], 'a', /does not run before this step/],
  [
    'a template reading a step on another branch',
    [
      approval('ok', { title: 't', onRejected: 'rejected' }),
      send('approved', '{id}:approved'),
      send('after', '{steps.approved.id}'),
      tool('rejected', { tool: 't', idempotencyKey: '{steps.after.id}' }),
    ],
    'rejected',
    /reads step 'after', which does not run before this step on every path/,
  ],
  [
    'a template reading a choice step',
    [choice('c', { branches: [{ when: Condition.exists('id'), next: 'a' }] }), send('a', '{steps.c.x}')],
    'a',
    /a choice step, which records no result/,
  ],
  ['a malformed template', [send('a', '{id')], 'a', /unclosed '\{'/],
  [
    'a prompt reading an unknown step',
    [model('m', { prompt: 'Summarise {steps.ghost.text}' })],
    'm',
    /unknown step 'ghost'/,
  ],
  [
    'an approval in an EXPRESS workflow',
    [approval('ok', { title: 't' })],
    'ok',
    /an EXPRESS workflow cannot hold an approval step/,
    WorkflowType.EXPRESS,
  ],
  [
    'a wait in an EXPRESS workflow',
    [wait('w', { time: WaitTime.duration(days(1)) })],
    'w',
    /an EXPRESS workflow cannot hold a wait step/,
    WorkflowType.EXPRESS,
  ],
  [
    'an agent loop in an EXPRESS workflow',
    [loop('l')],
    'l',
    /an EXPRESS workflow cannot hold an agentLoop step/,
    WorkflowType.EXPRESS,
  ],
  [
    'a continue-as-new interval over the history budget',
    [loop('l', 5_000)],
    'l',
    /plans \d+ history events per execution \(12 per turn\), over the budget of 20000/,
  ],
  [
    'both next and end',
    [tool('a', { tool: 't', idempotencyKey: '{id}', next: 'b', end: true }), send('b')],
    'a',
    /both 'next' and 'end'/,
  ],
  ['no steps', [], undefined, /at least one step/],
  [
    'a retry interval under a second',
    [tool('a', { tool: 't', idempotencyKey: '{id}', retry: { interval: seconds(0.5) } })],
    'a',
    /retry.interval must be whole seconds >= 1/,
  ],
  [
    'a negative retry count',
    [model('m', { prompt: 'p', retry: { maxAttempts: -1 } })],
    'm',
    /retry.maxAttempts must be a whole number >= 0/,
  ],
  [
    'a step nothing leads to',
    [tool('a', { tool: 't', idempotencyKey: '{id}', end: true }), send('orphan')],
    'orphan',
    /no step leads to it/,
  ],
  [
    'a malformed choice path',
    [choice('c', { branches: [{ when: Condition.isTrue('a b'), next: 'a' }] }), send('a')],
    'c',
    /is not a reference/,
  ],
];

describe('WorkflowDefinitionError', () => {
  it.each(cases)('is thrown for %s, naming the workflow and the step', (_, steps, step, reason, type) => {
    const workflow = defineWorkflow({ name: 'broken', version: '1', type, steps });
    let error: unknown;
    try {
      compileWorkflow(workflow);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WorkflowDefinitionError);
    const e = error as WorkflowDefinitionError;
    expect(e.name).toBe('WorkflowDefinitionError');
    expect(e.workflow).toBe('broken');
    expect(e.step).toBe(step);
    expect(e.message).toMatch(
      step === undefined ? /^Workflow 'broken': / : new RegExp(`^Workflow 'broken', step '${step}': `),
    );
    expect(e.reason).toMatch(reason);
  });

  it('accepts the largest continue-as-new interval that fits the budget and names it when refusing', () => {
    const attempt = (n: number) => () =>
      compileWorkflow(defineWorkflow({ name: 'loop', version: '1', steps: [loop('l', n)] }));
    const refusal = (() => {
      try {
        attempt(5_000)();
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    })();
    const max = Number(/use at most (\d+) turns/.exec(refusal)?.[1]);
    expect(max).toBeGreaterThan(1_000);
    expect(max * 12).toBeLessThanOrEqual(HISTORY_EVENT_BUDGET);
    expect(attempt(max)).not.toThrow();
    expect(attempt(max + 1)).toThrow(WorkflowDefinitionError);
  });

  it('lets EXPRESS workflows hold model, tool and choice steps', () => {
    const steps = [
      model('m', { prompt: 'hi' }),
      choice('c', { branches: [{ when: Condition.exists('steps.m.text'), next: 'a' }] }),
      send('a'),
    ];
    expect(() =>
      compileWorkflow(defineWorkflow({ name: 'fast', version: '1', type: WorkflowType.EXPRESS, steps })),
    ).not.toThrow();
  });
});
