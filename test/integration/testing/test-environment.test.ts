/**
 * @autosave/local/testing as a user's test uses it: imported by package name, the example app's onboarding
 * workflow deployed by value, decided, timed out, restarted in the middle, and read back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AutosaveTestEnvironment, TestEnvironmentError, days } from '@autosave/local/testing';
import { handler as exampleToolStep } from '../../../lambdas/tool-step';
import { clinicalTrialOnboarding } from '../../../statemachines';
import { exampleProject } from '../../fixtures/example-app';

let env: AutosaveTestEnvironment;
let envBefore: Record<string, string | undefined>;
let envAfterStart: Record<string, string | undefined>;

beforeAll(async () => {
  envBefore = { ...process.env };
  env = await AutosaveTestEnvironment.start({
    workflows: [clinicalTrialOnboarding],
    // The onboarding workflow's tools are the example app's own, registered by value as a user registers theirs.
    functions: { 'tool-step': exampleToolStep },
    model: { script: (await exampleProject()).environment.AUTOSAVE_MODEL_SCRIPT },
  });
  envAfterStart = { ...process.env };
});
afterAll(async () => {
  await env?.stop();
});

/** An onboarding run of the calling test's own site (its own idempotency keys). */
const onboard = (site: string) =>
  env.startRun(clinicalTrialOnboarding, {
    ...clinicalTrialOnboarding.exampleInput,
    siteId: site,
    coordinatorEmail: `coordinator@${site}.example.org`,
  });
const welcomeEmails = async (site: string) =>
  (await env.outbox()).filter((e) => e.idempotencyKey === `${site}:welcome`);

describe('AutosaveTestEnvironment', () => {
  it('starts the engine in process without writing process.env', () => {
    expect(envAfterStart).toEqual(envBefore);
  });

  it('approves a waiting run: it goes on to SUCCEEDED and sends the welcome pack once', async () => {
    const run = await onboard('site-approve');
    await env.waitFor(run, 'WAITING_FOR_APPROVAL');
    expect((await env.approvals(run)).map((a) => a.step)).toEqual(['coordinator-approval']);
    await env.approve(run, 'coordinator-approval', { by: 'coordinator@example.org' });
    const done = await env.waitFor(run, 'SUCCEEDED');
    expect(JSON.parse(done.output!)).toMatchObject({
      steps: { 'coordinator-approval': { approved: true, by: 'coordinator@example.org' } },
    });
    expect(await welcomeEmails('site-approve')).toHaveLength(1);
    expect(await env.attempts(run, 'email-welcome-pack')).toBe(1);
  });

  it('rejects: the run takes the rejection path and sends no welcome pack', async () => {
    const run = await onboard('site-reject');
    await env.waitFor(run, 'WAITING_FOR_APPROVAL');
    await env.reject(run);
    await env.waitFor(run, 'SUCCEEDED');
    expect(await env.attempts(run, 'notify-site-rejected')).toBe(1);
    expect(await env.attempts(run, 'email-welcome-pack')).toBe(0);
  });

  it('advances virtual time past the approval timeout (5 days): the timeout path runs, no real time passes', async () => {
    const run = await onboard('site-expire');
    await env.waitFor(run, 'WAITING_FOR_APPROVAL');
    await env.advanceTime(days(6));
    await env.waitFor(run, 'SUCCEEDED');
    expect(await env.attempts(run, 'notify-approval-expired')).toBe(1);
  });

  it('restarts the engine in the middle of a run: the run resumes, each side effect still happens once', async () => {
    const run = await onboard('site-restart');
    await env.waitFor(run, 'WAITING_FOR_APPROVAL');
    await env.restart();
    await env.approve(run);
    await env.waitFor(run, 'SUCCEEDED');
    for (const step of ['verify-site', 'create-accounts', 'request-irb-document', 'email-welcome-pack'])
      expect(await env.attempts(run, step)).toBe(1);
    expect(await welcomeEmails('site-restart')).toHaveLength(1);
    const types = (await env.history(run)).map((e) => e.type);
    expect(types[0]).toBe('ExecutionStarted');
    expect(types.at(-1)).toBe('ExecutionSucceeded');
  });

  it('says what is wrong in its own words: an unknown workflow, an approval that is not waiting, a run that ended otherwise', async () => {
    await expect(env.startRun('no-such-workflow')).rejects.toThrow(
      /no workflow 'no-such-workflow' \(deployed: clinical-trial-onboarding\)/,
    );
    const run = await onboard('site-errors');
    await env.waitFor(run, 'WAITING_FOR_APPROVAL');
    await expect(env.approve(run, 'provision-edc-access')).rejects.toBeInstanceOf(TestEnvironmentError);
    await env.reject(run);
    await expect(env.waitFor(run, 'FAILED')).rejects.toThrow(/is SUCCEEDED, not FAILED/);
  });
});
