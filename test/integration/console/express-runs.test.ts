/**
 * EXPRESS runs in the console (issue 30, Deliver 4): the service keeps no express run (ListExecutions and
 * DescribeExecution refuse them; on AWS they are read back from CloudWatch Logs), so the engine hands each one
 * to the console as it closes, and the runs list, the run page, its steps and its events show it like any run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SFNClient, StartExecutionCommand, StartSyncExecutionCommand } from '@aws-sdk/client-sfn';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { supportTriage } from '../../../statemachines/index';
import { exampleApp } from '../../fixtures/example-app';

let local: LocalEngine;
let dataDir: string;
let sfn: SFNClient;
const TRIAGE = `arn:aws:states:${LOCAL_REGION}:123456789012:stateMachine:support-triage`;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'autosave-express-console-'));
  local = await startLocal({ ...(await exampleApp()), port: 0, dataDir, log: () => undefined });
  sfn = new SFNClient({
    endpoint: local.url,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    disableHostPrefix: true,
  });
});
afterAll(async () => {
  await local?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function page(path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${local.url}${path}`);
  return { status: response.status, text: await response.text() };
}
const rows = (text: string) => [...text.matchAll(/<tr data-run="([^"]+)"/g)].map((m) => m[1]);

describe('EXPRESS runs in the console', () => {
  it('are listed, with the filters, and open like any run: timeline, steps, events', async () => {
    const sync = await sfn.send(
      new StartSyncExecutionCommand({
        stateMachineArn: `${TRIAGE}:live`,
        name: 'triage-sync',
        input: JSON.stringify(supportTriage.exampleInput),
      }),
    );
    expect(sync.status).toBe('SUCCEEDED');
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: `${TRIAGE}:live`,
        name: 'triage-async',
        input: JSON.stringify({ ...(supportTriage.exampleInput as object), marker: 'async-one' }),
      }),
    );
    await vi.waitFor(
      async () => expect(rows((await page('/?workflow=support-triage')).text)).toContain('triage-async'),
      { timeout: 30_000, interval: 100 },
    );

    const list = await page('/?workflow=support-triage');
    expect(rows(list.text).sort()).toEqual(['triage-async', 'triage-sync']);
    expect(list.text).toMatch(/<tr data-run="triage-sync"[\s\S]*?EXPRESS[\s\S]*?<span class="badge SUCCEEDED">/);
    expect(rows((await page('/?input=async-one')).text)).toEqual(['triage-async']);
    expect(rows((await page('/?workflow=support-triage&status=FAILED')).text)).toEqual([]);

    const run = await page(`/runs/${encodeURIComponent(sync.executionArn!)}`);
    expect(run.status).toBe(200);
    expect(run.text).toMatch(/<h1>triage-sync <span class="badge SUCCEEDED">/);
    expect(run.text).toMatch(/<tr data-step="classify-message"/);
    // The service cannot redrive an express run.
    expect(run.text).not.toContain('/redrive"');
    const step = await page(`/runs/${encodeURIComponent(sync.executionArn!)}/steps/1`);
    expect(step.status).toBe(200);
    const events = await page(`/runs/${encodeURIComponent(executionArn!)}/events`);
    expect(events.status).toBe(200);
    expect(events.text).toContain('data-type="ExecutionSucceeded"');
  });
});
