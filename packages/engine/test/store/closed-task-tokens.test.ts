import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_DB_FILE } from '../../src/store';
import { EngineHarness } from '../support/engine-harness';
import { fastest } from '../support/timing';

/** Tokens of closed tasks (approvals answered, activity tasks done) that a store keeps until its runs go. */
const CLOSED_TOKENS = 50_000;
/** Runs whose activity task waits for a worker. */
const QUEUED = 12;
/** Polls measured before and after the closed tokens are added; each takes one queued task. */
const POLLS = 4;

describe('GetActivityTask on a store that holds many closed task tokens', () => {
  let h: EngineHarness;
  let activityArn: string;
  /** The fastest poll's milliseconds, before and after the closed tokens were added. */
  let before: number;
  let after: number;

  beforeAll(async () => {
    const first = await new EngineHarness({}, { activityPollMillis: 200 }).start();
    ({ activityArn } = await first.call('CreateActivity', { name: 'review' }));
    const machine = await first.machine({
      StartAt: 'Review',
      States: { Review: { Type: 'Task', Resource: activityArn, End: true } },
    });
    const runs: string[] = [];
    for (let i = 0; i < QUEUED; i += 1) runs.push(await first.run(machine, { i }, `run-${i}`));
    // The oldest task's run stops: its token closes while the task still sits in the queue.
    await first.call('StopExecution', { executionArn: runs[0] });
    await first.idle();
    before = await fastest(POLLS, () => first.call('GetActivityTask', { activityArn }));
    await first.engine.stop();
    const db = new Database(join(first.dataDir, ENGINE_DB_FILE));
    try {
      db.exec(`
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${CLOSED_TOKENS})
        INSERT INTO task_tokens (token, execution_arn, frame_id, seq, open)
          SELECT 'closed-' || n.i, 'arn:aws:states:us-east-1:123456789012:execution:gone:' || n.i, 'Review', 1, 0
          FROM n;
      `);
    } finally {
      db.close();
    }
    h = await first.restart();
    after = await fastest(POLLS, () => h.call('GetActivityTask', { activityArn }));
  });
  afterAll(() => h.close());

  it('answers a poll no slower than before the closed tokens were there', () => {
    // Before, each poll's clean-up of the queue read every closed token of the store (a subquery over the whole
    // table): 32 ms per poll with 100,000 of them, on the engine's one thread. Ratios, from the same minute.
    expect(after / before).toBeLessThan(3);
  });

  it('never hands out the task of a run that stopped, and hands out every other in order', async () => {
    const rest: unknown[] = [];
    for (let i = 1 + 2 * POLLS; i < QUEUED; i += 1) {
      const task = await h.call('GetActivityTask', { activityArn });
      rest.push(JSON.parse(task.input).i);
    }
    expect(rest).toEqual(Array.from({ length: QUEUED - 1 - 2 * POLLS }, (_, i) => i + 1 + 2 * POLLS));
    expect((await h.call('GetActivityTask', { activityArn })).taskToken).toBeUndefined();
  });
});
