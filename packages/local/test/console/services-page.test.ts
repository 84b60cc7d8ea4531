/**
 * The console's Services page (`/services`) as a user reads it: every time in the console's one format,
 * an event no rule matched said so (not a blank cell), each message and event linked to the run that
 * published or put it, deliveries counted in words, and empty lists that say they are empty.
 */
import { describe, expect, it } from 'vitest';
import { servicesPage, type ConsoleServices } from '../../src/console/pages/services-page';

const RUN = 'arn:aws:states:us-east-1:123456789012:execution:orders:order-o-1';
const TOPIC = 'arn:aws:sns:us-east-1:123456789012:order-events';

const services: ConsoleServices = {
  sns: {
    list: () => [{ topic: { arn: TOPIC, name: 'order-events' }, subscriptions: [] }],
    recentMessages: () => [
      {
        messageId: 'm-2',
        topicArn: TOPIC,
        message: 'no one listens',
        timestamp: '2026-12-02T03:22:19.646Z',
        deliveries: 0,
      },
      {
        messageId: 'm-1',
        topicArn: TOPIC,
        subject: 'Order',
        message: 'placed',
        timestamp: '2026-12-02T03:22:18.100Z',
        deliveries: 2,
        executionArn: RUN,
      },
    ],
  },
  eventbridge: {
    list: () => [
      {
        bus: 'default',
        rules: [{ name: 'orders-placed', pattern: '{"source":["shop.orders"]}', state: 'ENABLED', targets: [] }],
      },
    ],
    recentEvents: () => [
      {
        bus: 'default',
        event: { source: 'shop.audit', 'detail-type': 'Audited', time: '2026-12-02T03:22:19Z', detail: {} },
        rules: [],
        executionArn: RUN,
      },
      {
        bus: 'default',
        event: { source: 'shop.orders', 'detail-type': 'OrderPlaced', time: '2026-12-02T03:22:19Z', detail: {} },
        rules: ['orders-placed'],
      },
    ],
  },
  cloudwatch: {
    recent: () => [
      {
        namespace: 'Shop',
        metricName: 'OrdersPlaced',
        dimensions: [],
        value: 3,
        timestamp: '2026-12-02T03:22:19.678Z',
        executionArn: RUN,
      },
    ],
  },
};

const row = (page: string, attribute: string) => new RegExp(`<tr ${attribute}>(.*?)</tr>`, 's').exec(page)?.[1] ?? '';
const runHref = `href="/runs/${encodeURIComponent(RUN)}"`;

describe('the Services page', () => {
  const page = servicesPage(services);

  it('writes every time as the rest of the console does (2026-12-02 03:22:19Z), in a cell that does not wrap', () => {
    expect(row(page, 'data-message="m-2"')).toContain('<td class="at">2026-12-02 03:22:19Z</td>');
    expect(row(page, 'data-event-source="shop.orders"')).toContain('<td class="at">2026-12-02 03:22:19Z</td>');
    expect(row(page, 'data-metric="OrdersPlaced"')).toContain('<td class="at">2026-12-02 03:22:19Z</td>');
    expect(page).not.toContain('T03:22');
  });

  it('says an event matched no rule, and names the rules one matched', () => {
    expect(row(page, 'data-event-source="shop.audit"')).toContain(
      '<td class="matched-rules"><span class="muted">no rule matched</span></td>',
    );
    expect(row(page, 'data-event-source="shop.orders"')).toContain('<td class="matched-rules">orders-placed</td>');
  });

  it('links each message and event to the run that published or put it, and says when none did', () => {
    expect(row(page, 'data-message="m-1"')).toContain(runHref);
    expect(row(page, 'data-event-source="shop.audit"')).toContain(runHref);
    expect(row(page, 'data-message="m-2"')).toContain('not from a run');
    expect(row(page, 'data-event-source="shop.orders"')).toContain('not from a run');
  });

  it('counts deliveries in words', () => {
    expect(row(page, 'data-message="m-1"')).toContain('<td class="deliveries">2 subscriptions</td>');
    expect(row(page, 'data-message="m-2"')).toContain(
      '<td class="deliveries"><span class="muted">no subscription</span></td>',
    );
  });

  it('says each list is empty when it is', () => {
    const empty = servicesPage({});
    for (const text of [
      'No topic yet.',
      'No message published yet.',
      'No bus yet.',
      'No event put yet.',
      'No metric put yet.',
    ])
      expect(empty).toContain(text);
  });
});
