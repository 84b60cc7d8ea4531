/**
 * @autosave/local/testing with mocked service integrations, as a user's test writes them: a typed mock
 * config, and `startRun(workflow, input, { testCase })` to run a workflow's Retry or Catch path without the
 * services failing for real. States the test case does not map run the real handlers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AutosaveTestEnvironment, minutes, mockConfig, mockReturn, mockThrow } from '@autosave/local/testing';
import { handler as exampleToolStep } from '../../../lambdas/tool-step';
import { clinicalTrialOnboarding, contractRenewal } from '../../../statemachines';

const toolDone = mockReturn({ StatusCode: 200, Payload: { result: { ok: true }, source: 'executed' } }, 10);

let env: AutosaveTestEnvironment;
beforeAll(async () => {
  env = await AutosaveTestEnvironment.start({
    workflows: [contractRenewal, clinicalTrialOnboarding],
    // The onboarding steps no test case maps call the example's own tools: without them the start is refused.
    functions: { 'tool-step': exampleToolStep },
    mocks: mockConfig()
      .testCase(contractRenewal.name, 'ModelDownOnce', { 'draft-renewal-email': 'ModelDownThenDraft' })
      .response(
        'ModelDownThenDraft',
        mockThrow('Lambda.ServiceException', 'The model endpoint was unavailable.'),
        mockReturn({
          StatusCode: 200,
          Payload: {
            text: 'Shall we renew, Ada?',
            toolCalls: [],
            final: true,
            usage: { inputTokens: 1, outputTokens: 1 },
            replayed: false,
          },
        }),
      )
      .testCase(clinicalTrialOnboarding.name, 'ApprovalExpired', {
        'verify-site': 'ToolDone',
        'create-accounts': 'ToolDone',
        'request-irb-document': 'ToolDone',
        'coordinator-approval': 'TimedOut',
        'notify-approval-expired': 'ToolDone',
      })
      .response('ToolDone', toolDone)
      .response('TimedOut', mockThrow('States.Timeout')),
  });
});
afterAll(async () => {
  await env?.stop();
});

describe('AutosaveTestEnvironment with mocks', () => {
  it('startRun(..., { testCase }) runs a Retry path: the model step fails once, is retried, and the real send-email tool mails the draft', async () => {
    const run = await env.startRun(contractRenewal, contractRenewal.exampleInput, { testCase: 'ModelDownOnce' });
    await env.advanceTime(minutes(5));
    await env.waitFor(run, 'SUCCEEDED');
    expect(await env.attempts(run, 'draft-renewal-email')).toBe(2);
    expect((await env.outbox()).map((m) => m.body)).toContain('Shall we renew, Ada?');
  });

  it('runs a Catch path: an approval that times out goes to notify-approval-expired', async () => {
    const run = await env.startRun(clinicalTrialOnboarding, clinicalTrialOnboarding.exampleInput, {
      testCase: 'ApprovalExpired',
    });
    await env.waitFor(run, 'SUCCEEDED');
    const entered = (await env.history(run))
      .filter((e) => e.type === 'TaskStateEntered')
      .map((e) => e.stateEnteredEventDetails!.name);
    expect(entered.at(-1)).toBe('notify-approval-expired');
  });

  it('an unknown test case is refused at start, naming it', async () => {
    await expect(env.startRun(contractRenewal, contractRenewal.exampleInput, { testCase: 'Nope' })).rejects.toThrow(
      /Invalid mock test case name 'Nope' for state machine 'contract-renewal'/,
    );
  });
});
