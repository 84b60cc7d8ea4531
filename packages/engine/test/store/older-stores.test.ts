import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src';
import { ENGINE_DB_FILE } from '../../src/store';
import { SCHEMA_VERSION } from '../../src/store/schema';
import { EngineHarness, SHARED_STORE } from '../support/engine-harness';

/** A store written by the engine at an older store schema (see each file's header), and the histories it answered then. */
const fixture = (version: number) => ({
  version,
  sql: readFileSync(new URL(`../../../../test/fixtures/store/schema-v${version}.sql`, import.meta.url), 'utf8'),
  histories: JSON.parse(
    readFileSync(new URL(`../../../../test/fixtures/store/schema-v${version}-histories.json`, import.meta.url), 'utf8'),
  ) as Record<string, unknown[]>,
});
const EXECUTION = 'arn:aws:states:us-east-1:123456789012:execution';
const WAITING = `${EXECUTION}:approval:waiting`;
const APPROVED = `${EXECUTION}:approval:approved`;
const BRANCHES = `${EXECUTION}:parallel:branches`;
const FAILED = `${EXECUTION}:flaky:failed`;
/** The fixture's runs closed at this time (a redrive is offered for 14 days after). */
const WRITTEN_AT = Date.UTC(2026, 11, 1, 12, 1);

/** The task tokens a run's `.waitForTaskToken` Tasks were scheduled with, from its history. */
const tokensOf = (events: { type: string; taskScheduledEventDetails?: { parameters: string } }[]): string[] =>
  events
    .filter((e) => e.type === 'TaskScheduled')
    .map((e) => JSON.parse(e.taskScheduledEventDetails!.parameters).Payload.token as string);

describe.each([fixture(2), fixture(3), fixture(4)])(
  'a store written at schema $version, opened by this version',
  ({ sql: storeSql, histories }) => {
    let h: EngineHarness;
    afterEach(() => h.close());

    async function openV2Store(closed: string[] = []): Promise<EngineHarness> {
      const dir = await mkdtemp(join(tmpdir(), 'store-older-'));
      const db = new Database(join(dir, ENGINE_DB_FILE));
      db.exec(storeSql);
      db.close();
      const onExecutionClosed = async (e: { detail: { executionArn: string } }) =>
        void closed.push(e.detail.executionArn);
      return new EngineHarness(
        { hold: () => ({ held: true }), flaky: () => ({ ok: true }) },
        {
          ...SHARED_STORE,
          clock: new VirtualClock(WRITTEN_AT),
          onExecutionClosed,
          closedStatuses: ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'],
        },
      ).start(dir);
    }

    it("answers every run's history as it did, and moves the file to the current layout", async () => {
      h = await openV2Store();
      for (const [arn, events] of Object.entries(histories))
        expect((await h.call('GetExecutionHistory', { executionArn: arn })).events).toEqual(events);
      expect(
        (await h.call('GetExecutionHistory', { executionArn: APPROVED, reverseOrder: true, maxResults: 2 })).events,
      ).toEqual(histories[APPROVED].slice(-2).reverse());
      const db = new Database(join(h.dataDir, ENGINE_DB_FILE), { readonly: true });
      try {
        expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
        // The pages of the tables it copied from went back to the file system: the file is not left twice its size.
        expect(db.pragma('freelist_count', { simple: true })).toBe(0);
        expect(
          db
            .prepare(
              "SELECT name FROM sqlite_schema WHERE name LIKE '%_v2' OR name IN ('close_notifications', 'executions_running')",
            )
            .all(),
        ).toEqual([]);
      } finally {
        db.close();
      }
    });

    it('runs the close hook that had not run, and carries the waiting runs on with their tokens', async () => {
      const closed: string[] = [];
      h = await openV2Store(closed);
      await h.idle();
      expect(closed).toEqual([APPROVED]);
      const [waitingToken] = tokensOf(histories[WAITING] as never);
      await h.call('SendTaskSuccess', { taskToken: waitingToken, output: '{"approved":true}' });
      for (const token of tokensOf(histories[BRANCHES] as never))
        await h.call('SendTaskSuccess', { taskToken: token, output: '{"branch":true}' });
      await h.idle();
      expect(await h.describe(WAITING)).toMatchObject({
        status: 'SUCCEEDED',
        output: '{"order":1,"prep":{"prepared":1},"approve":{"approved":true}}',
      });
      expect(await h.describe(BRANCHES)).toMatchObject({
        status: 'SUCCEEDED',
        output: '[{"order":3,"left":{"branch":true}},{"order":3,"right":{"branch":true}}]',
      });
      // The history carries on after the events the old layout holds, ids and chain unbroken.
      const waiting = await h.history(WAITING);
      expect(waiting.slice(0, histories[WAITING].length)).toEqual(histories[WAITING]);
      expect(waiting.map((e) => e.id)).toEqual(waiting.map((_, i) => i + 1));
      expect(waiting.at(-1)).toMatchObject({ type: 'ExecutionSucceeded', previousEventId: waiting.length - 1 });
      expect(closed.sort()).toEqual([APPROVED, BRANCHES, WAITING].sort());
    });

    it('redrives a failed run, lists runs newest first, and numbers a new run after the old ones', async () => {
      h = await openV2Store();
      await h.call('RedriveExecution', { executionArn: FAILED });
      await h.idle();
      expect(await h.describe(FAILED)).toMatchObject({ status: 'SUCCEEDED', redriveCount: 1 });
      const approval = 'arn:aws:states:us-east-1:123456789012:stateMachine:approval';
      const fresh = await h.call('StartExecution', { stateMachineArn: approval, name: 'after-upgrade', input: '{}' });
      const listed = await h.call('ListExecutions', { stateMachineArn: approval });
      expect(listed.executions.map((e: { executionArn: string }) => e.executionArn)).toEqual([
        fresh.executionArn,
        APPROVED,
        WAITING,
      ]);
      expect(
        (await h.call('ListExecutions', { stateMachineArn: approval, statusFilter: 'RUNNING' })).executions.map(
          (e: { name: string }) => e.name,
        ),
      ).toEqual(['after-upgrade', 'waiting']);
    });
  },
);
