/**
 * The emulated integrations as a user meets them in the console, in a real browser (Debian's Chromium
 * through playwright-core), on one `startLocal` engine: a workflow publishes to an SNS topic with an SQS and
 * an email subscription, puts an EventBridge event one rule matches (and one it does not) and a CloudWatch
 * metric; the Services page shows each of them, linked to the run. A state machine calling an integration the
 * engine does not serve (aws-sdk:glue) shows the warning `autosave local` printed, with how to serve it. A
 * run at an activity Task says which activity it waits on and since when, and which worker took it.
 * Hostile text in messages, events and metrics is shown as text. Screenshots go to test-results/.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateActivityCommand,
  CreateStateMachineCommand,
  GetActivityTaskCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { exampleApp } from '../../fixtures/example-app';

const ARTIFACTS = join(process.cwd(), 'test-results');
const ROLE = 'arn:aws:iam::123456789012:role/console-services';
const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:order-copies';
// Shown as text or the page is open to injection (the console's CSP forbids scripts; markup must not even render).
const HOSTILE = `<img src=x onerror="document.title='owned'"><b>bold</b>`;

const ordersDefinition = {
  QueryLanguage: 'JSONata',
  StartAt: 'Topic',
  States: {
    Topic: {
      Type: 'Task',
      Resource: 'arn:aws:states:::aws-sdk:sns:createTopic',
      Arguments: { Name: 'order-events' },
      Assign: { topic: '{% $states.result.TopicArn %}' },
      Next: 'ToQueue',
    },
    ToQueue: {
      Type: 'Task',
      Resource: 'arn:aws:states:::aws-sdk:sns:subscribe',
      Arguments: { TopicArn: '{% $topic %}', Protocol: 'sqs', Endpoint: QUEUE_ARN },
      Next: 'ToEmail',
    },
    ToEmail: {
      Type: 'Task',
      Resource: 'arn:aws:states:::aws-sdk:sns:subscribe',
      Arguments: { TopicArn: '{% $topic %}', Protocol: 'email', Endpoint: 'ops@shop.example' },
      Next: 'Rule',
    },
    Rule: {
      Type: 'Task',
      Resource: 'arn:aws:states:::aws-sdk:eventbridge:putRule',
      Arguments: { Name: 'orders-placed', EventPattern: '{"source":["shop.orders"]}' },
      Next: 'RuleTarget',
    },
    RuleTarget: {
      Type: 'Task',
      Resource: 'arn:aws:states:::aws-sdk:eventbridge:putTargets',
      Arguments: { Rule: 'orders-placed', Targets: [{ Id: 'copies', Arn: QUEUE_ARN }] },
      Next: 'Publish',
    },
    Publish: {
      Type: 'Task',
      Resource: 'arn:aws:states:::sns:publish',
      Arguments: { TopicArn: '{% $topic %}', Subject: `Order ${HOSTILE}`, Message: `placed ${HOSTILE}` },
      Next: 'Events',
    },
    Events: {
      Type: 'Task',
      Resource: 'arn:aws:states:::events:putEvents',
      Arguments: {
        Entries: [
          { Source: 'shop.orders', DetailType: `OrderPlaced ${HOSTILE}`, Detail: { orderId: 'o-1', note: HOSTILE } },
          { Source: 'shop.audit', DetailType: 'Audited', Detail: { orderId: 'o-1' } },
        ],
      },
      Next: 'Metric',
    },
    Metric: {
      Type: 'Task',
      Resource: 'arn:aws:states:::aws-sdk:cloudwatch:putMetricData',
      Arguments: {
        Namespace: 'Shop',
        MetricData: [
          { MetricName: 'OrdersPlaced', Value: 3, Unit: 'Count', Dimensions: [{ Name: 'Shop', Value: HOSTILE }] },
        ],
      },
      End: true,
    },
  },
};

let local: LocalEngine;
let dataDir: string;
let browser: BrowserContext;
let page: Page;
let sfn: SFNClient;
const logLines: string[] = [];

beforeAll(async () => {
  const chromiumStatus = inject('chromium');
  if (!chromiumStatus.available) throw new Error(chromiumStatus.reason);
  dataDir = await mkdtemp(join(tmpdir(), 'autosave-console-services-'));
  const [engine, context] = await Promise.all([
    (async () =>
      startLocal({
        ...(await exampleApp()),
        port: 0,
        dataDir: join(dataDir, 'engine'),
        deployWorkflows: false,
        log: (line) => logLines.push(line),
      }))(),
    chromium.launchPersistentContext(join(dataDir, 'chromium-profile'), {
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
    }),
  ]);
  local = engine;
  browser = context;
  page = await browser.newPage();
  // A missing element fails in seconds, not at the 30-second default.
  page.setDefaultTimeout(5_000);
  sfn = new SFNClient({
    endpoint: local.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
});

afterAll(async () => {
  await browser?.close();
  await local?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const create = async (name: string, definition: object) =>
  (await sfn.send(new CreateStateMachineCommand({ name, definition: JSON.stringify(definition), roleArn: ROLE })))
    .stateMachineArn!;

/** Reloads `url` until `check` passes (the pages are server-rendered; the run moves on in the engine). */
async function reloadUntil(url: string, check: () => Promise<void>): Promise<void> {
  await vi.waitFor(
    async () => {
      await page.goto(url);
      await check();
    },
    { timeout: 15_000, interval: 150 },
  );
}

