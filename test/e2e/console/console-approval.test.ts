/**
 * The console and the approval flow in a real browser (Debian's Chromium through playwright-core): open
 * the runs list, open a run waiting on a human, see its graph, follow the approval link, approve on the
 * approval page, and see the run finish, with every step done, and the welcome email in the outbox.
 * A screenshot of the finished run goes to test-results/ (gitignored) as an artifact.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SFNClient, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { exampleApp } from '../../fixtures/example-app';

const ARTIFACTS = join(process.cwd(), 'test-results');
const ALIAS = 'arn:aws:states:us-east-1:123456789012:stateMachine:clinical-trial-onboarding:live';
// A hostile value in the input: the console must show it as text.
const HOSTILE = "<img src=x onerror=document.title='owned'>";

let local: LocalEngine;
let dataDir: string;
let browser: BrowserContext;
let page: Page;

beforeAll(async () => {
  // test/setup/global-setup.ts found or installed it, or says which command does.
  const chromiumStatus = inject('chromium');
  if (!chromiumStatus.available) throw new Error(chromiumStatus.reason);
  dataDir = await mkdtemp(join(tmpdir(), 'autosave-console-'));
  local = await startLocal({
    ...(await exampleApp()),
    port: 0,
    dataDir: join(dataDir, 'engine'),
    log: () => undefined,
  });
  browser = await chromium.launchPersistentContext(join(dataDir, 'chromium-profile'), {
    executablePath: chromiumStatus.executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1400, height: 1000 },
  });
  page = await browser.newPage();
});

afterAll(async () => {
  await browser?.close();
  await local?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Reloads `url` until `check` passes (the run moves on in the engine, the page is server-rendered); fails with the last check's error. */
async function reloadUntil(url: string, check: () => Promise<void>, timeoutMillis = 20_000): Promise<void> {
  await vi.waitFor(
    async () => {
      await page.goto(url);
      await check();
    },
    { timeout: timeoutMillis, interval: 150 },
  );
}

