/**
 * Inspecting an agent run in a real browser (Debian's Chromium through playwright-core), at 1280 and 390 px: a click
 * on a graph node and on a timeline row opens the step; the model turn shows its prompt, text, tool calls and tokens;
 * the event history is one click away. No page scrolls sideways and no page logs a JavaScript error. A screenshot of
 * the inspected turn goes to test-results/ (gitignored), as an artifact.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { researchAgent } from '../../../statemachines/index';
import { exampleApp } from '../../fixtures/example-app';

const ARTIFACTS = join(process.cwd(), 'test-results');
const AGENT = 'arn:aws:states:us-east-1:123456789012:stateMachine:research-agent:live';

let local: LocalEngine;
let dataDir: string;
let browser: BrowserContext;
let runUrl: string;
const jsErrors: string[] = [];

beforeAll(async () => {
  const chromiumStatus = inject('chromium');
  if (!chromiumStatus.available) throw new Error(chromiumStatus.reason);
  dataDir = await mkdtemp(join(tmpdir(), 'autosave-inspect-browser-'));
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
  const sfn = new SFNClient({
    endpoint: local.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({
      stateMachineArn: AGENT,
      name: 'inspect-in-browser',
      input: JSON.stringify(researchAgent.exampleInput),
    }),
  );
  await vi.waitFor(
    async () => expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('SUCCEEDED'),
    { timeout: 45_000, interval: 100 },
  );
  runUrl = `${local.url}/runs/${encodeURIComponent(executionArn!)}`;
});

afterAll(async () => {
  await browser?.close();
  await local?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function open(width: number, url: string): Promise<Page> {
  // A persistent context sets its viewport at launch: a page of its own size is sized after it opens.
  const page = await browser.newPage();
  await page.setViewportSize({ width, height: 900 });
  page.on('pageerror', (err) => void jsErrors.push(`${url}: ${err.message}`));
  await page.goto(url);
  return page;
}

/** How far a page reaches past the viewport's right edge (0: no sideways scrolling). */
const overflow = (page: Page): Promise<number> =>
  page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');

describe('inspecting an agent run in Chromium', () => {
  it.each([1280, 390])(
    'at %i px: a timeline row and a graph node open the step; the turn shows what the model was asked and said',
    async (width) => {
      const page = await open(width, runUrl);
      expect(await overflow(page)).toBe(0);
      await page.locator('table.timeline a', { hasText: 'research' }).first().click();
      await page.waitForURL(/\/steps\/\d+$/);
      expect(await page.locator('h1').innerText()).toMatch(/^research step \d+ of inspect-in-browser/);
      const turn = page.locator('section.model-turn').first();
      await expect
        .poll(() => turn.locator('pre.prompt').innerText())
        .toContain('durable workflows avoid sending an email twice');
      expect(await turn.locator('tr', { hasText: 'tokens' }).innerText()).toMatch(/\d+ in, \d+ out/);
      expect(await turn.locator('pre.model-text').innerText()).not.toBe('');
      expect(await turn.locator('table.tool-calls').innerText()).toContain('search-web');
      expect(await page.locator('table.attempts tr[data-attempt="1"]').getAttribute('data-outcome')).toBe('succeeded');
      expect(await overflow(page)).toBe(0);
      if (width === 1280) {
        await mkdir(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: join(ARTIFACTS, 'console-model-turn.png') });
      }

      await page.goto(runUrl);
      await page.locator('a.state-link:has(g[data-state="research-tools"])').click();
      await page.waitForURL(/\/steps\/\d+$/);
      expect(await page.locator('table.tool-calls').innerText()).toContain('the tool ran');
      expect(await page.locator('.facts').innerText()).toMatch(/idempotency key\s+\S+:research:\d+:/);

      await page.goto(runUrl);
      await page.locator('a.events-link').click();
      await page.waitForURL(/\/events$/);
      expect(await page.locator('table.events tr[data-type="TaskStateEntered"]').first().innerText()).toMatch(
        /TaskStateEntered\s+research/,
      );
      expect(await overflow(page)).toBe(0);
      await page.close();
      expect(jsErrors).toEqual([]);
    },
  );
});
