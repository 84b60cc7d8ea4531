/**
 * The browser tier of issue 30 ("Done when"): Debian's Chromium through playwright-core walks every console page and
 * action at 1280 and 390 px, on runs of each example workflow (an agent run among them), an EXPRESS run, a run
 * waiting on a human and a failed run, and fails on sideways overflow, a JavaScript error or a missing field.
 * Actions: Start (STANDARD and EXPRESS) from the state machine page, Approve and Reject inline, Stop, Redrive on the
 * run page and in Dead letters; the search, paging and auto-refresh of the runs list.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
  StartSyncExecutionCommand,
} from '@aws-sdk/client-sfn';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { clinicalTrialOnboarding, contractRenewal, researchAgent, supportTriage } from '../../../statemachines/index';
import { exampleApp } from '../../fixtures/example-app';

const ACCOUNT = 'arn:aws:states:us-east-1:123456789012';
const machine = (name: string) => `${ACCOUNT}:stateMachine:${name}`;
const execution = (workflow: string, name: string) => `${ACCOUNT}:execution:${workflow}:${name}`;
const runPath = (arn: string) => `/runs/${encodeURIComponent(arn)}`;
const machinePath = (name: string) => `/state-machines/${encodeURIComponent(machine(name))}`;
const WIDTHS = [1280, 390] as const;

let local: LocalEngine;
let dataDir: string;
let browser: BrowserContext;
let sfn: SFNClient;
/** An EXPRESS run, kept by the console as it closed. */
let expressArn: string;
const jsErrors: string[] = [];

async function start(workflow: string, name: string, input: unknown): Promise<string> {
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({ stateMachineArn: `${machine(workflow)}:live`, name, input: JSON.stringify(input) }),
  );
  return executionArn!;
}
async function until(executionArn: string, status: string): Promise<void> {
  await vi.waitFor(
    async () => expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe(status),
    { timeout: 45_000, interval: 100 },
  );
}

beforeAll(async () => {
  const chromiumStatus = inject('chromium');
  if (!chromiumStatus.available) throw new Error(chromiumStatus.reason);
  dataDir = await mkdtemp(join(tmpdir(), 'autosave-console-walk-'));
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
  });
  // StartSyncExecution's `sync-` host prefix is for AWS's endpoint, not a local one.
  sfn = new SFNClient({
    endpoint: local.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    disableHostPrefix: true,
  });
  expressArn = (
    await sfn.send(
      new StartSyncExecutionCommand({
        stateMachineArn: `${machine('support-triage')}:live`,
        name: 'triage-1',
        input: JSON.stringify(supportTriage.exampleInput),
      }),
    )
  ).executionArn!;
  const agent = await start('research-agent', 'agent-1', researchAgent.exampleInput);
  const renewal = await start('contract-renewal', 'renewal-1', contractRenewal.exampleInput);
  const failed = await start('contract-renewal', 'renewal-broken', {});
  await Promise.all([until(agent, 'SUCCEEDED'), until(renewal, 'SUCCEEDED'), until(failed, 'FAILED')]);
  // A run waiting on a human, and two more for Reject and Stop.
  for (const name of ['onboarding-1', 'onboarding-reject', 'onboarding-stop'])
    await start('clinical-trial-onboarding', name, {
      ...(clinicalTrialOnboarding.exampleInput as object),
      siteId: `site-${name}`,
    });
  await vi.waitFor(
    async () =>
      expect(await (await fetch(`${local.url}/approvals`)).text()).toMatch(/(data-approval="[^"]+"[\s\S]*){3}/),
    { timeout: 45_000, interval: 200 },
  );
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await local?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function open(width: number, path: string): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  await page.setViewportSize({ width, height: 900 });
  page.on('pageerror', (err) => void jsErrors.push(`${width}px ${path}: ${err.message}`));
  const response = await page.goto(`${local.url}${path}`);
  expect(response?.status(), `${path} at ${width} px`).toBe(200);
  return page;
}

