/**
 * `autosave test-state <workflow> <state>` against a running local engine: the workflow's compiled
 * definition sent to TestState (through @aws-sdk/client-sfn with the host prefix off), the answer printed
 * step by step for a person, or as the wire answer with --json.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../packages/local/src/cli/main';
import { captureTerminal } from '../../../packages/local/src/cli/output';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { exampleApp } from '../../fixtures/example-app';

let local: LocalEngine;
let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'autosave-cli-test-state-'));
  local = await startLocal({ ...(await exampleApp()), port: 0, dataDir, log: () => undefined });
});
afterAll(async () => {
  await local?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = captureTerminal();
  try {
    const code = await main(['test-state', ...args, '--endpoint', local.url]);
    return { code, stdout: out.stdout, stderr: out.stderr };
  } finally {
    out.release();
  }
}

describe('autosave test-state', () => {
  it('runs the first state on the example input and prints each data-flow step, the output and the next state', async () => {
    const { code, stdout } = await cli('support-triage', 'Start');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Start: SUCCEEDED\n/);
    expect(stdout).toContain('\n  input\n    {\n      "ticketId": "T-1042"');
    expect(stdout).toContain('\n  output\n    {\n      "input": {');
    expect(stdout).toMatch(/\n {2}next state: draft-reply\n$/);
  });

  it('makes the real call for an un-mocked Task: the model step on the local engine answers', async () => {
    const { code, stdout } = await cli(
      'support-triage',
      'draft-reply',
      '--input',
      JSON.stringify({ input: { ticketId: 'T-1', customerName: 'Ada', message: 'Hi' }, steps: {} }),
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/^draft-reply: SUCCEEDED\n/);
    expect(stdout).toContain('\n  after Arguments\n');
    expect(stdout).toContain('\n  result\n');
    expect(stdout).toContain('next state: classify-message');
  });

  it('mocks an error with --error and shows what the retrier would do (exit 1: the state did not complete)', async () => {
    const { code, stdout } = await cli(
      'support-triage',
      'draft-reply',
      '--error',
      'IdempotencyInProgressError:leased',
      '--retry-count',
      '2',
    );
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /^draft-reply: RETRIABLE {2}IdempotencyInProgressError: leased\n {2}Retry\[1\] would retry it after 20 s\n/,
    );
    expect(stdout).not.toContain('next state');
  });

  it('takes --mock as the mocked result itself, and --json prints the wire answer', async () => {
    const mock = JSON.stringify({ StatusCode: 200, Payload: { result: { messageId: 'm-1' }, source: 'executed' } });
    const input = JSON.stringify({
      input: { contractId: 'C-1', version: 2, customerEmail: 'a@b.example' },
      steps: { 'draft-renewal-email': { text: 'hello' } },
    });
    const { code, stdout } = await cli(
      'contract-renewal',
      'send-renewal-email',
      '--input',
      input,
      '--mock',
      mock,
      '--json',
    );
    expect(code).toBe(0);
    const answer = JSON.parse(stdout);
    expect(answer.status).toBe('SUCCEEDED');
    expect(JSON.parse(answer.output).steps['send-renewal-email']).toEqual({ messageId: 'm-1' });
    expect(JSON.parse(answer.inspectionData.afterArguments).Payload.idempotencyKey).toBe('renewal:C-1:2');
  });

  it('names the states of the workflow when the state is not one of them (exit 2)', async () => {
    const { code, stderr } = await cli('contract-renewal', 'nope');
    expect(code).toBe(2);
    expect(stderr).toContain(
      "'contract-renewal' has no state 'nope' (its states: Start, draft-renewal-email, send-renewal-email)",
    );
  });
});