describe('the local console in Chromium', () => {
  it('shows a run waiting on a human, approves it through the approval page, and shows it finished', async () => {
    const sfn = new SFNClient({
      endpoint: local.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: ALIAS,
        name: 'browser-1',
        input: JSON.stringify({
          siteId: 'site-4412',
          coordinatorEmail: 'coordinator@site-4412.example.org',
          siteName: `Riverside ${HOSTILE}`,
        }),
      }),
    );

    // The runs list, filtered to running runs, shows it waiting on a human.
    await reloadUntil(`${local.url}/?status=RUNNING`, async () => {
      expect(await page.locator('tr[data-run="browser-1"] .badge').textContent()).toBe('WAITING ON A HUMAN');
    });
    expect(await page.locator('.filters a.active[data-filter="RUNNING"]').count()).toBe(1);
    await page.click('.filters a[data-filter="WAITING"]');
    expect(
      await page.locator('tr[data-run]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run'))),
    ).toEqual(['browser-1']);
    await page.click('.filters a[data-filter="SUCCEEDED"]');
    expect(await page.locator('tr[data-run]').count()).toBe(0);
    await page.goto(`${local.url}/?status=RUNNING`);
    await page.click('tr[data-run="browser-1"] a');

    // The run page: the graph, coloured by what happened, with a legend.
    await page.waitForSelector('svg.state-graph');
    const statusOf = (state: string) =>
      page.locator(`svg.state-graph g[data-state="${state}"]`).getAttribute('data-status');
    expect(await statusOf('verify-site')).toBe('done');
    expect(await statusOf('request-irb-document')).toBe('done');
    expect(await statusOf('coordinator-approval')).toBe('waiting');
    expect(await statusOf('email-welcome-pack')).toBe('not-run');
    expect(await page.locator('.legend li').allTextContents()).toContain('waiting on a human or a worker');
    expect(await page.locator('table.timeline tr[data-step="verify-site"]').textContent()).toContain(
      'site-4412:verify-site',
    );
    // The hostile input is text, not markup.
    expect(await page.locator('pre').first().textContent()).toContain(HOSTILE);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.title()).not.toBe('owned');
    const runUrl = page.url();

    // The pending approvals page links to the same approval page the run page does.
    await page.goto(`${local.url}/approvals`);
    const fromList = await page.locator('tr[data-approval] a.approval-link').getAttribute('href');
    await page.goto(runUrl);
    expect(await page.locator('.callout a.approval-link').getAttribute('href')).toBe(fromList);

    // The approval page (served by the approval-endpoint function): approve.
    await page.click('.callout a.approval-link');
    await page.waitForSelector('form button[value="approve"]');
    await page.fill('textarea[name="comment"]', 'approved in the browser test');
    await page.click('form button[value="approve"]');
    await page.waitForSelector('h1');
    expect(await page.locator('h1').textContent()).toMatch(/^Approved: /);

    // Back on the run page, the run moves on to SUCCEEDED with every step done.
    await reloadUntil(runUrl, async () => {
      expect(await page.locator('h1 .badge').textContent()).toBe('SUCCEEDED');
    });
    for (const state of ['coordinator-approval', 'provision-edc-access', 'email-welcome-pack', 'schedule-kickoff']) {
      expect(await statusOf(state)).toBe('done');
    }
    expect(await statusOf('notify-site-rejected')).toBe('not-run');
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'console-run-succeeded.png'), fullPage: true });

    // The outbox shows the welcome email with its idempotency key.
    await page.click('header a[href="/outbox"]');
    expect(await page.locator('tr[data-key="site-4412:welcome"]').count()).toBe(1);
    // The dead-letter queue is empty.
    await page.click('header a[href="/dlq"]');
    expect(await page.locator('table.dead-letters').textContent()).toContain('The queue is empty.');
  });

  it('redrives a dead-lettered run from the DLQ page; the resumed run shows the steps it skipped', async () => {
    const sfn = new SFNClient({
      endpoint: local.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: ALIAS,
        name: 'browser-2',
        input: JSON.stringify({ siteId: 'site-7', coordinatorEmail: 'c@site-7.example.org', siteName: 'Site 7' }),
      }),
    );
    const runUrl = `${local.url}/runs/${encodeURIComponent(executionArn!)}`;
    await reloadUntil(runUrl, async () => {
      expect(
        await page.locator('svg.state-graph g[data-state="coordinator-approval"]').getAttribute('data-status'),
      ).toBe('waiting');
    });
    await sfn.send(new StopExecutionCommand({ executionArn, error: 'Operator', cause: 'stopped to test the DLQ' }));

    await reloadUntil(`${local.url}/dlq`, async () => {
      expect(await page.locator('table.dead-letters tr[data-message]').count()).toBe(1);
    });
    expect(await page.locator('table.dead-letters tr[data-message]').textContent()).toContain('ABORTED');
    await page.click('table.dead-letters tr[data-message] button');
    await page.waitForSelector('.notice');
    expect(await page.locator('.notice').textContent()).toBe('Redriven browser-2');
    expect(await page.locator('table.dead-letters').textContent()).toContain('The queue is empty.');

    // The redriven run asks for the approval again; the steps before it kept their results.
    await reloadUntil(runUrl, async () => {
      expect(
        await page.locator('svg.state-graph g[data-state="coordinator-approval"]').getAttribute('data-status'),
      ).toBe('waiting');
      expect(await page.locator('h1 .badge').textContent()).toBe('WAITING ON A HUMAN');
    });
    for (const state of ['Start', 'verify-site', 'create-accounts', 'request-irb-document']) {
      expect(await page.locator(`svg.state-graph g[data-state="${state}"]`).getAttribute('data-status')).toBe(
        'skipped',
      );
    }
    expect(await page.locator('table.timeline tr.redrive-mark').textContent()).toMatch(
      /^Redrive 1 at \+\S+: the run resumes at its failed step/,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'console-run-redriven.png'), fullPage: true });
  });

  it('refuses a redrive posted from another site', async () => {
    const response = await fetch(`${local.url}/dlq/redrive`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'all=1',
    });
    expect(response.status).toBe(403);
  });

  it('answers an unknown run with a 404 page', async () => {
    const response = await page.goto(
      `${local.url}/runs/${encodeURIComponent('arn:aws:states:us-east-1:123456789012:execution:clinical-trial-onboarding:nope')}`,
    );
    expect(response?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('No such run');
  });
});
