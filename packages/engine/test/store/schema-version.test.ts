import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENGINE_DB_FILE, EngineStore } from '../../src/store';
import { SCHEMA_VERSION, StoreSchemaTooNewError } from '../../src/store/schema';

/** The layout the engine wrote before store versions were recorded (user_version 0). */
const V0_SCHEMA = readFileSync(new URL('../../../../test/fixtures/store/schema-v0.sql', import.meta.url), 'utf8');
const MACHINE = 'arn:aws:states:us-east-1:123456789012:stateMachine:m';
const VERSION = `${MACHINE}:1`;
const RUNNING = 'arn:aws:states:us-east-1:123456789012:execution:m:running';
const CLOSED = 'arn:aws:states:us-east-1:123456789012:execution:m:closed';

/** A store as the previous version left it: a run mid-way (its events in rows), a closed run whose close hook had not run. */
function writeV0Store(file: string): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(V0_SCHEMA);
  const insert = db.prepare(
    `INSERT INTO executions (arn, seq, machine_arn, machine_name, name, version_arn, role_arn, definition_hash, input, status, start_ms, stop_ms, event_count)
     VALUES (?, ?, ?, 'm', ?, ?, 'arn:aws:iam::123456789012:role/r', 'h', '{}', ?, 1, ?, ?)`,
  );
  insert.run(RUNNING, 1, MACHINE, 'running', VERSION, 'RUNNING', null, 3);
  insert.run(CLOSED, 2, MACHINE, 'closed', null, 'SUCCEEDED', 2, 5);
  const event = db.prepare(
    'INSERT INTO events (execution_arn, id, type, ts_ms, previous_id, details) VALUES (?, ?, ?, 1, ?, NULL)',
  );
  ['ExecutionStarted', 'TaskStateEntered', 'TaskScheduled'].forEach((type, i) => event.run(RUNNING, i + 1, type, i));
  db.prepare("INSERT INTO close_notifications (execution_arn, status) VALUES (?, 'SUCCEEDED')").run(CLOSED);
  db.close();
}

const userVersion = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return Number(db.pragma('user_version', { simple: true }));
  } finally {
    db.close();
  }
};

describe("the engine store's layout version", () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'store-schema-'));
    file = join(dir, ENGINE_DB_FILE);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a new store at the current version', () => {
    new EngineStore(dir).close();
    expect(userVersion(file)).toBe(SCHEMA_VERSION);
  });

  it('opens a store of the previous layout and keeps everything in it: runs, their history, undelivered close hooks', () => {
    writeV0Store(file);
    const store = new EngineStore(dir);
    try {
      expect(store.getExecutionHeader(RUNNING)).toMatchObject({ status: 'RUNNING', event_count: 3 });
      expect(store.historyPage(RUNNING, 'ASC', 0, 10).map((e) => e.type)).toEqual([
        'ExecutionStarted',
        'TaskStateEntered',
        'TaskScheduled',
      ]);
      expect(store.closeNotifications()).toEqual([CLOSED]);
      expect(
        store.listExecutions({ by: 'version_arn', arn: VERSION, beforeSeq: 0, limit: 10 }).map((r) => r.arn),
      ).toEqual([RUNNING]);
      expect(
        store.listExecutions({ by: 'machine_arn', arn: MACHINE, beforeSeq: 0, limit: 10 }).map((r) => r.arn),
      ).toEqual([CLOSED, RUNNING]);
    } finally {
      store.close();
    }
    expect(userVersion(file)).toBe(SCHEMA_VERSION);
    const db = new Database(file, { readonly: true });
    try {
      const sql = (name: string) =>
        (db.prepare('SELECT sql FROM sqlite_schema WHERE name = ?').get(name) as { sql: string }).sql;
      expect(sql('executions_by_version')).toMatch(/WHERE version_arn IS NOT NULL/);
      expect(sql('executions_by_alias')).toMatch(/WHERE alias_arn IS NOT NULL/);
      // Since schema 4 a run waiting for its close hooks is an open execution, not a row of its own.
      expect(sql('executions_open')).toMatch(/WHERE open = 1/);
      expect(
        db
          .prepare(
            "SELECT name FROM sqlite_schema WHERE name LIKE '%_v0' OR name LIKE '%_v2' OR name IN ('close_notifications', 'executions_running')",
          )
          .all(),
      ).toEqual([]);
    } finally {
      db.close();
    }
  });

  it("counts a running run's events still in rows when its row's count was not kept (schema 1 wrote events without the row)", () => {
    writeV0Store(file);
    const db = new Database(file);
    db.prepare('UPDATE executions SET event_count = 0 WHERE arn = ?').run(RUNNING);
    db.close();
    const store = new EngineStore(dir);
    try {
      expect(store.getExecutionHeader(RUNNING)).toMatchObject({ event_count: 3 });
      expect(store.transitionBase(RUNNING)).toMatchObject({ status: 'RUNNING', event_count: 3 });
    } finally {
      store.close();
    }
  });

  it('opens an upgraded store again as it is', () => {
    writeV0Store(file);
    new EngineStore(dir).close();
    const store = new EngineStore(dir);
    expect(store.closeNotifications()).toEqual([CLOSED]);
    store.close();
  });

  it('refuses a store written by a newer version, naming it, and leaves it untouched', () => {
    new EngineStore(dir).close();
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => new EngineStore(dir)).toThrow(StoreSchemaTooNewError);
    expect(() => new EngineStore(dir)).toThrow(
      `written by a newer version of autosave (store schema ${SCHEMA_VERSION + 1}; this version reads up to ${SCHEMA_VERSION})`,
    );
    expect(userVersion(file)).toBe(SCHEMA_VERSION + 1);
  });
});
