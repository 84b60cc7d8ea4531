/**
 * `autosave local` serves the emulated integrations: a workflow creates an SNS topic, subscribes an email
 * address and publishes (the email lands in the data directory's outbox, which the console's Outbox page
 * reads), puts an EventBridge event and a CloudWatch metric; the console's Services page shows all of it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OutboxEmailProvider } from '../../../packages/runtime/src/tools';
import { exampleApp } from '../../fixtures/example-app';

const definition = {
  QueryLanguage: 'JSONata',
  StartAt: 'Topic',
  States: {
    Topic: {
      Type: 'Task',
      Resource: 'arn:aws:states:::aws-sdk:sns:createTopic',
      Arguments: { Name: 'alerts' },
      Assign: { topic: '{% $states.result.TopicArn %}' },
      Next: 'Subscribe',
    },
    Subscribe: {
      Type: 'Task',
      Resource: 'arn:aws:states:::aws-sdk:sns:subscribe',
      Arguments: { TopicArn: '{% $topic %}', Protocol: 'email', Endpoint: 'ops@example.com' },
      Next: 'Publish',
    },
    Publish: {
      Type: 'Task',
      Resource: 'arn:aws:states:::sns:publish',
      Arguments: { TopicArn: '{% $topic %}', Subject: 'Hello', Message: 'from autosave local' },
      Next: 'Event',
    },
    Event: {
      Type: 'Task',
      Resource: 'arn:aws:states:::events:putEvents',
      Arguments: { Entries: [{ Source: 'app', DetailType: 'Done', Detail: { ok: true } }] },
      Next: 'Metric',
    },
    Metric: {
      Type: 'Task',
      Resource: 'arn:aws:states:::aws-sdk:cloudwatch:putMetricData',
      Arguments: { Namespace: 'App', MetricData: [{ MetricName: 'Runs', Value: 1 }] },
      End: true,
    },
  },
};

describe('autosave local with the emulated integrations', () => {
  it('runs SNS, EventBridge and CloudWatch Tasks; the email reaches the outbox, which a restart keeps', async () => {
    const { startLocal } = await import('../../../packages/local/src/server');
    const dir = await mkdtemp(join(tmpdir(), 'autosave-integrations-'));
    const boot = async () =>
      startLocal({ ...(await exampleApp()), port: 0, dataDir: dir, deployWorkflows: false, log: () => undefined });
    let local = await boot();
    try {
      const { stateMachineArn } = (await local.engine.handle('CreateStateMachine', {
        name: 'integrations',
        definition: JSON.stringify(definition),
        roleArn: 'arn:aws:iam::123456789012:role/r',
      })) as { stateMachineArn: string };
      const { executionArn } = (await local.engine.handle('StartExecution', { stateMachineArn, input: '{}' })) as {
        executionArn: string;
      };
      let status = 'RUNNING';
      for (let i = 0; i < 100 && status === 'RUNNING'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = ((await local.engine.handle('DescribeExecution', { executionArn })) as { status: string }).status;
      }
      expect(status).toBe('SUCCEEDED');
      // The console's Services page shows what the run did on each service (its engine port serves the console).
      const services = await (await fetch(`${local.url}/services`)).text();
      expect(services).toMatch(
        /<tr data-topic="alerts"><td><code>arn:aws:sns:us-east-1:123456789012:alerts<\/code><\/td><td><span data-subscription="email">email → <code>ops@example.com<\/code>/,
      );
      expect(services).toMatch(
        /<tr data-message="[^"]+"><td class="at">[^<]+<\/td><td>alerts<\/td><td>Hello<\/td><td><code class="payload">from autosave local<\/code><\/td><td class="deliveries">1 subscription<\/td>/,
      );
      expect(services).toMatch(
        /<tr data-event-source="app"><td class="at">[^<]*<\/td><td>default<\/td><td>app<\/td><td>Done<\/td><td><code class="payload">\{&quot;ok&quot;:true\}<\/code><\/td>/,
      );
      expect(services).toContain(`<tr data-metric="Runs">`);
      expect(services).toContain(`href="/runs/${encodeURIComponent(executionArn)}"`);
      await local.stop();
      local = await boot();
      const emails = await new OutboxEmailProvider(join(dir, 'outbox')).list();
      expect(emails.map((e) => [e.to, e.subject, e.body])).toEqual([
        [['ops@example.com'], 'Hello', 'from autosave local'],
      ]);
    } finally {
      await local.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
