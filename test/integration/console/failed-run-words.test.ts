/**
 * A failed run's page leads with what went wrong in the user's words, not the service's wrapping of a JSONata
 * error (issue 30, Deliver 5); the raw cause is one click away. Read over HTTP from a live engine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { exampleApp } from '../../fixtures/example-app';

let local: LocalEngine;
let dataDir: string;
let sfn: SFNClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'autosave-failed-words-'));
  local = await startLocal({ ...(await exampleApp()), port: 0, dataDir, log: () => undefined });
  sfn = new SFNClient({ endpoint: local.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});
afterAll(async () => {
  await local?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("a failed run's error", () => {
  it('leads with what went wrong, the raw cause one click away, on the run page and the step page', async () => {
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: `arn:aws:states:${LOCAL_REGION}:123456789012:stateMachine:contract-renewal:live`,
        name: 'no-contract',
        input: '{}',
      }),
    );
    await vi.waitFor(
      async () => expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('FAILED'),
      { timeout: 45_000, interval: 100 },
    );
    const run = await (await fetch(`${local.url}/runs/${encodeURIComponent(executionArn!)}`)).text();
    const callout = /<div class="callout error"[^>]*>([\s\S]*?)<\/div>/.exec(run)?.[1] ?? '';
    const headline = /<strong class="headline">([^<]*)<\/strong>/.exec(callout)?.[1];
    expect(headline).toBe('idempotency key of step &#39;send-renewal-email&#39;: {contractId} is missing');
    expect(callout).toMatch(
      /<details><summary>States\.QueryEvaluationError · raw cause<\/summary><pre>[^<]*The JSONata expression/,
    );
    const stepLink = /<a href="([^"]+\/steps\/\d+)">send-renewal-email<\/a>/.exec(run)?.[1];
    const step = await (await fetch(`${local.url}${stepLink}`)).text();
    expect(step).toContain(
      '<strong class="headline">idempotency key of step &#39;send-renewal-email&#39;: {contractId} is missing</strong>',
    );
  });
});
