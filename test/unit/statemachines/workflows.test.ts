import { readFile } from 'node:fs/promises';
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { HISTORY_EVENT_BUDGET, days } from '@autosave/workflow/config';
import { NON_RETRYABLE_ERRORS, StatesError } from '@autosave/workflow/errors';
import { compileWorkflow, planHistory, toAslJson, type AslDefinition } from '@autosave/workflow';
import {
  clinicalTrialOnboarding,
  contractRenewal,
  findWorkflow,
  researchAgent,
  workflows,
} from '../../../statemachines';
import { stateOf, taskStates, validateAsl } from '../../../packages/workflow/test/asl-test-helpers';
import { SimulatedTaskError, walkDefinition, type TaskHandler } from '../../../packages/workflow/test/walk-definition';

const compiled = new Map<string, AslDefinition>(workflows.map((w) => [w.name, compileWorkflow(w)]));
const aslOf = (name: string) => compiled.get(name)!;

type Payload = Record<string, unknown>;
const payloadOf = (asl: AslDefinition, state: string) =>
  (stateOf(asl, state, 'Task').Arguments as { Payload: Payload }).Payload;
const keyOf = (asl: AslDefinition, state: string) => payloadOf(asl, state).idempotencyKey as string;
const evaluate = (field: string, input: unknown) =>
  jsonata(field.slice(2, -2)).evaluate({}, { states: { input: { input, steps: {} } } });

describe('the workflow registry', () => {
  it('holds the four example workflows under unique names, each with an example input', () => {
    expect(workflows.map((w) => w.name)).toEqual([
      'clinical-trial-onboarding',
      'contract-renewal',
      'research-agent',
      'support-triage',
    ]);
    for (const w of workflows) {
      expect(w.exampleInput, w.name).toBeDefined();
      // Only the short triage runs as EXPRESS: the others wait on humans or loop for many turns.
      expect(w.type, w.name).toBe(w.name === 'support-triage' ? 'EXPRESS' : 'STANDARD');
      expect(findWorkflow(w.name)).toBe(w);
    }
    expect(findWorkflow('nope')).toBeUndefined();
  });
});

describe.each(workflows.map((w) => [w.name, w] as const))('%s', (name, workflow) => {
  const asl = aslOf(name);

  it('passes asl-validator', () => {
    expect(validateAsl(asl).errorsText()).toBe('');
  });

  it('gives every Task the retry policy and no Catch to a Fail state', () => {
    const tasks = taskStates(asl);
    expect(tasks.length).toBeGreaterThan(0);
    for (const [state, task] of tasks) {
      expect(task.Retry[0].ErrorEquals, state).toEqual(expect.arrayContaining([...NON_RETRYABLE_ERRORS]));
      expect(task.Retry[0].MaxAttempts, state).toBe(0);
      expect(task.Retry.at(-1), state).toMatchObject({
        ErrorEquals: [StatesError.ALL],
        MaxAttempts: 5,
        IntervalSeconds: 2,
        BackoffRate: 2,
        JitterStrategy: 'FULL',
      });
      for (const c of task.Catch ?? [])
        expect(asl.States[c.Next].Type, `${state} catches to ${c.Next}`).not.toBe('Fail');
    }
  });

  it('gives every tool step its idempotency key expression', () => {
    for (const step of workflow.steps.filter((s) => s.kind === 'tool')) {
      expect(keyOf(asl, step.name), step.name).toMatch(/^\{% .+ %\}$/);
    }
  });

  it('compiles to identical JSON twice and matches its golden file', async () => {
    const json = toAslJson(asl);
    expect(toAslJson(compileWorkflow(workflow))).toBe(json);
    // To accept a deliberate change: `node bin/autosave.js compile --out test/fixtures/asl` and review the diff.
    expect(json).toBe(await readFile(new URL(`../../fixtures/asl/${name}.asl.json`, import.meta.url), 'utf8'));
  });

  it('plans its history within the budget', () => {
    expect(planHistory(workflow).plannedEvents).toBeLessThanOrEqual(HISTORY_EVENT_BUDGET);
  });
});

