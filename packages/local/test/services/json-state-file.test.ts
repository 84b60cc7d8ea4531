/**
 * The local services' resources outlive the engine process: SNS topics and subscriptions, EventBridge buses
 * and rules are what a user created through the API (or a stack deploy), and a restart must find them, as
 * AWS's would still be there.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DeliveryTargets } from '../../src/services/delivery';
import { LocalEventBridge } from '../../src/services/eventbridge';
import { JsonStateFile } from '../../src/services/json-state-file';
import { LocalSns } from '../../src/services/sns';

const targets = (dir: string) =>
  new DeliveryTargets({
    sendToQueue: async () => undefined,
    invokeLambda: async () => undefined,
    outboxDir: join(dir, 'outbox'),
    logError: () => undefined,
  } as never);

describe('JsonStateFile', () => {
  it('reads nothing where nothing (or nothing readable) was saved: a service starts empty', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autosave-state-'));
    expect(new JsonStateFile(join(dir, 'none.json')).read()).toBeUndefined();
    writeFileSync(join(dir, 'torn.json'), '{"topics": [');
    expect(new JsonStateFile(join(dir, 'torn.json')).read()).toBeUndefined();
  });

  it('replaces the file whole and leaves no temporary file behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autosave-state-'));
    const file = new JsonStateFile<{ n: number }>(join(dir, 's.json'));
    file.write({ n: 1 });
    file.write({ n: 2 });
    expect(file.read()).toEqual({ n: 2 });
    expect(readdirSync(dir)).toEqual(['s.json']);
  });
});

describe('local services keep their resources across a restart', () => {
  it('SNS: topics and subscriptions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'autosave-sns-'));
    const file = join(dir, 'sns.json');
    const before = new LocalSns({ targets: targets(dir), file });
    const { TopicArn } = (await before.call('CreateTopic', { Name: 'alerts' })) as { TopicArn: string };
    await before.call('Subscribe', { TopicArn, Protocol: 'email', Endpoint: 'ops@example.com' });
    expect(existsSync(file)).toBe(true);

    const after = new LocalSns({ targets: targets(dir), file });
    expect(after.list().map((t) => [t.topic.arn, t.subscriptions.map((s) => s.endpoint)])).toEqual([
      [TopicArn, ['ops@example.com']],
    ]);
  });

  it('EventBridge: buses and rules', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'autosave-events-'));
    const file = join(dir, 'eventbridge.json');
    const options = { targets: targets(dir), file, publishToTopic: async () => undefined };
    const before = new LocalEventBridge(options);
    await before.call('CreateEventBus', { Name: 'orders' });
    await before.call('PutRule', {
      Name: 'paid',
      EventBusName: 'orders',
      EventPattern: JSON.stringify({ 'detail-type': ['paid'] }),
    });

    const after = new LocalEventBridge(options);
    expect(after.list().map((b) => [b.bus, b.rules.map((r) => r.name)])).toEqual([
      ['default', []],
      ['orders', ['paid']],
    ]);
  });
});
