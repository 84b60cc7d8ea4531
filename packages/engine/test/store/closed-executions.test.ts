import Database from 'better-sqlite3';
import fc from 'fast-check';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { days } from '../../../workflow/src/config/duration';
import { ENGINE_DB_FILE } from '../../src/store';
import { packEventRows, packEvents, unpackEvents } from '../../src/store/history-codec';
import { EngineHarness, jsonpath, SHARED_STORE } from '../support/engine-harness';

const fn = (name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`;
/** The benchmark's shape: seven Tasks in a line, each answering ~200 bytes, only the last result kept. */
const sevenSteps = jsonpath(
  Object.fromEntries(
    Array.from({ length: 7 }, (_, i) => [
      `Step${i + 1}`,
      {
        Type: 'Task',
        Resource: fn('step'),
        Parameters: { step: i + 1, 'runId.$': '$.runId' },
        ResultPath: '$.last',
        ...(i < 6 ? { Next: `Step${i + 2}` } : { End: true }),
      },
    ]),
  ),
);
const step = async (p: { step: number }) => ({
  step: p.step,
  status: 'ok',
  recordId: `rec-${p.step}-0123456789abcdef`,
  note: 'a step result of about two hundred bytes'.padEnd(120, '.'),
});

/** Rows an execution left in every table of the engine's file. */
function rowsOf(dataDir: string, arn: string): Record<string, number> {
  const db = new Database(join(dataDir, ENGINE_DB_FILE), { readonly: true });
  try {
    const count = (sql: string) => (db.prepare(sql).get(arn) as { n: number }).n;
    return {
      executions: count('SELECT COUNT(*) AS n FROM executions WHERE arn = ?'),
      // A run's history segments are keyed by its seq; a segment left behind by a removed run has none.
      history: count(
        'SELECT COUNT(*) AS n FROM history WHERE execution_seq = (SELECT seq FROM executions WHERE arn = ?)',
      ),
      orphanedHistory: (
        db
          .prepare('SELECT COUNT(*) AS n FROM history WHERE execution_seq NOT IN (SELECT seq FROM executions)')
          .get() as { n: number }
      ).n,
      ...Object.fromEntries(
        ['events', 'packed_events', 'frames', 'timers', 'task_tokens'].map((t) => [
          t,
          count(`SELECT COUNT(*) AS n FROM ${t} WHERE execution_arn = ?`),
        ]),
      ),
    };
  } finally {
    db.close();
  }
}

/** Bytes the file's live pages hold (WAL included: a reader sees the logical database). */
function liveBytes(dataDir: string): number {
  const db = new Database(join(dataDir, ENGINE_DB_FILE), { readonly: true });
  try {
    const n = (p: string) => Number(db.pragma(p, { simple: true }));
    return (n('page_count') - n('freelist_count')) * n('page_size');
  } finally {
    db.close();
  }
}

describe('closed executions: small, complete, and gone after the retention period', () => {
  let h: EngineHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('keeps at most 5 KB per finished seven-step run', async () => {
    h = await new EngineHarness({ step }, SHARED_STORE).start();
    const machine = await h.machine(sevenSteps, 'seven');
    await Promise.all(
      Array.from({ length: 20 }, (_, r) =>
        h!.call('StartExecution', {
          stateMachineArn: machine,
          name: `warm-${r}`,
          input: JSON.stringify({ runId: `warm-${r}` }),
        }),
      ),
    );
    await h.idle();
    const before = liveBytes(h.dataDir);
    const runs = 200;
    await Promise.all(
      Array.from({ length: runs }, (_, r) =>
        h!.call('StartExecution', {
          stateMachineArn: machine,
          name: `run-${r}`,
          input: JSON.stringify({ runId: `run-${r}` }),
        }),
      ),
    );
    await h.idle();
    const out = await h.call('ListExecutions', {
      stateMachineArn: machine,
      statusFilter: 'SUCCEEDED',
      maxResults: 1000,
    });
    expect(out.executions).toHaveLength(runs + 20);
    expect((liveBytes(h.dataDir) - before) / runs).toBeLessThanOrEqual(5 * 1024);
  });

  it('answers the same history once packed: every event, every field, in pages either way', async () => {
    let fail = true;
    h = await new EngineHarness(
      {
        step,
        flaky: async () => {
          if (fail) throw Object.assign(new Error('not yet'), { name: 'NotYet' });
          return { ok: true };
        },
      },
      SHARED_STORE,
    ).start();
    const machine = await h.machine(
      jsonpath({
        First: { Type: 'Task', Resource: fn('step'), Parameters: { step: 1 }, ResultPath: '$.first', Next: 'Flaky' },
        Flaky: { Type: 'Task', Resource: fn('flaky'), End: true },
      }),
    );
    const arn = await h.run(machine, { runId: 'r' });
    expect((await h.describe(arn)).status).toBe('FAILED');
    const failedHistory = await h.history(arn);
    // Each transition wrote its events as one packed segment; no event is kept in a row of its own.
    const atClose = rowsOf(h.dataDir, arn);
    expect(atClose).toMatchObject({ events: 0, packed_events: 0 });
    expect(atClose.history).toBeGreaterThan(0);
    // Redriven, the run appends segments after its earlier ones.
    fail = false;
    await h.call('RedriveExecution', { executionArn: arn });
    await h.idle();
    expect((await h.describe(arn)).status).toBe('SUCCEEDED');
    const full = await h.history(arn);
    expect(full.slice(0, failedHistory.length)).toEqual(failedHistory);
    expect(full.map((e) => e.id)).toEqual(full.map((_, i) => i + 1));
    const afterRedrive = rowsOf(h.dataDir, arn);
    expect(afterRedrive).toMatchObject({ events: 0, packed_events: 0, frames: 0 });
    expect(afterRedrive.history).toBeGreaterThan(atClose.history);
    for (const reverseOrder of [false, true]) {
      const paged: unknown[] = [];
      let nextToken: string | undefined;
      do {
        const page = await h.call('GetExecutionHistory', {
          executionArn: arn,
          maxResults: 3,
          reverseOrder,
          ...(nextToken ? { nextToken } : {}),
        });
        paged.push(...page.events);
        nextToken = page.nextToken;
      } while (nextToken);
      expect(paged).toEqual(reverseOrder ? [...full].reverse() : full);
    }
  });

  // Details are always an object (as JSON text in a row): what an event's details can be.
  const details = fc.dictionary(fc.string(), fc.jsonValue()).map((d) => JSON.stringify(d));
  const event = fc.record({
    id: fc.nat(),
    type: fc.string(),
    ts_ms: fc.nat(),
    previous_id: fc.nat(),
    details: fc.option(details, { nil: null }),
  });

  it('packs and unpacks any events unchanged, from rows and as a transition writes them, deflated or not (property)', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 50 }), fc.boolean(), (events, deflate) => {
        expect(unpackEvents(packEventRows(events))).toEqual(events);
        const asWritten = events.map((e) => ({
          ...e,
          details: e.details === null ? undefined : (JSON.parse(e.details) as Record<string, unknown>),
        }));
        expect(unpackEvents(packEvents(asWritten, deflate))).toEqual(events);
      }),
      { seed: 14, numRuns: 200 },
    );
  });

  it('reads a history segment of codec version 1 (written by stores before schema 2) unchanged', () => {
    // Packed by the version-1 codec from these three events.
    const v1 = Buffer.from(
      'AYuONtRRwkgMOobmZiZmxsZmBiCgY6CjVB0DcSDY0OqYmBilotI8zxQQwwrMAxG1YNuQPQKxGe64GJjrdGJgCQ5sIEqSMzQyNjE1M7ewNDA0sgKp0i8COT1WJ9pIRwk9yFGdaqhjCHYqKODBBgeXpBYYIlxFJdeDHWOsgyVboTrHSMcIEs6xAA==',
      'base64',
    );
    expect(unpackEvents(v1)).toEqual([
      {
        id: 1,
        type: 'ExecutionStarted',
        ts_ms: 1764633600000,
        previous_id: 0,
        details: JSON.stringify({
          input: '{"runId":"r"}',
          inputDetails: { truncated: false },
          roleArn: 'arn:aws:iam::123456789012:role/r',
        }),
      },
      {
        id: 2,
        type: 'TaskStateEntered',
        ts_ms: 1764633600001,
        previous_id: 1,
        details: JSON.stringify({ name: 'Step1', input: '{"runId":"r"}', inputDetails: { truncated: false } }),
      },
      { id: 3, type: 'ExecutionSucceeded', ts_ms: 1764633600002, previous_id: 2, details: null },
    ]);
  });

  it('removes a closed execution after the retention period, with its history, frames, timers and tokens, and frees its name', async () => {
    h = await new EngineHarness(
      {
        step,
        flaky: async () => Promise.reject(Object.assign(new Error('no'), { name: 'No' })),
      },
      SHARED_STORE,
    ).start();
    const machine = await h.machine(sevenSteps, 'seven');
    const failing = await h.machine(jsonpath({ Flaky: { Type: 'Task', Resource: fn('flaky'), End: true } }), 'failing');
    const done = await h.run(machine, { runId: 'kept' }, 'kept');
    const failed = await h.run(failing, {}, 'failed');
    expect(rowsOf(h.dataDir, failed).frames).toBeGreaterThan(0); // a failed run keeps its frames for a redrive
    await h.clock.advance(days(89));
    expect(await h.engine.sweepClosedExecutions()).toBe(0);
    expect((await h.describe(done)).status).toBe('SUCCEEDED');
    await h.clock.advance(days(2));
    expect(await h.engine.sweepClosedExecutions()).toBe(2);
    for (const arn of [done, failed]) {
      await expect(h.describe(arn)).rejects.toMatchObject({ name: 'ExecutionDoesNotExist' });
      await expect(h.history(arn)).rejects.toMatchObject({ name: 'ExecutionDoesNotExist' });
      expect(rowsOf(h.dataDir, arn)).toEqual({
        executions: 0,
        history: 0,
        orphanedHistory: 0,
        events: 0,
        packed_events: 0,
        frames: 0,
        timers: 0,
        task_tokens: 0,
      });
    }
    // As on AWS, the name can be used again once the old run is gone.
    await expect(h.run(machine, { runId: 'again' }, 'kept')).resolves.toBe(done);
  });

  it('gives the freed space back to the file system (incremental vacuum)', async () => {
    h = await new EngineHarness(
      { step },
      { ...SHARED_STORE, closedExecutionRetentionMillis: 24 * 3600 * 1000 },
    ).start();
    const machine = await h.machine(sevenSteps, 'seven');
    await Promise.all(
      Array.from({ length: 150 }, (_, r) =>
        h!.call('StartExecution', {
          stateMachineArn: machine,
          name: `run-${r}`,
          input: JSON.stringify({ runId: `run-${r}`, pad: 'x'.repeat(2000) }),
        }),
      ),
    );
    await h.idle();
    const db = () => new Database(join(h!.dataDir, ENGINE_DB_FILE), { readonly: true });
    const pages = () => {
      const d = db();
      try {
        return {
          pages: Number(d.pragma('page_count', { simple: true })),
          free: Number(d.pragma('freelist_count', { simple: true })),
        };
      } finally {
        d.close();
      }
    };
    const full = pages();
    await h.clock.advance(days(2));
    expect(await h.engine.sweepClosedExecutions()).toBe(150);
    const after = pages();
    expect(after.free).toBe(0);
    expect(after.pages).toBeLessThan(full.pages / 2);
  });
});
