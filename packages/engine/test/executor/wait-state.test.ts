import { afterEach, describe, expect, it } from 'vitest';
import { EngineHarness, jsonpath } from '../support/engine-harness';

const DAY_MS = 86_400_000;

// Recorded on AWS (localstack tests/aws/.../test_wait.snapshot.json, test_timestamp_too_far_in_future_boundary):
// a Timestamp 24,855 days ahead waits; 24,856 days ahead (past 2^31 - 1 seconds) fails with States.Runtime,
// "Wait state delay is too long.", right after WaitStateEntered.
describe('a Wait state more than about 68 years ahead', () => {
  let h: EngineHarness;
  afterEach(() => h.close());
  const machine = () => h.machine(jsonpath({ State_1: { Type: 'Wait', TimestampPath: '$.start_at', End: true } }));

  it('fails with States.Runtime "Wait state delay is too long." at 24,856 days', async () => {
    h = await new EngineHarness().start();
    const arn = await h.run(await machine(), { start_at: new Date(h.clock.now() + 24_856 * DAY_MS).toISOString() });
    const described = await h.describe(arn);
    expect(described).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    expect(described.cause).toContain('Wait state delay is too long.');
    expect(await h.eventTypes(arn)).toEqual(['ExecutionStarted', 'WaitStateEntered', 'ExecutionFailed']);
  });

  it('waits at 24,855 days', async () => {
    h = await new EngineHarness().start();
    const arn = await h.run(await machine(), { start_at: new Date(h.clock.now() + 24_855 * DAY_MS).toISOString() });
    expect((await h.describe(arn)).status).toBe('RUNNING');
  });
});
