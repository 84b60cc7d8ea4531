/**
 * One state of each example workflow tested with TestState, as a Step Functions user tests a state of a
 * deployed machine: the whole compiled definition (local placeholders filled), `stateName`, a mocked
 * Lambda answer or error, and the state data `{input, steps}` the states before it would have built
 * (docs/architecture.md §1).
 */
import { describe, expect, it } from 'vitest';
import { localDefinition } from '../../../packages/local/src/services/deploy-workflows';
import { clinicalTrialOnboarding, contractRenewal, researchAgent, supportTriage } from '../../../statemachines';
import { testStateEngine } from '../../conformance/test-state/support';

const { testState } = testStateEngine();

/** A lambda:invoke answer whose Payload is `payload`. */
const invoked = (payload: unknown) => ({ result: { ExecutedVersion: '$LATEST', Payload: payload, StatusCode: 200 } });

describe('clinical-trial-onboarding: coordinator-approval-decision (Choice)', () => {
  const definition = localDefinition(clinicalTrialOnboarding);
  const input = (approved: boolean) => ({
    input: clinicalTrialOnboarding.exampleInput,
    steps: { 'coordinator-approval': { approved, by: 'dr.lee', at: '2026-01-01T00:00:00Z' } },
  });

  it('goes on to provision EDC access when the coordinator approved', async () => {
    const answer = await testState({ definition, stateName: 'coordinator-approval-decision', input: input(true) });
    expect(answer).toEqual({ status: 'SUCCEEDED', output: input(true), nextState: 'provision-edc-access' });
  });

  it('notifies the site when the coordinator rejected', async () => {
    expect(
      (await testState({ definition, stateName: 'coordinator-approval-decision', input: input(false) })).nextState,
    ).toBe('notify-site-rejected');
  });
});

describe('contract-renewal: send-renewal-email (tool Task)', () => {
  const definition = localDefinition(contractRenewal);
  const input = {
    input: contractRenewal.exampleInput,
    steps: { 'draft-renewal-email': { text: 'Dear Northwind Labs, ...' } },
  };

  it("sends with the idempotency key renewal:<contractId>:<version> and records the tool's result as the step", async () => {
    const sent = { messageId: 'm-1' };
    const answer = await testState({
      definition,
      stateName: 'send-renewal-email',
      input,
      inspectionLevel: 'DEBUG',
      mock: invoked({ result: sent, source: 'executed' }),
    });
    expect(answer.status).toBe('SUCCEEDED');
    expect(answer.inspectionData.afterArguments.Payload).toMatchObject({
      tool: 'send-email',
      idempotencyKey: 'renewal:C-2291:3',
      input: { to: 'procurement@northwind.example.com', body: 'Dear Northwind Labs, ...' },
    });
    expect(answer.output.steps['send-renewal-email']).toEqual(sent);
    expect(answer).not.toHaveProperty('nextState');
  });

  it('does not retry a tool that rejected the call (its retrier has MaxAttempts 0): FAILED', async () => {
    const answer = await testState({
      definition,
      stateName: 'send-renewal-email',
      input,
      inspectionLevel: 'DEBUG',
      mock: { errorOutput: { error: 'ToolRejectedError', cause: 'invalid address' } },
    });
    expect(answer).toMatchObject({ status: 'FAILED', error: 'ToolRejectedError' });
    expect(answer.inspectionData.errorDetails).toEqual({ retryIndex: 0 });
  });
});

describe("research-agent: research-route (the agent loop's Choice)", () => {
  const definition = localDefinition(researchAgent);
  const input = (research: object) => ({
    input: researchAgent.exampleInput,
    steps: {
      research: {
        turn: 0,
        generation: 0,
        text: '',
        usage: { inputTokens: 1, outputTokens: 1 },
        replayed: false,
        ...research,
      },
    },
  });

  it('ends the loop on a final answer', async () => {
    expect(
      (await testState({ definition, stateName: 'research-route', input: input({ final: true, toolCalls: [] }) }))
        .nextState,
    ).toBe('Done');
  });

  it('runs the tools when the model asked for some', async () => {
    const answer = await testState({
      definition,
      stateName: 'research-route',
      input: input({ final: false, toolCalls: [{ id: 't1', name: 'search', input: {} }] }),
    });
    expect(answer.nextState).toBe('research-tools');
  });
});

describe('support-triage: draft-reply (model Task)', () => {
  const definition = localDefinition(supportTriage);
  const input = { input: supportTriage.exampleInput, steps: {} };

  it('while another attempt holds the idempotency lease, it waits per LEASE_WAIT_RETRY: the 3rd retry after 20 s (5 x 2^2, under MaxDelaySeconds 30)', async () => {
    const answer = await testState({
      definition,
      stateName: 'draft-reply',
      input,
      inspectionLevel: 'DEBUG',
      stateConfiguration: { retrierRetryCount: 2 },
      mock: { errorOutput: { error: 'IdempotencyInProgressError', cause: 'leased' } },
    });
    expect(answer).toMatchObject({ status: 'RETRIABLE', error: 'IdempotencyInProgressError' });
    expect(answer.inspectionData.errorDetails).toEqual({ retryIndex: 1, retryBackoffIntervalSeconds: 20 });
  });

  it("records the model's reply as the step and moves on to classify-message", async () => {
    const reply = {
      text: 'Sorry about that, Ada.',
      toolCalls: [],
      final: true,
      usage: { inputTokens: 10, outputTokens: 8 },
      replayed: false,
    };
    const answer = await testState({ definition, stateName: 'draft-reply', input, mock: invoked(reply) });
    expect(answer).toEqual({
      status: 'SUCCEEDED',
      output: { ...input, steps: { 'draft-reply': reply } },
      nextState: 'classify-message',
    });
  });
});