describe('clinical-trial-onboarding', () => {
  const asl = aslOf(clinicalTrialOnboarding.name);
  const input = clinicalTrialOnboarding.exampleInput;

  it('sends the welcome pack through send-email with the key site-4412:welcome', async () => {
    expect(payloadOf(asl, 'email-welcome-pack').tool).toBe('send-email');
    expect(await evaluate(keyOf(asl, 'email-welcome-pack'), input)).toBe('site-4412:welcome');
  });

  it('waits 5 days for the coordinator, with declared timeout and rejection paths', () => {
    const approval = stateOf(asl, 'coordinator-approval', 'Task');
    expect(approval.Resource).toBe('arn:aws:states:::lambda:invoke.waitForTaskToken');
    expect(approval.TimeoutSeconds).toBe(days(5).seconds);
    expect(payloadOf(asl, 'coordinator-approval')).toMatchObject({
      taskToken: '{% $states.context.Task.Token %}',
      timeoutSeconds: days(5).seconds,
    });
    expect(approval.Retry[0].ErrorEquals).toEqual(
      expect.arrayContaining([StatesError.Timeout, StatesError.HeartbeatTimeout]),
    );
    expect(approval.Catch).toEqual([
      expect.objectContaining({
        ErrorEquals: [StatesError.Timeout, StatesError.HeartbeatTimeout],
        Next: 'notify-approval-expired',
      }),
    ]);
    expect(stateOf(asl, 'coordinator-approval-decision', 'Choice')).toMatchObject({
      Choices: [{ Next: 'provision-edc-access' }],
      Default: 'notify-site-rejected',
    });
  });

  const tools = (decision: unknown): { handler: TaskHandler; calls: { state: string; payload: Payload }[] } => {
    const calls: { state: string; payload: Payload }[] = [];
    const handler: TaskHandler = (state, resource, args) => {
      calls.push({ state, payload: args.Payload });
      if (resource.endsWith('.waitForTaskToken')) {
        if (decision instanceof SimulatedTaskError) throw decision;
        return decision;
      }
      // The tool-step Lambda answers with an envelope (docs/architecture.md §2); model steps answer bare.
      return { Payload: 'tool' in args.Payload ? { result: { ok: state }, source: 'executed' } : { ok: state } };
    };
    return { handler, calls };
  };

  it('runs its seven steps in order when approved', async () => {
    const { handler, calls } = tools({
      approved: true,
      by: 'coordinator@site-4412.example.org',
      at: '2026-11-30T10:00:00Z',
    });
    const run = await walkDefinition(asl, input, handler);
    expect(calls.map((c) => c.state)).toEqual([
      'verify-site',
      'create-accounts',
      'request-irb-document',
      'coordinator-approval',
      'provision-edc-access',
      'email-welcome-pack',
      'schedule-kickoff',
    ]);
    expect(calls[5].payload).toMatchObject({
      tool: 'send-email',
      idempotencyKey: 'site-4412:welcome',
      input: { to: input?.coordinatorEmail },
    });
    expect(calls[3].payload).toMatchObject({
      title: 'Approve Riverside Clinical Research (site-4412) for the trial',
      approvers: [input?.coordinatorEmail],
    });
    expect(run.end).toBe('schedule-kickoff');
    expect(run.output.steps['coordinator-approval']).toMatchObject({ approved: true });
    // A tool step records the tool's result, not the Lambda's envelope.
    expect(run.output.steps['email-welcome-pack']).toEqual({ ok: 'email-welcome-pack' });
  });

  it('tells the coordinator and stops when rejected', async () => {
    const { handler, calls } = tools({ approved: false, by: 'irb@site-4412.example.org', at: '2026-11-30T10:00:00Z' });
    const run = await walkDefinition(asl, input, handler);
    expect(calls.slice(3).map((c) => [c.state, c.payload.idempotencyKey])).toEqual([
      ['coordinator-approval', undefined],
      ['notify-site-rejected', 'site-4412:rejected'],
    ]);
    expect(run.end).toBe('notify-site-rejected');
  });

  it('tells the coordinator and stops when nobody decides in 5 days', async () => {
    const { handler, calls } = tools(new SimulatedTaskError(StatesError.Timeout));
    const run = await walkDefinition(asl, input, handler);
    expect(calls.at(-1)).toMatchObject({
      state: 'notify-approval-expired',
      payload: { idempotencyKey: 'site-4412:approval-expired' },
    });
    expect(run.output.steps['coordinator-approval']).toEqual({ approved: false, timedOut: true });
  });
});

describe('contract-renewal', () => {
  const asl = aslOf(contractRenewal.name);

  it('has a model draft the email and send-email send it with the key renewal:{contractId}:{version}', async () => {
    expect(stateOf(asl, 'draft-renewal-email', 'Task')).toMatchObject({ Next: 'send-renewal-email' });
    expect(payloadOf(asl, 'send-renewal-email').tool).toBe('send-email');
    expect(await evaluate(keyOf(asl, 'send-renewal-email'), contractRenewal.exampleInput)).toBe('renewal:C-2291:3');
    expect((payloadOf(asl, 'send-renewal-email').input as Payload).body).toBe(
      '{% $states.input.steps.`draft-renewal-email`.text %}',
    );
  });
});

describe('research-agent', () => {
  const asl = aslOf(researchAgent.name);

  it('loops over search-web, read-document and calculator and can continue as new', () => {
    const tools = (payloadOf(asl, 'research').tools as { name: string }[]).map((t) => t.name);
    expect(tools).toEqual(['search-web', 'read-document', 'calculator']);
    expect(stateOf(asl, 'research-route', 'Choice').Choices.map((c) => c.Next)).toEqual([
      'Done',
      'Done',
      'research-continue-as-new',
    ]);
    expect(stateOf(asl, 'research-continue-as-new', 'Task')).toMatchObject({
      Resource: 'arn:aws:states:::states:startExecution',
      Next: 'research-continued',
    });
    expect(planHistory(researchAgent).eventsPerTurn).toEqual({ research: 12 });
  });
});