/** The checks every page passes: no sideways scroll, every nav link in view, the fields the page must show. */
async function checkPage(page: Page, width: number, fields: readonly string[]): Promise<void> {
  const where = `${page.url()} at ${width} px`;
  expect
    .soft(
      await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
      `${where}: overflow`,
    )
    .toBe(0);
  for (const link of await page.locator('header a').all()) {
    const box = await link.boundingBox();
    expect(box, `${where}: nav link ${await link.innerText()}`).not.toBeNull();
    expect
      .soft(box!.x >= 0 && box!.x + box!.width <= width, `${where}: nav link ${await link.innerText()} in view`)
      .toBe(true);
  }
  for (const field of fields) expect.soft(await page.locator(field).count(), `${where}: ${field}`).toBeGreaterThan(0);
}

/** At 1280 px, a table's last column is in view without scrolling its panel. */
async function lastColumnInView(page: Page, table: string): Promise<void> {
  // A string, evaluated in the page (the tests compile without the DOM's types).
  const visible = await page.evaluate(`(() => {
    const t = document.querySelector(${JSON.stringify(table)});
    const panel = t.closest('.panel') || document.body;
    return t.querySelector('th:last-child').getBoundingClientRect().right <= panel.getBoundingClientRect().right + 0.5;
  })()`);
  expect.soft(visible, `${page.url()}: last column of ${table} in view`).toBe(true);
}

