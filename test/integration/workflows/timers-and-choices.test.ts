/**
 * A builder workflow with the steps the examples do not use — `choice` and durable `wait` timers (a fixed
 * duration, and a timestamp from the input) — compiled, deployed and run on the local engine, with time
 * moved by the virtual clock: each email goes out when its timer is due and not before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { days } from '@autosave/workflow/config';
import { Condition, WaitTime, choice, defineWorkflow, tool, wait } from '@autosave/workflow';
import {
  enteredStates,
  historyOf,
  startWorkflowEngine,
  untilClosed,
  type WorkflowEngine,
} from './support/workflow-engine';

const reminders = defineWorkflow({
  name: 'renewal-reminder',
  version: '1.0.0',
  steps: [
    choice('by-tier', {
      branches: [{ when: Condition.equals('tier', 'gold'), next: 'wait-until-date' }],
      otherwise: 'wait-a-week',
    }),
    wait('wait-a-week', { time: WaitTime.duration(days(7)) }),
    tool('remind', {
      tool: 'send-email',
      idempotencyKey: 'reminder:{contractId}',
      input: { to: '{email}', subject: 'Your contract {contractId} renews soon', body: 'Reply to change anything.' },
      end: true,
    }),
    wait('wait-until-date', { time: WaitTime.until('{remindAt}') }),
    tool('remind-gold', {
      tool: 'send-email',
      idempotencyKey: 'reminder:{contractId}',
      input: {
        to: '{email}',
        subject: 'Your account manager will call about {contractId}',
        body: 'We will call you this week.',
      },
      end: true,
    }),
  ],
});

let engine: WorkflowEngine;
beforeAll(async () => {
  engine = await startWorkflowEngine();
  await engine.deploy(reminders);
});
afterAll(async () => {
  await engine?.close();
});

const status = async (executionArn: string) =>
  (await engine.sfn.send(new DescribeExecutionCommand({ executionArn }))).status;
const reminded = async () => (await engine.outbox()).map((e) => e.idempotencyKey).sort();

describe('choice and durable timers on the virtual clock', () => {
  it('sends each reminder when its timer is due, on the branch its input chose', async () => {
    const { epochMillis } = (await (await fetch(`${engine.local.url}/_autosave/clock`)).json()) as {
      epochMillis: number;
    };
    const remindAt = new Date(epochMillis + days(30).seconds * 1000).toISOString();
    const basic = await engine.start(reminders.name, 'remind-C-1', {
      contractId: 'C-1',
      tier: 'basic',
      email: 'a@example.org',
    });
    const gold = await engine.start(reminders.name, 'remind-C-2', {
      contractId: 'C-2',
      tier: 'gold',
      email: 'b@example.org',
      remindAt,
    });

    await engine.advance({ seconds: days(7).seconds - 1 });
    expect([await status(basic), await status(gold)]).toEqual(['RUNNING', 'RUNNING']);
    expect(await reminded()).toEqual([]);

    await engine.advance({ seconds: 1 });
    expect((await untilClosed(engine.sfn, basic)).status).toBe('SUCCEEDED');
    expect(await status(gold)).toBe('RUNNING');
    expect(await reminded()).toEqual(['reminder:C-1']);

    await engine.advance(days(23));
    expect((await untilClosed(engine.sfn, gold)).status).toBe('SUCCEEDED');
    expect(await reminded()).toEqual(['reminder:C-1', 'reminder:C-2']);

    expect(enteredStates(await historyOf(engine.sfn, basic))).toEqual(
      expect.arrayContaining(['by-tier', 'wait-a-week', 'remind']),
    );
    expect(enteredStates(await historyOf(engine.sfn, gold))).toEqual(
      expect.arrayContaining(['by-tier', 'wait-until-date', 'remind-gold']),
    );
    expect(enteredStates(await historyOf(engine.sfn, gold))).not.toContain('wait-a-week');
  });
});
