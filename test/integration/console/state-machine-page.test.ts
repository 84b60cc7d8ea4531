/**
 * The state machine page as the Step Functions console has it (issue 30, Deliver 3): the definition, its versions
 * and aliases (ListStateMachineVersions, ListStateMachineAliases), Choice edges labelled with their rule (shortened,
 * the full condition on hover), and Start with an input pre-filled from the last run's. Pages read over HTTP from a
 * live engine, as a browser gets them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { escapeHtml } from '../../../packages/local/src/console/html';
import { contractRenewal } from '../../../statemachines/index';
import { exampleApp } from '../../fixtures/example-app';

let local: LocalEngine;
let dataDir: string;
let sfn: SFNClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'autosave-machine-page-'));
  local = await startLocal({ ...(await exampleApp()), port: 0, dataDir, log: () => undefined });
  sfn = new SFNClient({ endpoint: local.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});
afterAll(async () => {
  await local?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const machine = (name: string) => `arn:aws:states:${LOCAL_REGION}:123456789012:stateMachine:${name}`;
const machinePath = (name: string) => `/state-machines/${encodeURIComponent(machine(name))}`;

async function page(
  path: string,
  init?: RequestInit,
): Promise<{ status: number; text: string; location: string | null }> {
  const response = await fetch(`${local.url}${path}`, { redirect: 'manual', ...init });
  return { status: response.status, text: await response.text(), location: response.headers.get('location') };
}

describe('the state machine page', () => {
  it('shows the definition, the versions and the aliases with their routing', async () => {
    const { status, text } = await page(machinePath('contract-renewal'));
    expect(status).toBe(200);
    expect(text).toMatch(/<pre class="definition">[^<]*&quot;StartAt&quot;/);
    expect(text).toMatch(/<table class="versions">[\s\S]*<tr data-version="1">/);
    // The live alias routes to a version: its row names it and links the version's ARN.
    expect(text).toMatch(/<tr data-alias="live">[\s\S]*?version 1[\s\S]*?100%/);
  });

  it('labels each Choice edge with its rule, shortened, the whole condition in its tooltip, and the Default edge', async () => {
    const { text } = await page(machinePath('clinical-trial-onboarding'));
    const labels = [
      ...text.matchAll(
        /<g class="edge-label[^"]*" data-from="([^"]+)" data-to="([^"]+)"><title>([^<]*)<\/title>[\s\S]*?<text[^>]*>([^<]*)<\/text><\/g>/g,
      ),
    ].map(([, from, to, title, label]) => ({ from, to, title, label }));
    const approved = labels.find((l) => l.from === 'coordinator-approval-decision' && l.to === 'provision-edc-access');
    expect(approved?.title).toBe(escapeHtml('$states.input.steps.`coordinator-approval`.approved = true'));
    expect(approved!.label.length).toBeLessThanOrEqual(32);
    expect(approved!.label).toContain('approved = true');
    expect(
      labels.find((l) => l.from === 'coordinator-approval-decision' && l.to === 'notify-site-rejected')?.label,
    ).toBe('Default');
    // The agent's route: two rules to Done are one edge, both rules in its tooltip.
    const agent = await page(machinePath('research-agent'));
    expect(agent.text).toMatch(
      /data-from="research-route" data-to="Done"><title>[^<]*final = true[^<]*\n[^<]*turn \+ 1 &gt;= 12/,
    );
  });

  it('starts a run with an input, pre-filled from the last run', async () => {
    const input = { ...(contractRenewal.exampleInput as Record<string, unknown>), note: 'from the last run <b>' };
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: `${machine('contract-renewal')}:live`,
        name: 'last-run',
        input: JSON.stringify(input),
      }),
    );
    await vi.waitFor(
      async () => expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).not.toBe('RUNNING'),
      { timeout: 45_000, interval: 100 },
    );
    const before = await page(machinePath('contract-renewal'));
    const textarea =
      /<form method="post" action="([^"]+)" class="start"[\s\S]*?<textarea name="input"[^>]*>([^<]*)<\/textarea>/.exec(
        before.text,
      );
    expect(textarea?.[1]).toBe(`${machinePath('contract-renewal')}/start`);
    expect(textarea?.[2]).toBe(escapeHtml(JSON.stringify(input, null, 2)));

    const started = await page(`${machinePath('contract-renewal')}/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        input: JSON.stringify({ ...input, note: 'started from the console' }),
        name: 'from-console',
      }).toString(),
    });
    expect(started.status).toBe(303);
    const arn = `arn:aws:states:${LOCAL_REGION}:123456789012:execution:contract-renewal:from-console`;
    expect(started.location).toBe(`/runs/${encodeURIComponent(arn)}`);
    const run = await sfn.send(new DescribeExecutionCommand({ executionArn: arn }));
    expect(JSON.parse(run.input!).note).toBe('started from the console');
    // Started through the live alias, as the CLI starts runs.
    expect(run.stateMachineAliasArn).toBe(`${machine('contract-renewal')}:live`);

    const bad = await page(`${machinePath('contract-renewal')}/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'input=%7Bnot+json',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('The input is not JSON');
    const crossSite = await page(`${machinePath('contract-renewal')}/start`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'input=%7B%7D',
    });
    expect(crossSite.status).toBe(403);
  });

  it('runs an EXPRESS machine to its end from its page and shows the outcome (StartSyncExecution)', async () => {
    const { supportTriage } = await import('../../../statemachines/index');
    const form = await page(machinePath('support-triage'));
    expect(form.text).toMatch(/<form method="post" action="[^"]+\/start" class="start"/);
    const started = await page(`${machinePath('support-triage')}/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        input: JSON.stringify(supportTriage.exampleInput),
        name: 'triage-from-console',
      }).toString(),
    });
    expect(started.status).toBe(200);
    expect(started.text).toMatch(/<h1>triage-from-console <span class="badge SUCCEEDED">/);
    expect(started.text).toContain(':express:support-triage:triage-from-console:');
    expect(started.text).toMatch(/<pre class="output">[\s\S]*&quot;steps&quot;/);
  });
});