describe('the console walked in Chromium at 1280 and 390 px', () => {
  it.each(WIDTHS)(
    'at %i px: every page of every run shows its fields, fits the width and logs no error',
    async (width) => {
      const runs = [
        expressArn,
        execution('research-agent', 'agent-1'),
        execution('contract-renewal', 'renewal-1'),
        execution('contract-renewal', 'renewal-broken'),
        execution('clinical-trial-onboarding', 'onboarding-1'),
      ];
      const pages: [string, string[]][] = [
        [
          '/',
          [
            'form.search input[name="name"]',
            'form.search input[name="input"]',
            'input[name="from"]',
            'p.count',
            'a[rel="refresh"]',
            'tr[data-run="agent-1"]',
          ],
        ],
        ['/?name=renewal&per=1', ['a[rel="next"]', 'tr[data-run]']],
        [
          '/?refresh=5&workflow=contract-renewal',
          ['meta[http-equiv="refresh"]', 'input[type="hidden"][name="refresh"]'],
        ],
        ['/state-machines', ['table.state-machines tr[data-state-machine="research-agent"]']],
        ['/services', ['table.sns-topics', 'table.event-rules', 'table.metrics']],
        ['/approvals', ['tr[data-approval] button.approve', 'tr[data-approval] button.reject']],
        ['/dlq', ['table.dead-letters tr[data-message] button']],
        ['/outbox', ['table.outbox td.body pre.email-body', 'table.outbox td.run a']],
      ];
      for (const name of ['clinical-trial-onboarding', 'contract-renewal', 'research-agent', 'support-triage']) {
        pages.push([
          machinePath(name),
          [
            'form.start textarea[name="input"]',
            'pre.definition',
            'table.versions tr[data-version]',
            'table.aliases tr[data-alias="live"]',
            'svg.state-graph',
          ],
        ]);
      }
      pages.push([
        machinePath('clinical-trial-onboarding'),
        ['g.edge-label[data-from="coordinator-approval-decision"] title'],
      ]);
      for (const arn of runs) {
        pages.push([
          runPath(arn),
          ['h1 .badge', 'svg.state-graph g[data-state]', 'table.timeline tr[data-step]', 'a.events-link'],
        ]);
        pages.push([`${runPath(arn)}/events`, ['table.events tr[data-type="ExecutionStarted"]']]);
      }
      pages.push([
        runPath(execution('contract-renewal', 'renewal-broken')),
        ['.callout.error strong.headline', '.callout.error details pre', 'button.redrive'],
      ]);
      pages.push([
        runPath(execution('clinical-trial-onboarding', 'onboarding-1')),
        ['button.stop', 'button.approve', 'button.reject'],
      ]);
      const walked = new Set<string>();
      for (const [path, fields] of pages) {
        const page = await open(width, path);
        await checkPage(page, width, fields);
        if (path.startsWith('/runs/') && !path.endsWith('/events')) {
          if (width === 1280) await lastColumnInView(page, 'table.timeline');
          // Every step of the run: a Task's attempts, a model step's turns.
          for (const href of await page
            .locator('table.timeline td a')
            .evaluateAll((links) => links.map((a) => a.getAttribute('href')!))) {
            if (walked.has(href)) continue;
            walked.add(href);
            const step = await open(width, href);
            await checkPage(step, width, ['h1', 'table.facts.panel td[data-outcome]']);
            // A Task that succeeded was attempted: its attempts are listed.
            const facts = step.locator('table.facts.panel');
            const task = (await facts.locator('tr', { hasText: 'state' }).first().innerText()).match(/^state\s+Task/);
            if (task && (await facts.locator('td[data-outcome]').getAttribute('data-outcome')) === 'succeeded')
              await checkPage(step, width, ['table.attempts tr[data-attempt="1"]']);
            await step.close();
          }
        }
        await page.close();
      }
      expect(jsErrors).toEqual([]);
    },
    240_000,
  );

  it('the actions: Start (STANDARD and EXPRESS), Approve, Reject and Stop inline, Redrive on the run page and in Dead letters; the EXPRESS run opens like any run', async () => {
    const width = WIDTHS[1];
    // Start with the input pre-filled from the last run, under a name.
    let page = await open(width, machinePath('contract-renewal'));
    expect(JSON.parse(await page.locator('form.start textarea[name="input"]').inputValue())).toEqual({});
    await page.locator('form.start textarea[name="input"]').fill(JSON.stringify(contractRenewal.exampleInput));
    await page.locator('form.start input[name="name"]').fill('started-in-browser');
    await page.locator('form.start button[type="submit"]').click();
    await page.waitForURL(/\/runs\/[^/]+$/);
    await checkPage(page, width, ['h1 .badge']);
    expect(await page.locator('h1').innerText()).toContain('started-in-browser');
    await page.close();

    // EXPRESS: run to its end, its outcome shown, and listed and opened from the runs list.
    page = await open(width, machinePath('support-triage'));
    await page.locator('form.start textarea[name="input"]').fill(JSON.stringify(supportTriage.exampleInput));
    await page.locator('form.start input[name="name"]').fill('triage-in-browser');
    await page.locator('form.start button[type="submit"]').click();
    await page.waitForLoadState();
    await checkPage(page, width, ['h1 .badge.SUCCEEDED', 'pre.output']);
    await page.goto(`${local.url}/?workflow=support-triage`);
    await page.locator('tr[data-run="triage-in-browser"] a').click();
    await page.waitForURL(/express/);
    await checkPage(page, width, ['table.timeline tr[data-step]', 'svg.state-graph g[data-state]']);
    await page.close();

    // Approve and Reject from the run page and the approvals page.
    page = await open(width, runPath(execution('clinical-trial-onboarding', 'onboarding-1')));
    await page.locator('button.approve').first().click();
    await page.waitForLoadState();
    await until(execution('clinical-trial-onboarding', 'onboarding-1'), 'SUCCEEDED');
    await page.goto(`${local.url}/approvals`);
    await page.locator('tr[data-approval]', { hasText: 'onboarding-reject' }).locator('button.reject').click();
    await page.waitForLoadState();
    await vi.waitFor(
      async () =>
        expect(
          (
            await sfn.send(
              new DescribeExecutionCommand({
                executionArn: execution('clinical-trial-onboarding', 'onboarding-reject'),
              }),
            )
          ).status,
        ).not.toBe('RUNNING'),
      { timeout: 30_000, interval: 100 },
    );
    await page.close();

    // Stop, then Redrive the stopped run from its page.
    page = await open(width, runPath(execution('clinical-trial-onboarding', 'onboarding-stop')));
    await page.locator('button.stop').click();
    await page.waitForURL(/\/runs\/[^/]+$/);
    await checkPage(page, width, ['h1 .badge.ABORTED', 'button.redrive']);
    await page.locator('button.redrive').click();
    await page.waitForURL(/\/runs\/[^/]+$/);
    expect(await page.locator('h1 .badge').innerText()).not.toBe('ABORTED');
    await page.close();

    // Dead letters: the failed run's letter redriven.
    page = await open(width, '/dlq');
    await page
      .locator('table.dead-letters tr[data-message]', { hasText: 'renewal-broken' })
      .first()
      .locator('button')
      .click();
    await page.waitForURL(/\/dlq\?notice=/);
    await checkPage(page, width, ['p.notice']);
    await page.close();
    expect(jsErrors).toEqual([]);
  }, 120_000);
});
