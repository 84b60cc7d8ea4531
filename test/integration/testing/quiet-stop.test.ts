/**
 * `AutosaveTestEnvironment.stop()` is quiet (issue 32, item 5): a run that fails hands its close to
 * run-monitor (the EventBridge rule's target on AWS; a ToolRejectedError is never retried, so the run fails at once), which reads the run's history from the Step Functions
 * API and sends a dead letter. Stopping right after the run closed must not leave that hook calling servers
 * that are gone: nothing about a refused connection, nor a failed close hook, reaches the test's output.
 */
import { inspect } from 'node:util';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { defineWorkflow, tool } from '@autosave/workflow';
import { AutosaveTestEnvironment, mockConfig, mockThrow } from '@autosave/local/testing';

const failing = defineWorkflow({
  name: 'quiet-stop',
  version: '1',
  steps: [tool('send', { tool: 'send-email', idempotencyKey: 'quiet:{email}', input: { to: '{email}' } })],
});

/** Every line written to the console or stderr while a test runs. */
let output: string[];
beforeEach(() => {
  output = [];
  const capture = (...args: unknown[]) =>
    void output.push(args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' '));
  for (const method of ['log', 'info', 'warn', 'error'] as const) vi.spyOn(console, method).mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array) => {
    output.push(String(chunk));
    return true;
  }) as typeof process.stderr.write);
});
afterEach(() => vi.restoreAllMocks());

it('says nothing about refused connections when stopped right after a run failed', async () => {
  const env = await AutosaveTestEnvironment.start({
    workflows: [failing],
    mocks: mockConfig()
      .testCase(failing.name, 'Broken', { send: 'Broken' })
      .response('Broken', mockThrow('ToolRejectedError', 'the tool refused')),
  });
  const run = await env.startRun(failing, { email: 'ada@example.com' }, { testCase: 'Broken' });
  await expect(env.waitFor(run, 'SUCCEEDED')).rejects.toThrow(/FAILED/);
  await env.stop();
  // A close hook still under way would fail within a few hundred milliseconds of the servers closing.
  await new Promise((done) => setTimeout(done, 2_000));
  const noisy = output.filter((line) => /ECONNREFUSED|close hooks failed|run-monitor failed/.test(line));
  expect(noisy).toEqual([]);
});
