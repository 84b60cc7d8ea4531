/**
 * Histories of any size (AWS: 25,000 events per execution, 256 KiB per event). A closing run's events are
 * packed in bounded segments, never as one string (a run of 4,671 events carrying 250 KB of state threw
 * `RangeError: Invalid string length` there and stayed RUNNING for good), and GetExecutionHistory pages
 * through them forwards and backwards, reading only the segments a page reaches.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINE_DB_FILE } from '../../src/store';
import { PACKED_SEGMENT_MAX_BYTES, PACKED_SEGMENT_MAX_EVENTS } from '../../src/store/engine-store';
import { unpackEvents } from '../../src/store/history-codec';
import { EngineHarness, jsonpath, SHARED_STORE } from '../support/engine-harness';

/** A loop of `turns` Pass + Choice turns carrying `$.blob` in every state's input and output: 4 events per turn. */
const loop = jsonpath({
  Turn: {
    Type: 'Pass',
    Parameters: { 'i.$': 'States.MathAdd($.i, 1)', 'n.$': '$.n', 'blob.$': '$.blob' },
    Next: 'More',
  },
  More: { Type: 'Choice', Choices: [{ Variable: '$.i', NumericLessThanPath: '$.n', Next: 'Turn' }], Default: 'Done' },
  Done: { Type: 'Pass', Parameters: { 'i.$': '$.i' }, End: true },
});

function segmentsOf(dataDir: string, arn: string): { first_id: number; last_id: number; body: Buffer }[] {
  const db = new Database(join(dataDir, ENGINE_DB_FILE), { readonly: true });
  try {
    // Since store schema 2 each transition writes its events as a segment of `history`, keyed by the run's seq.
    return db
      .prepare(
        'SELECT first_id, last_id, body FROM history WHERE execution_seq = (SELECT seq FROM executions WHERE arn = ?) ORDER BY first_id',
      )
      .all(arn) as { first_id: number; last_id: number; body: Buffer }[];
  } finally {
    db.close();
  }
}

describe('a large history closes, is packed in bounded segments and pages', () => {
  let h: EngineHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('a run carrying 100 KB of state through 600 events packs into segments of at most 4 MiB and pages both ways', async () => {
    h = await new EngineHarness({}, SHARED_STORE).start();
    const machine = await h.machine(loop);
    const turns = 150;
    const exec = await h.run(machine, { i: 0, n: turns, blob: 'x'.repeat(100_000) });
    expect(await h.describe(exec)).toMatchObject({ status: 'SUCCEEDED' });

    const segments = segmentsOf(h.dataDir, exec);
    expect(segments.length).toBeGreaterThan(1);
    let expectedFirst = 1;
    for (const segment of segments) {
      const events = unpackEvents(segment.body);
      expect(events[0].id).toBe(expectedFirst);
      expect(events.at(-1)?.id).toBe(segment.last_id);
      expect(events.length).toBeLessThanOrEqual(PACKED_SEGMENT_MAX_EVENTS);
      // A segment holds at most the budget, or one event that alone exceeds it.
      const bytes = events.reduce((n, e) => n + (e.details?.length ?? 0), 0);
      expect(events.length === 1 || bytes <= PACKED_SEGMENT_MAX_BYTES).toBe(true);
      expectedFirst = segment.last_id + 1;
    }
    const total = segments.at(-1)!.last_id;
    // ExecutionStarted, four events a turn, the last Pass (2), ExecutionSucceeded.
    expect(total).toBe(1 + turns * 4 + 2 + 1);

    // Forwards, 100 at a time, then backwards: every event once, in order, across segment boundaries.
    for (const reverseOrder of [false, true]) {
      const ids: number[] = [];
      let nextToken: string | undefined;
      do {
        const page = await h.call('GetExecutionHistory', {
          executionArn: exec,
          maxResults: 100,
          reverseOrder,
          ...(nextToken ? { nextToken } : {}),
        });
        ids.push(...page.events.map((e: { id: number }) => e.id));
        nextToken = page.nextToken;
      } while (nextToken);
      const expected = Array.from({ length: total }, (_, i) => i + 1);
      expect(ids).toEqual(reverseOrder ? expected.reverse() : expected);
    }
  }, 120_000);
});