const shot = async (name: string) => {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `console-${name}.png`), fullPage: true });
};

/** Nothing hostile became markup: no image, no bold, the title untouched. */
async function expectNoInjection(): Promise<void> {
  expect(await page.locator('main img, main b').count()).toBe(0);
  expect(await page.title()).not.toContain('owned');
}

describe('the console shows the emulated integrations, unserved Tasks and activity waits', () => {
  it('Services: the topic with its subscriptions and message, the rule and the event it matched, the metric linked to its run', async () => {
    await new SQSClient({
      endpoint: local.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    }).send(new CreateQueueCommand({ QueueName: 'order-copies' }));
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: await create('orders', ordersDefinition),
        name: 'order-o-1',
        input: '{}',
      }),
    );
    const runUrl = `${local.url}/runs/${encodeURIComponent(executionArn!)}`;
    await reloadUntil(runUrl, async () => expect(await page.locator('h1 .badge').textContent()).toBe('SUCCEEDED'));

    // Reached from the header, as a user does.
    await page.click('header a[href="/services"]');
    expect(await page.locator('header a.active').textContent()).toBe('Services');

    const topic = page.locator('table.sns-topics tr[data-topic="order-events"]');
    expect(await topic.locator('[data-subscription="sqs"]').textContent()).toContain(QUEUE_ARN);
    expect(await topic.locator('[data-subscription="email"]').textContent()).toContain('ops@shop.example');
    const message = page.locator('table.sns-messages tr[data-message]');
    expect(await message.count()).toBe(1);
    expect(await message.textContent()).toContain(`Order ${HOSTILE}`);
    expect(await message.textContent()).toContain(`placed ${HOSTILE}`);
    expect(await message.locator('td.deliveries').textContent()).toBe('2 subscriptions');
    expect(await message.locator('a').getAttribute('href')).toBe(new URL(runUrl).pathname);

    const rule = page.locator('table.event-rules tr[data-rule="orders-placed"]');
    expect(await rule.textContent()).toContain('{"source":["shop.orders"]}');
    expect(await rule.textContent()).toContain(QUEUE_ARN);
    const matched = page.locator('table.events tr[data-event-source="shop.orders"]');
    expect(await matched.textContent()).toContain(`OrderPlaced ${HOSTILE}`);
    expect(await matched.locator('td.matched-rules').textContent()).toBe('orders-placed');
    expect(await matched.locator('a').getAttribute('href')).toBe(new URL(runUrl).pathname);
    expect(await page.locator('table.events tr[data-event-source="shop.audit"] td.matched-rules').textContent()).toBe(
      'no rule matched',
    );

    const metric = page.locator('table.metrics tr[data-metric="OrdersPlaced"]');
    expect(await metric.textContent()).toContain(`Shop=${HOSTILE}`);
    await expectNoInjection();
    // Long messages and event details wrap: every column, the run links included, fits in its panel unscrolled.
    for (const panel of ['#sns', '#eventbridge', '#metrics']) {
      expect(await page.locator(panel).evaluate((el) => el.scrollWidth - el.clientWidth), panel).toBe(0);
    }
    await shot('services');
    await metric.locator('a').click();
    expect(page.url()).toBe(runUrl);
  });

  it('a state machine with an unserved integration: the warning autosave local printed, on its page, with how to serve it', async () => {
    const arn = await create('crawl-catalog', {
      StartAt: 'StartCrawl',
      States: {
        StartCrawl: {
          Type: 'Task',
          Resource: 'arn:aws:states:::aws-sdk:glue:startCrawler',
          Parameters: { Name: 'catalog' },
          End: true,
        },
      },
    });
    expect(logLines.find((l) => l.includes(arn) && l.includes('StartCrawl'))).toContain('--pass-through glue');

    await page.click('header a[href="/state-machines"]');
    await shot('state-machines');
    expect(await page.locator('tr[data-state-machine="orders"] [data-unserved]').count()).toBe(0);
    const badge = page.locator('tr[data-state-machine="crawl-catalog"] a[data-unserved]');
    expect(await badge.textContent()).toBe('1 Task state the local engine does not serve');
    await badge.click();
    const warning = page.locator('.callout.warning li[data-unserved-state="StartCrawl"]');
    const text = await warning.textContent();
    expect(text).toContain('arn:aws:states:::aws-sdk:glue:startCrawler');
    expect(text).toContain('Local.IntegrationNotServed');
    expect(text).toContain('--pass-through glue');
    expect(text).toContain('--mock-config');
    await shot('state-machine-unserved');
  });

  it('a run at an activity Task says which activity it waits on, since when, and which worker took it', async () => {
    const { activityArn } = await sfn.send(new CreateActivityCommand({ name: 'label-review' }));
    const machine = await create('labelling', {
      StartAt: 'Review',
      States: {
        Review: { Type: 'Task', Resource: activityArn, TimeoutSeconds: 3600, HeartbeatSeconds: 600, End: true },
      },
    });
    const queued = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: machine, name: 'batch-1', input: '{}' }),
    );
    const queuedUrl = `${local.url}/runs/${encodeURIComponent(queued.executionArn!)}`;
    await reloadUntil(queuedUrl, async () => expect(await page.locator('.callout[data-activity]').count()).toBe(1));
    const waiting = page.locator('.callout[data-activity]');
    expect(await waiting.getAttribute('data-activity')).toBe(activityArn);
    expect(await waiting.textContent()).toMatch(
      /^Waiting for a worker at Review on activity label-review since \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ: no worker has taken the task yet/,
    );
    expect(await page.locator('h1 .badge').textContent()).toBe('WAITING ON A WORKER');
    expect(await page.locator('table.timeline tr[data-step="Review"]').textContent()).toContain('waiting for a worker');
    expect(await page.locator('svg.state-graph g[data-state="Review"]').getAttribute('data-status')).toBe('waiting');
    await shot('run-waiting-on-activity');
    // The runs list says so too, and its waiting-on-a-human filter leaves it out.
    await page.click('header a[href="/"]');
    expect(await page.locator('tr[data-run="batch-1"] .badge').textContent()).toBe('WAITING ON A WORKER');
    await shot('runs');
    await page.click('.filters a[data-filter="WAITING"]');
    expect(await page.locator('tr[data-run="batch-1"]').count()).toBe(0);

    // A worker takes it: the page names the worker and when it started.
    const task = await sfn.send(new GetActivityTaskCommand({ activityArn, workerName: 'labeller-7' }));
    expect(task.taskToken).toBeDefined();
    await reloadUntil(queuedUrl, async () =>
      expect(await page.locator('.callout[data-activity]').textContent()).toContain('labeller-7'),
    );
    expect(await page.locator('.callout[data-activity]').textContent()).toMatch(
      /worker labeller-7 took it at \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/,
    );
    expect(await page.locator('table.timeline tr[data-step="Review"]').textContent()).toContain(
      'taken by worker labeller-7',
    );
    await shot('run-activity-taken');
  });
});
