/**
 * `AutosaveTestEnvironment.testState`: one state run alone with TestState, in the test's own process, as
 * `TestStateCommand` runs it against Step Functions: its request fields (definition, stateName, input,
 * inspectionLevel, revealSecrets, mock, context, stateConfiguration) and its answer (status, output, error,
 * cause, nextState, inspectionData), with the JSON fields as values. A workflow of the user's is tested state
 * by state on the definition the engine runs. The AWS behaviours pinned here are those of the TestState API
 * reference and of recorded answers (/work/shared/TESTING-APIS.md, Part A).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approval, defineWorkflow, model, tool } from '@autosave/workflow';
import { AutosaveTestEnvironment } from '@autosave/local/testing';

const hello = defineWorkflow({
  name: 'hello-test-state',
  version: '1',
  steps: [
    model('draft', { prompt: 'Write a one-line welcome for {name}' }),
    approval('review', { title: 'Send this welcome to {name}?', approvers: ['{email}'] }),
    tool('send', {
      tool: 'send-email',
      idempotencyKey: 'welcome:{email}',
      input: { to: '{email}', subject: 'Welcome', body: '{steps.draft.text}' },
    }),
  ],
});
/** The state data the `send` step reads: the run's input and what the steps before it returned. */
const SEND_INPUT = { input: { name: 'Ada', email: 'ada@example.com' }, steps: { draft: { text: 'Welcome aboard!' } } };
/** What the tool-step Lambda answers (`lambda:invoke`'s result, its Payload the step's result). */
const SENT = { StatusCode: 200, Payload: { result: { messageId: 'm-1' } } };

let env: AutosaveTestEnvironment;
beforeAll(async () => {
  env = await AutosaveTestEnvironment.start({ workflows: [hello] });
});
afterAll(async () => {
  await env?.stop();
});

describe('AutosaveTestEnvironment.testState', () => {
  it('runs one state given alone and answers with its output and, at DEBUG, its data flow step by step', async () => {
    const answer = await env.testState({
      definition: {
        Type: 'Pass',
        Parameters: { 'greeting.$': "States.Format('Hello, {}', $.name)" },
        ResultPath: '$.out',
        Next: 'After',
      },
      input: { name: 'Ada' },
      inspectionLevel: 'DEBUG',
    });
    expect(answer).toMatchObject({
      status: 'SUCCEEDED',
      output: { name: 'Ada', out: { greeting: 'Hello, Ada' } },
      nextState: 'After',
    });
    expect(answer.inspectionData).toMatchObject({
      input: { name: 'Ada' },
      afterParameters: { greeting: 'Hello, Ada' },
    });
  });

  it("runs a step of the user's workflow by name, on the definition the engine runs, with a mocked result", async () => {
    const answer = await env.testState({
      definition: hello,
      stateName: 'send',
      input: SEND_INPUT,
      mock: { result: SENT },
    });
    expect(answer.status).toBe('SUCCEEDED');
    // The step's Arguments are evaluated even when mocked: the tool-step would have been asked this.
    expect(answer.inspectionData?.afterArguments).toMatchObject({
      Payload: {
        step: 'send',
        tool: 'send-email',
        idempotencyKey: 'welcome:ada@example.com',
        input: { to: 'ada@example.com', body: 'Welcome aboard!' },
      },
    });
    expect(answer.output).toEqual({ ...SEND_INPUT, steps: { ...SEND_INPUT.steps, send: { messageId: 'm-1' } } });
    // The last step ends the machine: no nextState.
    expect(answer).not.toHaveProperty('nextState');
  });

  it('answers RETRIABLE for a mocked error a Retry rule would retry, and FAILED once the retrier has no attempts left (stateConfiguration.retrierRetryCount)', async () => {
    const mock = { error: 'Lambda.ServiceException', cause: 'throttled' };
    const retriable = await env.testState({ definition: hello, stateName: 'send', input: SEND_INPUT, mock });
    expect(retriable).toMatchObject({ status: 'RETRIABLE', error: 'Lambda.ServiceException', cause: 'throttled' });
    expect(retriable).not.toHaveProperty('output');
    // States.ALL is the step's third retrier (index 2), MaxAttempts 5.
    expect(retriable.inspectionData?.errorDetails).toMatchObject({ retryIndex: 2 });
    const failed = await env.testState({
      definition: hello,
      stateName: 'send',
      input: SEND_INPUT,
      mock,
      retrierRetryCount: 5,
    });
    expect(failed).toMatchObject({ status: 'FAILED', error: 'Lambda.ServiceException' });
  });

  it('answers CAUGHT_ERROR with the catcher as nextState and its output', async () => {
    const answer = await env.testState({
      definition: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { FunctionName: 'f' },
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Recover' }],
        End: true,
      },
      input: { order: 7 },
      mock: { error: 'Refused', cause: 'no stock' },
    });
    expect(answer).toMatchObject({
      status: 'CAUGHT_ERROR',
      nextState: 'Recover',
      error: 'Refused',
      cause: 'no stock',
      output: { order: 7, error: { Error: 'Refused', Cause: 'no stock' } },
    });
  });

  it('uses a given context object as $$ (with a mock)', async () => {
    const answer = await env.testState({
      definition: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { 'run.$': '$$.Execution.Name' },
        End: true,
      },
      context: { Execution: { Name: 'given-run' } },
      mock: { result: { StatusCode: 200 } },
    });
    expect(answer.inspectionData?.afterParameters).toEqual({ run: 'given-run' });
  });

  it.each([
    [
      'revealSecrets together with a mock',
      { revealSecrets: true, mock: { result: SENT } },
      'TestState does not support RevealSecrets when a mock is specified.',
    ],
    ['a stateName the definition does not have', { stateName: 'nowhere' }, 'State not found in definition'],
  ])("refuses %s with ValidationException, in the API's words", async (_case, fields, message) => {
    await expect(
      env.testState({ definition: hello, input: SEND_INPUT, stateName: 'send', ...fields }),
    ).rejects.toMatchObject({ name: 'ValidationException', message });
  });
});
