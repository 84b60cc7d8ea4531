/**
 * clinical-trial-onboarding, whole: the real compiled workflow and the real Lambdas on the local engine,
 * started through its `live` alias with the seed input. The run pauses on the coordinator's approval; the
 * test finds the link where a user's tools find it (the approval-request result in the history) and
 * decides it through the engine's /approvals/ route, as the approval page's form does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { days, hours } from '@autosave/workflow/config';
import { clinicalTrialOnboarding } from '../../../statemachines';
import {
  approvalUrlOf,
  enteredStates,
  historyOf,
  postDecision,
  startWorkflowEngine,
  untilClosed,
  type WorkflowEngine,
} from './support/workflow-engine';

const WORKFLOW = clinicalTrialOnboarding.name;
const seed = clinicalTrialOnboarding.exampleInput as { siteId: string; coordinatorEmail: string; siteName: string };

let engine: WorkflowEngine;
beforeAll(async () => {
  engine = await startWorkflowEngine();
});
afterAll(async () => {
  await engine?.close();
});

/** Emails the outbox holds under `key`. */
const emailsUnder = async (key: string) => (await engine.outbox()).filter((e) => e.idempotencyKey === key);

describe('clinical-trial-onboarding on the local engine', () => {
  it('seed run: pauses on the approval, the signed link approves it, it succeeds with one welcome email', async () => {
    expect(seed.siteId).toBe('site-4412');
    const executionArn = await engine.start(WORKFLOW, 'onboard-site-4412', seed);

    const url = await approvalUrlOf(engine.sfn, executionArn);
    expect(new URL(url).pathname).toMatch(/^\/approvals\/[^/]+$/);
    expect(new URL(url).searchParams.get('sig')).toBeTruthy();
    expect((await engine.sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('RUNNING');
    // The coordinator was asked (the notice carries the same link); nothing after the approval ran yet.
    const notices = (await engine.outbox()).filter((e) => e.idempotencyKey.startsWith('approval:'));
    expect(notices).toHaveLength(1);
    expect(notices[0].to).toEqual([seed.coordinatorEmail]);
    expect(notices[0].body).toContain(url);
    expect(await emailsUnder('site-4412:welcome')).toHaveLength(0);

    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(seed.siteName);

    const decided = await postDecision(url, 'approve', 'coordinator@site-4412.example.org', 'IRB document checked');
    expect(decided.status).toBe(200);

    const done = await untilClosed(engine.sfn, executionArn);
    expect(done.status).toBe('SUCCEEDED');
    const output = JSON.parse(done.output!) as { steps: Record<string, any> };
    expect(output.steps['coordinator-approval']).toMatchObject({
      approved: true,
      by: 'coordinator@site-4412.example.org',
      comment: 'IRB document checked',
    });
    expect(output.steps['schedule-kickoff']).toMatchObject({ siteId: 'site-4412' });

    const welcome = await emailsUnder('site-4412:welcome');
    expect(welcome).toHaveLength(1);
    expect(welcome[0]).toMatchObject({
      to: [seed.coordinatorEmail],
      subject: `Welcome to the trial, ${seed.siteName}`,
    });
    expect((await engine.outbox()).filter((e) => e.idempotencyKey.startsWith('site-4412:'))).toHaveLength(1);

    const entered = enteredStates(await historyOf(engine.sfn, executionArn));
    expect(entered).toContain('provision-edc-access');
    expect(entered).not.toContain('notify-site-rejected');
    expect(entered).not.toContain('notify-approval-expired');

    // The link is single-use: a second decision is refused and changes nothing.
    const replay = await postDecision(url, 'reject', 'someone-else@example.org');
    expect(replay.status).toBe(409);
    expect(await emailsUnder('site-4412:rejected')).toHaveLength(0);
  });

  it('rejection: the declared rejection path tells the coordinator, nothing is provisioned, no welcome email', async () => {
    const input = { ...seed, siteId: 'site-5150' };
    const executionArn = await engine.start(WORKFLOW, 'onboard-site-5150', input);
    const url = await approvalUrlOf(engine.sfn, executionArn);

    const decided = await postDecision(url, 'reject', 'coordinator@site-5150.example.org', 'IRB document missing');
    expect(decided.status).toBe(200);

    const done = await untilClosed(engine.sfn, executionArn);
    expect(done.status).toBe('SUCCEEDED');
    const entered = enteredStates(await historyOf(engine.sfn, executionArn));
    expect(entered.at(-1)).toBe('notify-site-rejected');
    expect(entered).not.toContain('provision-edc-access');

    const rejected = await emailsUnder('site-5150:rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0].body).toContain('rejected by coordinator@site-5150.example.org');
    expect(await emailsUnder('site-5150:welcome')).toHaveLength(0);
  });

  it('timeout: 5 days without a decision (virtual clock) take the declared timeout path, and the link says the run moved on', async () => {
    const input = { ...seed, siteId: 'site-7001' };
    const executionArn = await engine.start(WORKFLOW, 'onboard-site-7001', input);
    const url = await approvalUrlOf(engine.sfn, executionArn);

    // One hour short of the timeout nothing happens.
    await engine.advance({ seconds: days(5).seconds - hours(1).seconds });
    expect((await engine.sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('RUNNING');
    expect(await emailsUnder('site-7001:approval-expired')).toHaveLength(0);

    await engine.advance(hours(1));
    const done = await untilClosed(engine.sfn, executionArn);
    expect(done.status).toBe('SUCCEEDED');
    const history = await historyOf(engine.sfn, executionArn);
    expect(history.some((e) => e.type === 'TaskTimedOut')).toBe(true);
    const entered = enteredStates(history);
    expect(entered.at(-1)).toBe('notify-approval-expired');
    expect(entered).not.toContain('provision-edc-access');
    expect(await emailsUnder('site-7001:approval-expired')).toHaveLength(1);
    expect(await emailsUnder('site-7001:welcome')).toHaveLength(0);

    // A late click does not approve a run that has moved on.
    const late = await postDecision(url, 'approve', 'coordinator@site-7001.example.org');
    expect(late.status).toBe(410);
  });

  it('two decisions at once (a double click, two approvers): exactly one counts and the run follows it', async () => {
    const input = { ...seed, siteId: 'site-8080' };
    const executionArn = await engine.start(WORKFLOW, 'onboard-site-8080', input);
    const url = await approvalUrlOf(engine.sfn, executionArn);

    const answers = await Promise.all([
      postDecision(url, 'approve', 'coordinator@site-8080.example.org'),
      postDecision(url, 'reject', 'deputy@site-8080.example.org'),
    ]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 409]);
    const approvedWon = answers[0].status === 200;

    const done = await untilClosed(engine.sfn, executionArn);
    expect(done.status).toBe('SUCCEEDED');
    const output = JSON.parse(done.output!) as { steps: Record<string, any> };
    expect(output.steps['coordinator-approval'].approved).toBe(approvedWon);
    expect(await emailsUnder('site-8080:welcome')).toHaveLength(approvedWon ? 1 : 0);
    expect(await emailsUnder('site-8080:rejected')).toHaveLength(approvedWon ? 0 : 1);
  });
});
