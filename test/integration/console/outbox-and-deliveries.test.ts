/**
 * Words and links the user needs (issue 30, Deliver 5): the outbox shows each email's body and links the run that
 * sent it; an SNS message delivered by an EventBridge rule names the rule and the run that put the event (it said
 * "not from a run"). Pages read over HTTP from a live engine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { contractRenewal } from '../../../statemachines/index';
import { exampleApp } from '../../fixtures/example-app';

let local: LocalEngine;
let dataDir: string;
let sfn: SFNClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'autosave-outbox-console-'));
  local = await startLocal({ ...(await exampleApp()), port: 0, dataDir, log: () => undefined });
  sfn = new SFNClient({ endpoint: local.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});
afterAll(async () => {
  await local?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function page(path: string): Promise<string> {
  return (await fetch(`${local.url}${path}`)).text();
}
async function finished(stateMachineArn: string, name: string, input: unknown): Promise<string> {
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }),
  );
  await vi.waitFor(
    async () => expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('SUCCEEDED'),
    { timeout: 45_000, interval: 100 },
  );
  return executionArn!;
}

describe('the outbox and rule deliveries say where they came from', () => {
  it('the outbox shows each email with its body and a link to the run that sent it', async () => {
    const arn = await finished(
      `arn:aws:states:${LOCAL_REGION}:123456789012:stateMachine:contract-renewal:live`,
      'renewal-mail',
      contractRenewal.exampleInput,
    );
    const outbox = await page('/outbox');
    const row = /<tr data-key="[^"]+">([\s\S]*?)<\/tr>/.exec(outbox)?.[1] ?? '';
    expect(row).toMatch(/<td class="body"><strong>[^<]+<\/strong><pre class="email-body">[^<]{20,}<\/pre><\/td>/);
    expect(row).toContain(`<a href="/runs/${encodeURIComponent(arn)}">renewal-mail</a>`);
  });

  it('an SNS message an EventBridge rule delivered names the rule and the run that put the event', async () => {
    const definition = {
      QueryLanguage: 'JSONata',
      StartAt: 'Topic',
      States: {
        Topic: {
          Type: 'Task',
          Resource: 'arn:aws:states:::aws-sdk:sns:createTopic',
          Arguments: { Name: 'order-alerts' },
          Assign: { topic: '{% $states.result.TopicArn %}' },
          Next: 'Rule',
        },
        Rule: {
          Type: 'Task',
          Resource: 'arn:aws:states:::aws-sdk:eventbridge:putRule',
          Arguments: { Name: 'orders-to-alerts', EventPattern: '{"source":["shop.orders"]}' },
          Next: 'Target',
        },
        Target: {
          Type: 'Task',
          Resource: 'arn:aws:states:::aws-sdk:eventbridge:putTargets',
          Arguments: { Rule: 'orders-to-alerts', Targets: [{ Id: 'alerts', Arn: '{% $topic %}' }] },
          Next: 'Put',
        },
        Put: {
          Type: 'Task',
          Resource: 'arn:aws:states:::events:putEvents',
          Arguments: { Entries: [{ Source: 'shop.orders', DetailType: 'OrderPlaced', Detail: { orderId: 'o-77' } }] },
          End: true,
        },
      },
    };
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: 'orders-rules',
        definition: JSON.stringify(definition),
        roleArn: 'arn:aws:iam::123456789012:role/orders',
      }),
    );
    const arn = await finished(stateMachineArn!, 'put-order', {});
    await vi.waitFor(async () => expect(await page('/services')).toContain('o-77'), { timeout: 10_000, interval: 100 });
    const services = await page('/services');
    const message = /<table class="sns-messages">[\s\S]*?<\/table>/.exec(services)?.[0] ?? '';
    const row =
      [...message.matchAll(/<tr data-message="[^"]+">([\s\S]*?)<\/tr>/g)]
        .map((m) => m[1])
        .find((r) => r.includes('o-77')) ?? '';
    expect(row).toMatch(
      /<td class="run">delivered by rule <code>orders-to-alerts<\/code> from the event of run <a href="([^"]+)">put-order<\/a><\/td>/,
    );
    expect(row).toContain(encodeURIComponent(arn));
  });
});
