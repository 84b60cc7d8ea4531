/**
 * The runs list at scale (issue 30, Deliver 4): pages with the total, search by name, status, workflow and input,
 * a date range, and auto-refresh that keeps the filters. Pages read over HTTP from a live engine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { contractRenewal } from '../../../statemachines/index';
import { exampleApp } from '../../fixtures/example-app';

let local: LocalEngine;
let dataDir: string;
let sfn: SFNClient;
const NAMES = ['renewal-1', 'renewal-2', 'renewal-3', 'renewal-4', 'renewal-5'];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'autosave-runs-scale-'));
  local = await startLocal({ ...(await exampleApp()), port: 0, dataDir, log: () => undefined });
  sfn = new SFNClient({ endpoint: local.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  for (const [i, name] of NAMES.entries()) {
    const input = {
      ...(contractRenewal.exampleInput as Record<string, unknown>),
      customerName: `Customer number ${i + 1}`,
    };
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: `arn:aws:states:${LOCAL_REGION}:123456789012:stateMachine:contract-renewal:live`,
        name,
        input: JSON.stringify(input),
      }),
    );
    await vi.waitFor(
      async () => expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).not.toBe('RUNNING'),
      { timeout: 45_000, interval: 50 },
    );
  }
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
const count = (text: string) => /<p class="count">([^<]*)<\/p>/.exec(text)?.[1];
const hrefOf = (text: string, rel: string) =>
  new RegExp(`<a rel="${rel}" href="([^"]+)"`).exec(text)?.[1]?.replaceAll('&amp;', '&');
const today = new Date().toISOString().slice(0, 10);
const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe('the runs list at scale', () => {
  it('pages through every run with the total, the filters kept from page to page', async () => {
    const first = await page('/?workflow=contract-renewal&per=2');
    expect(count(first.text)).toBe('Runs 1–2 of 5');
    expect(rows(first.text)).toEqual(['renewal-5', 'renewal-4']);
    const next = hrefOf(first.text, 'next')!;
    expect(new URLSearchParams(next.split('?')[1]).get('workflow')).toBe('contract-renewal');
    const second = await page(next);
    expect(count(second.text)).toBe('Runs 3–4 of 5');
    const last = await page(hrefOf(second.text, 'next')!);
    expect(rows(last.text)).toEqual(['renewal-1']);
    expect(hrefOf(last.text, 'next')).toBeUndefined();
    expect(hrefOf(last.text, 'prev')).toContain('page=2');
  });

  it('searches by name, by input, by status and by a date range', async () => {
    expect(rows((await page('/?name=renewal-3')).text)).toEqual(['renewal-3']);
    const byInput = await page(`/?input=${encodeURIComponent('Customer number 2')}`);
    expect(rows(byInput.text)).toEqual(['renewal-2']);
    // The form shows what is searched.
    expect(byInput.text).toMatch(/<input[^>]*name="input"[^>]*value="Customer number 2"/);
    expect(rows((await page('/?status=SUCCEEDED&name=renewal')).text)).toHaveLength(5);
    expect(rows((await page('/?status=FAILED&name=renewal')).text)).toEqual([]);
    expect(count((await page(`/?from=${today}&to=${today}`)).text)).toBe('Runs 1–5 of 5');
    expect(rows((await page(`/?from=${dayOffset(1)}`)).text)).toEqual([]);
    expect(rows((await page(`/?to=${dayOffset(-1)}`)).text)).toEqual([]);
    const bad = await page('/?from=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('from');
  });

  it('auto-refreshes on request and keeps the filters in the reload and in every link', async () => {
    const plain = await page('/?name=renewal');
    expect(plain.text).not.toContain('http-equiv="refresh"');
    const refreshOn = hrefOf(plain.text, 'refresh')!;
    const refreshing = await page(refreshOn);
    const reload = /<meta http-equiv="refresh" content="(\d+); url=([^"]+)">/.exec(refreshing.text);
    expect(Number(reload?.[1])).toBeGreaterThan(0);
    const reloadQuery = new URLSearchParams(reload![2].replaceAll('&amp;', '&').split('?')[1]);
    expect(reloadQuery.get('name')).toBe('renewal');
    // The search form and the status links keep refreshing.
    expect(refreshing.text).toMatch(/<input type="hidden" name="refresh" value="\d+">/);
    expect(/<a href="([^"]+)"[^>]*data-filter="FAILED"/.exec(refreshing.text)?.[1]).toContain('refresh=');
    expect(hrefOf(refreshing.text, 'refresh')).not.toContain('refresh=');
  });
});
