import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { HISTORY_EVENT_LIMIT } from '@autosave/workflow/config';
import { GroupCommitter } from './group-committer';
import { encodeEvent, packEncoded, packEventRows, unpackEventValues, type EventToPack } from './history-codec';

/** Most events in one packed history segment (a page of GetExecutionHistory is at most 1,000). */
export const PACKED_SEGMENT_MAX_EVENTS = 1_000;
/** Most details text in one packed segment (one event of 256 KiB and more still makes a segment of its own). */
export const PACKED_SEGMENT_MAX_BYTES = 4 * 1024 * 1024;
/** An event's columns other than its details, as they count toward a segment. */
const EVENT_OVERHEAD_BYTES = 64;
import { HISTORY_KEYS_PER_RUN, openSchema, refuseNewerSchema, SCHEMA_VERSION } from './schema';
import { keepRecent } from './keep-recent';
import {
  EXECUTION_HEADER_COLUMNS,
  EXECUTION_ROW_COLUMNS,
  type ExecutionHeader,
  executionHeader,
  type ExecutionRow,
  executionRow,
} from './execution-rows';
import { walCommitsDuring, walFramesDuring } from './wal-frames';

/** `PRAGMA auto_vacuum` value of INCREMENTAL. */
const AUTO_VACUUM_INCREMENTAL = 2;

/**
 * How many events an execution's history holds, counted from the history (an index seek): a transition
 * writes its events and leaves the execution's row alone, one page fewer per fsync'd commit. The row's
 * `event_count` is written when the run closes; the largest is the count.
 */
const EVENT_COUNT = `MAX(e.event_count,
  COALESCE((SELECT last_id FROM history WHERE key BETWEEN e.seq * ${HISTORY_KEYS_PER_RUN} AND e.seq * ${HISTORY_KEYS_PER_RUN} + ${HISTORY_KEYS_PER_RUN - 1} ORDER BY key DESC LIMIT 1), 0)`;
/**
 * {@link EVENT_COUNT} in a store that still holds events written before schema 2 (`events` rows, `packed_events`
 * segments): those count too.
 */
const EVENT_COUNT_WITH_OLDER_EVENTS = `${EVENT_COUNT},
  COALESCE((SELECT MAX(id) FROM events WHERE execution_arn = e.arn), 0),
  COALESCE((SELECT MAX(last_id) FROM packed_events WHERE execution_arn = e.arn), 0))`;

/** The execution header and the transition's base, with an event count. */
const HEADER_SQL = (count: string) =>
  `SELECT ${EXECUTION_HEADER_COLUMNS}, ${count} AS event_count FROM executions e WHERE arn = ?`;
const EXECUTION_ROW_SQL = `SELECT ${EXECUTION_ROW_COLUMNS} FROM executions WHERE arn = ?`;
const TRANSITION_BASE_SQL = (count: string) =>
  `SELECT seq, status, ${count} AS event_count FROM executions e WHERE arn = ?`;
/** The SQL text of the event-count reads, picked once per store. */
interface EventCountSql {
  readonly header: string;
  readonly transitionBase: string;
}
const EVENT_COUNT_SQL: EventCountSql = {
  header: HEADER_SQL(`${EVENT_COUNT})`),
  transitionBase: TRANSITION_BASE_SQL(`${EVENT_COUNT})`),
};
const EVENT_COUNT_SQL_WITH_OLDER_EVENTS: EventCountSql = {
  header: HEADER_SQL(EVENT_COUNT_WITH_OLDER_EVENTS),
  transitionBase: TRANSITION_BASE_SQL(EVENT_COUNT_WITH_OLDER_EVENTS),
};

/**
 * Events (in id order) as history segments: a segment per {@link PACKED_SEGMENT_MAX_EVENTS} events or
 * {@link PACKED_SEGMENT_MAX_BYTES} of details, whichever comes first, so no segment is one giant string.
 */
function* historySegments(
  events: readonly EventToPack[],
  deflate: boolean,
): Generator<{ firstId: number; lastId: number; body: Buffer }> {
  const entries = events.map(encodeEvent);
  let start = 0;
  let bytes = 0;
  for (let i = 0; i <= entries.length; i += 1) {
    const full =
      i === entries.length ||
      (i > start && (i - start >= PACKED_SEGMENT_MAX_EVENTS || bytes + entries[i].length > PACKED_SEGMENT_MAX_BYTES));
    if (full && i > start) {
      yield {
        firstId: events[start].id,
        lastId: events[i - 1].id,
        body: packEncoded(entries.slice(start, i), deflate),
      };
      start = i;
      bytes = 0;
    }
    if (i < entries.length) bytes += entries[i].length;
  }
}

/**
 * The index a list of executions by machine, version or alias reads, and the terms that let SQLite use it.
 * A filter few runs match (REDRIVEN, RUNNING, a status but SUCCEEDED) has an index holding only the runs it
 * can match: the list reads those, not the machine's whole history.
 */
function listedRunsIndex(q: ExecutionListQuery): { index: string; where: string } {
  const dimension = q.by === 'machine_arn' ? 'machine' : q.by === 'version_arn' ? 'version' : 'alias';
  if (q.redriveFilter === 'REDRIVEN')
    return { index: `executions_by_${dimension}_redriven`, where: ' AND redrive_count > 0' };
  // RUNNING runs are open (a run is open from its start until the hooks of its close have run): the runs in
  // flight, however long the machine's history.
  if (q.status === 'RUNNING') return { index: 'executions_open', where: ' AND open = 1' };
  // Other statuses but SUCCEEDED have an index of their own (schema.ts): its condition, repeated, lets SQLite use it.
  if (q.status !== undefined && q.status !== 'SUCCEEDED')
    return { index: `executions_by_${dimension}_status`, where: " AND status NOT IN ('RUNNING', 'SUCCEEDED')" };
  return { index: `executions_by_${dimension}`, where: '' };
}

/** The first and last `history` key of the execution numbered `seq` (see {@link HISTORY_KEYS_PER_RUN}). */
const historyKeys = (seq: number): [number, number] => [
  seq * HISTORY_KEYS_PER_RUN,
  seq * HISTORY_KEYS_PER_RUN + HISTORY_KEYS_PER_RUN - 1,
];

/** How many running executions' transition bases the store keeps (the runs written last; a miss reads the row). */
export const TRANSITION_BASES_KEPT = 1024;

/** How many state machines' rows the store keeps (a miss reads the row). */
export const STATE_MACHINES_KEPT = 1024;

/** What a transition's write checks first: the run's number, its status, and how many events its history holds. */
export type TransitionBase = Pick<ExecutionRow, 'seq' | 'status' | 'event_count'>;

/** File name of the engine database inside the data directory. */
export const ENGINE_DB_FILE = 'engine.sqlite';

/**
 * How the engine's SQLite file is locked. `exclusive`: the engine's connection holds the file's lock while it is
 * open, so no statement takes a lock of its own (DescribeExecution a fifth cheaper), and no other connection can
 * read the file meanwhile; a second engine on the directory is refused anyway. `shared`: other connections may
 * read the file while the engine runs (the sqlite3 shell, a backup, a test looking at the rows), and every
 * statement takes and releases a lock on the shared-memory index.
 */
export type StoreLocking = 'exclusive' | 'shared';
/**
 * Pass as `dataDir` for a store that lives in memory only (express runs: the service keeps none of
 * them), with the same tables and the same group commit, at no fsync.
 */
export const IN_MEMORY_STORE = ':memory:';

/** A state machine row. */
export interface StateMachineRow {
  arn: string;
  name: string;
  type: string;
  role_arn: string;
  definition_hash: string;
  revision_id: string;
  description: string | null;
  logging: string | null;
  tracing: string | null;
  created_ms: number;
  updated_ms: number | null;
  last_version: number;
}

/** A published version row. */
export interface VersionRow {
  arn: string;
  machine_arn: string;
  version: number;
  definition_hash: string;
  role_arn: string;
  revision_id: string;
  description: string | null;
  created_ms: number;
}

/** An alias row; `routing` is the JSON of `routingConfiguration`. */
export interface AliasRow {
  arn: string;
  machine_arn: string;
  name: string;
  description: string | null;
  routing: string;
  created_ms: number;
  updated_ms: number;
}

export type { ExecutionHeader, ExecutionRow, ExecutionStatus } from './execution-rows';

/** A history event row; `details` is the JSON of the event's details object. */
export interface EventRow {
  execution_arn: string;
  id: number;
  type: string;
  ts_ms: number;
  previous_id: number;
  details: string | null;
}

/**
 * A history event as {@link EngineStore.historyPage} reads it: `details` as JSON text (an event row, a
 * segment of codec version 1) or as the value a segment holds (so a page of large events is not
 * stringified and parsed again on its way out).
 */
export type HistoryEventRow = Omit<EventRow, 'details'> & { readonly details: string | Record<string, unknown> | null };

/** Frame statuses: PENDING frames are Map iterations not started yet (MaxConcurrency). */
export type FrameStatus = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED';

/** A Parallel/Map's children as it decides on them (see {@link EngineStore.childTally}). */
export interface ChildTally {
  readonly running: number;
  readonly failed: number;
  /** Whether a child waits to start (a Map iteration held back by MaxConcurrency). */
  readonly waiting: boolean;
}

/** A frame row; `position` is the JSON of the executor's frame position. */
export interface FrameRow {
  execution_arn: string;
  frame_id: string;
  parent_id: string | null;
  item_index: number;
  status: FrameStatus;
  rev: number;
  position: string;
}

/** A timer row: fires `kind` for a frame at `due_ms`, valid while the frame's attempt is `seq`. */
export interface TimerRow {
  execution_arn: string;
  frame_id: string;
  kind: string;
  seq: number;
  due_ms: number;
}

/** A task token row. */
export interface TaskTokenRow {
  token: string;
  execution_arn: string;
  frame_id: string;
  seq: number;
  open: number;
}

/** sha256 of a definition's text: definitions are stored once and pinned by hash. */
export const definitionHash = (body: string): string => createHash('sha256').update(body).digest('hex');

/** Filters of {@link EngineStore.listExecutions}: one of machine, version or alias, and optional status and redrive filters. */
export interface ExecutionListQuery {
  readonly by: 'machine_arn' | 'version_arn' | 'alias_arn';
  readonly arn: string;
  /** Only executions with a `seq` below this one (0: from the newest). */
  readonly beforeSeq: number;
  readonly status?: string;
  readonly redriveFilter?: 'REDRIVEN' | 'NOT_REDRIVEN' | string;
  readonly limit: number;
}

/** The columns of a state machine an UpdateStateMachine changes. */
export interface StateMachineUpdate {
  readonly definitionHash: string;
  readonly roleArn: string;
  readonly revisionId: string;
  readonly updatedMs: number;
  /** JSON; null keeps the stored value. */
  readonly logging: string | null;
  /** JSON; null keeps the stored value. */
  readonly tracing: string | null;
}

/**
 * The engine's durable store, and the only module that speaks SQL: one SQLite file in WAL mode with
 * `synchronous=FULL` (every COMMIT is fsynced), reached through prepared statements. Every write goes
 * through {@link committer} (the group commit), so concurrent executions share one transaction; the
 * methods below that write are meant to run inside a `committer.commit(...)` write.
 */
export class EngineStore {
  private readonly db: Db;
  readonly committer: GroupCommitter;
  private readonly cache = new Map<string, Statement>();
  /** Prepared statements in raw mode (rows as arrays of values), by SQL text. */
  private readonly valuesCache = new Map<string, Statement>();

  /** Whether the store lives in memory (express runs: gone at close, so nothing is packed). */
  private readonly inMemory: boolean;
  /**
   * Whether the file holds events written before schema 2 (`events` rows, `packed_events` segments), read at
   * open: nothing writes either table since (a closing run's rows are moved to `packed_events`), so a store
   * without them never gains any, and its transitions neither count nor pack them.
   */
  private readonly holdsOlderEvents: boolean;
  private readonly eventCountSql: EventCountSql;
  /**
   * The transition bases of running executions as this store's own writes left them, so that the next
   * transition of a run need not read its row and seek its history again. Only this store writes the
   * file (the data directory's lock), and every write that moves a run's base goes through it: a
   * transition's write ({@link transitionWritten}), a redrive, a deletion. A write rolled back after it
   * returned (a later failure in its savepoint, a failed COMMIT) clears them all (the committer says so).
   */
  private readonly bases = new Map<string, TransitionBase>();
  /**
   * State machine rows as read (frozen), by ARN: every StartExecution reads its machine's. A write of a
   * row drops it (an update, a deletion, a version published), and a rollback drops them all (a row read
   * inside a write that was undone may hold what the write changed).
   */
  private readonly machines = new Map<string, StateMachineRow>();

  /**
   * How many events a run's history may hold: Standard's 25,000. The store of EXPRESS runs has none (their
   * history is not kept by the service, so the quota does not apply: Step Functions guide, "Standard and
   * Express"); their five minutes bound them.
   */
  readonly historyEventLimit: number;

  /**
   * @param options.historyEventLimit @default HISTORY_EVENT_LIMIT (25,000)
   * @param options.locking see {@link StoreLocking} @default 'exclusive'
   */
  constructor(dataDir: string, options: { historyEventLimit?: number; locking?: StoreLocking } = {}) {
    this.historyEventLimit = options.historyEventLimit ?? HISTORY_EVENT_LIMIT;
    this.inMemory = dataDir === IN_MEMORY_STORE;
    if (this.inMemory) {
      this.db = new Database(IN_MEMORY_STORE);
      this.db.pragma('synchronous = OFF');
    } else {
      mkdirSync(dataDir, { recursive: true });
      this.db = new Database(join(dataDir, ENGINE_DB_FILE));
      try {
        refuseNewerSchema(this.db);
      } catch (err) {
        this.db.close();
        throw err;
      }
      // Pages freed by the retention sweep go back to the file system (incremental vacuum). The mode
      // takes effect for a new file; an older file is converted once, by one VACUUM.
      if (Number(this.db.pragma('auto_vacuum', { simple: true })) !== AUTO_VACUUM_INCREMENTAL) {
        this.db.pragma('auto_vacuum = INCREMENTAL');
        if (Number(this.db.pragma('page_count', { simple: true })) > 1) this.db.exec('VACUUM');
      }
      // Set before WAL is entered: an exclusive connection keeps the WAL index in its own memory and takes no
      // lock per statement (a point read cost 11.7 µs with a shared-memory lock per read transaction, 1.9 µs in memory).
      if ((options.locking ?? 'exclusive') === 'exclusive') this.db.pragma('locking_mode = EXCLUSIVE');
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = FULL');
    }
    this.db.pragma('busy_timeout = 5000');
    const started = performance.now();
    const movedFrom = openSchema(this.db);
    if (movedFrom !== undefined && !this.inMemory) {
      // The copied tables' old pages are free now: give them back, or the file stays twice its size until
      // a retention sweep removes a run.
      this.releaseFreePages();
      console.error(
        `autosave engine: store layout ${movedFrom} moved to ${SCHEMA_VERSION} in ${((performance.now() - started) / 1000).toFixed(1)} s (${this.db.name})`,
      );
    }
    this.holdsOlderEvents =
      (
        this.db
          .prepare('SELECT EXISTS (SELECT 1 FROM events) OR EXISTS (SELECT 1 FROM packed_events) AS older')
          .get() as { older: number }
      ).older === 1;
    this.eventCountSql = this.holdsOlderEvents ? EVENT_COUNT_SQL_WITH_OLDER_EVENTS : EVENT_COUNT_SQL;
    this.committer = new GroupCommitter(this.db, () => {
      this.bases.clear();
      this.machines.clear();
    });
  }

  /** A cached prepared statement (for the store's own modules: SQL stays in local/store). */
  sql(text: string): Statement {
    let s = this.cache.get(text);
    if (!s) {
      s = this.db.prepare(text);
      this.cache.set(text, s);
    }
    return s;
  }

  /** A cached prepared statement answering each row as its values in column order (better-sqlite3's raw mode). */
  private valuesSql(text: string): Statement {
    let s = this.valuesCache.get(text);
    if (!s) {
      s = this.db.prepare(text).raw(true);
      this.valuesCache.set(text, s);
    }
    return s;
  }

  close(): void {
    this.committer.flush();
    this.db.close();
  }

  // ---- definitions ------------------------------------------------------------------------------
  putDefinition(body: string): string {
    const hash = definitionHash(body);
    this.sql('INSERT OR IGNORE INTO definitions (hash, body) VALUES (?, ?)').run(hash, body);
    return hash;
  }
  getDefinition(hash: string): string {
    const row = this.sql('SELECT body FROM definitions WHERE hash = ?').get(hash) as { body: string } | undefined;
    if (!row) throw new Error(`definition ${hash} missing from the store`);
    return row.body;
  }

  // ---- state machines, versions, aliases ------------------------------------------------------------
  getStateMachine(arn: string): StateMachineRow | undefined {
    const kept = this.machines.get(arn);
    if (kept) return kept;
    const row = this.sql('SELECT * FROM state_machines WHERE arn = ?').get(arn) as StateMachineRow | undefined;
    if (row) keepRecent(this.machines, arn, Object.freeze(row), STATE_MACHINES_KEPT);
    return row;
  }
  getVersion(arn: string): VersionRow | undefined {
    return this.sql('SELECT * FROM versions WHERE arn = ?').get(arn) as VersionRow | undefined;
  }
  getAlias(arn: string): AliasRow | undefined {
    return this.sql('SELECT * FROM aliases WHERE arn = ?').get(arn) as AliasRow | undefined;
  }
  listStateMachines(): Pick<StateMachineRow, 'arn' | 'name' | 'type' | 'created_ms'>[] {
    return this.sql('SELECT arn, name, type, created_ms FROM state_machines ORDER BY name').all() as Pick<
      StateMachineRow,
      'arn' | 'name' | 'type' | 'created_ms'
    >[];
  }
  insertStateMachine(row: StateMachineRow): void {
    this.machines.delete(row.arn);
    this.sql(
      `INSERT INTO state_machines (arn, name, type, role_arn, definition_hash, revision_id, description, logging, tracing, created_ms, updated_ms, last_version)
       VALUES (@arn, @name, @type, @role_arn, @definition_hash, @revision_id, @description, @logging, @tracing, @created_ms, @updated_ms, @last_version)`,
    ).run(row);
  }
  updateStateMachine(arn: string, u: StateMachineUpdate): void {
    this.machines.delete(arn);
    this.sql(
      `UPDATE state_machines SET definition_hash = ?, role_arn = ?, revision_id = ?, updated_ms = ?,
         logging = COALESCE(?, logging), tracing = COALESCE(?, tracing) WHERE arn = ?`,
    ).run(u.definitionHash, u.roleArn, u.revisionId, u.updatedMs, u.logging, u.tracing, arn);
  }
  /** Deletes a state machine with its versions and aliases (its executions keep their pinned definitions). */
  deleteStateMachine(arn: string): void {
    this.machines.delete(arn);
    this.sql('DELETE FROM versions WHERE machine_arn = ?').run(arn);
    this.sql('DELETE FROM aliases WHERE machine_arn = ?').run(arn);
    this.sql('DELETE FROM state_machines WHERE arn = ?').run(arn);
  }
  latestVersion(machineArn: string): VersionRow | undefined {
    return this.sql('SELECT * FROM versions WHERE machine_arn = ? ORDER BY version DESC LIMIT 1').get(machineArn) as
      VersionRow | undefined;
  }
  countVersions(machineArn: string): number {
    return (this.sql('SELECT COUNT(*) AS n FROM versions WHERE machine_arn = ?').get(machineArn) as { n: number }).n;
  }
  /** Inserts a published version and makes it the machine's last version number. */
  insertVersion(row: VersionRow): void {
    this.machines.delete(row.machine_arn);
    this.sql(
      `INSERT INTO versions (arn, machine_arn, version, definition_hash, role_arn, revision_id, description, created_ms)
       VALUES (@arn, @machine_arn, @version, @definition_hash, @role_arn, @revision_id, @description, @created_ms)`,
    ).run(row);
    this.sql('UPDATE state_machines SET last_version = ? WHERE arn = ?').run(row.version, row.machine_arn);
  }
  /** Versions of a machine, newest first. */
  listVersions(machineArn: string): Pick<VersionRow, 'arn' | 'created_ms'>[] {
    return this.sql('SELECT arn, created_ms FROM versions WHERE machine_arn = ? ORDER BY version DESC').all(
      machineArn,
    ) as Pick<VersionRow, 'arn' | 'created_ms'>[];
  }
  deleteVersion(arn: string): void {
    this.sql('DELETE FROM versions WHERE arn = ?').run(arn);
  }
  /** The `routing` JSON of every alias of a machine. */
  aliasRoutings(machineArn: string): string[] {
    return (this.sql('SELECT routing FROM aliases WHERE machine_arn = ?').all(machineArn) as { routing: string }[]).map(
      (r) => r.routing,
    );
  }
  countAliases(machineArn: string): number {
    return (this.sql('SELECT COUNT(*) AS n FROM aliases WHERE machine_arn = ?').get(machineArn) as { n: number }).n;
  }
  insertAlias(row: AliasRow): void {
    this.sql(
      'INSERT INTO aliases (arn, machine_arn, name, description, routing, created_ms, updated_ms) VALUES (@arn, @machine_arn, @name, @description, @routing, @created_ms, @updated_ms)',
    ).run(row);
  }
  /** New routing and/or description (null keeps the stored value). */
  updateAlias(arn: string, routing: string | null, description: string | null, updatedMs: number): void {
    this.sql(
      'UPDATE aliases SET routing = COALESCE(?, routing), description = COALESCE(?, description), updated_ms = ? WHERE arn = ?',
    ).run(routing, description, updatedMs, arn);
  }
  /** Aliases of a machine, by name. */
  listAliases(machineArn: string): Pick<AliasRow, 'arn' | 'created_ms'>[] {
    return this.sql('SELECT arn, created_ms FROM aliases WHERE machine_arn = ? ORDER BY name').all(machineArn) as Pick<
      AliasRow,
      'arn' | 'created_ms'
    >[];
  }
  deleteAlias(arn: string): void {
    this.sql('DELETE FROM aliases WHERE arn = ?').run(arn);
  }

  // ---- executions ------------------------------------------------------------------------------------
  getExecution(arn: string): ExecutionRow | undefined {
    const values = this.valuesSql(EXECUTION_ROW_SQL).get(arn) as unknown[] | undefined;
    return values && executionRow(values);
  }
  /** An execution without its input and output (they can be 256 KiB each): what a transition needs. */
  getExecutionHeader(arn: string): ExecutionHeader | undefined {
    const values = this.valuesSql(this.eventCountSql.header).get(arn) as unknown[] | undefined;
    return values && executionHeader(values);
  }
  /** What a transition's write checks first: the run's status and how many events its history holds. */
  transitionBase(arn: string): TransitionBase | undefined {
    return this.bases.get(arn) ?? (this.sql(this.eventCountSql.transitionBase).get(arn) as TransitionBase | undefined);
  }
  /**
   * A transition's write of the execution `arn` is done, and left it at `base` (undefined: it closed the
   * run): its next write starts from there without reading the row (see {@link bases}).
   */
  transitionWritten(arn: string, base: TransitionBase | undefined): void {
    if (base === undefined) this.bases.delete(arn);
    else keepRecent(this.bases, arn, base, TRANSITION_BASES_KEPT);
  }
  /** An execution's input text. */
  getExecutionInput(arn: string): string {
    return (this.sql('SELECT input FROM executions WHERE arn = ?').get(arn) as { input: string }).input;
  }
  /**
   * Inserts a new execution row, numbering it after every earlier one (sets `row.seq`): `seq` is the table's
   * integer key, which SQLite gives the largest one plus one when none is given (no AUTOINCREMENT), without a
   * statement of its own to read the largest.
   */
  insertExecution(row: ExecutionRow): void {
    const { lastInsertRowid } = this.sql(
      `INSERT INTO executions (arn, seq, machine_arn, machine_name, name, version_arn, alias_arn, role_arn, definition_hash, input, status,
         start_ms, stop_ms, output, error, cause, redrive_count, redrive_ms, redrive_token, parent_task, event_count)
       VALUES (@arn, NULL, @machine_arn, @machine_name, @name, @version_arn, @alias_arn, @role_arn, @definition_hash, @input, @status,
         @start_ms, @stop_ms, @output, @error, @cause, @redrive_count, @redrive_ms, @redrive_token, @parent_task, @event_count)`,
    ).run(row);
    row.seq = Number(lastInsertRowid);
  }
  /**
   * Inserts a new execution row as {@link insertExecution} does, unless a row of its ARN exists: then
   * nothing is written and that row is returned. The ARN's unique index answers both at once (the usual
   * start, of a new ARN, reads nothing first).
   */
  insertExecutionUnlessExists(row: ExecutionRow): ExecutionRow | undefined {
    try {
      this.insertExecution(row);
      return undefined;
    } catch (err) {
      // A failed statement changes nothing (SQLite undoes it alone): the row that holds the ARN is read instead.
      if ((err as { code?: unknown })?.code !== 'SQLITE_CONSTRAINT_UNIQUE') throw err;
      const existing = this.getExecution(row.arn);
      if (!existing) throw err;
      return existing;
    }
  }
  /** The executions still running, newest first, at most `limit` (the express runtime's runs in flight). */
  runningExecutions(limit: number): ExecutionRow[] {
    return this.sql("SELECT * FROM executions WHERE status = 'RUNNING' ORDER BY seq DESC LIMIT ?").all(
      limit,
    ) as ExecutionRow[];
  }
  /**
   * A page of executions, newest first (keyset by `seq`), without their inputs and outputs. A status filter
   * (but SUCCEEDED) or REDRIVEN reads only the runs it may match (see {@link listedRunsIndex}), however many
   * others the machine has.
   */
  listExecutions(q: ExecutionListQuery): ExecutionRow[] {
    const { index, where } = listedRunsIndex(q);
    return this.sql(
      `SELECT arn, seq, machine_arn, name, status, start_ms, stop_ms, version_arn, alias_arn, redrive_count, redrive_ms
         FROM executions INDEXED BY ${index}
         WHERE ${q.by} = ? AND (? = 0 OR seq < ?) AND (? IS NULL OR status = ?)${where}
         AND (? IS NULL OR (? = 'REDRIVEN' AND redrive_count > 0) OR (? = 'NOT_REDRIVEN' AND redrive_count = 0))
       ORDER BY seq DESC LIMIT ?`,
    ).all(
      q.arn,
      q.beforeSeq,
      q.beforeSeq,
      q.status ?? null,
      q.status ?? null,
      q.redriveFilter ?? null,
      q.redriveFilter ?? null,
      q.redriveFilter ?? null,
      q.limit,
    ) as ExecutionRow[];
  }
  /**
   * A page of history events (keyset by id): after `afterId` ascending, or before `beforeId` descending
   * (0: from the newest). Each transition writes its events as a segment ({@link insertHistorySegment});
   * events an older version left in rows are read as rows, or as segments once packed ({@link packHistory}).
   * Only the segments the page reaches are read and unpacked, so a page costs the same memory whatever the
   * history's size.
   */
  historyPage(executionArn: string, order: 'ASC' | 'DESC', boundId: number, limit: number): HistoryEventRow[] {
    const rows = !this.holdsOlderEvents
      ? []
      : order === 'ASC'
        ? (this.sql('SELECT * FROM events WHERE execution_arn = ? AND id > ? ORDER BY id ASC LIMIT ?').all(
            executionArn,
            boundId,
            limit,
          ) as EventRow[])
        : (this.sql('SELECT * FROM events WHERE execution_arn = ? AND (? = 0 OR id < ?) ORDER BY id DESC LIMIT ?').all(
            executionArn,
            boundId,
            boundId,
            limit,
          ) as EventRow[]);
    // Segments: the run's own (`history`, by seq, written since store schema 2) and those packed by an
    // older version (`packed_events`, by ARN). Their ids never overlap each other or the rows.
    const seq =
      (this.sql('SELECT seq FROM executions WHERE arn = ?').get(executionArn) as { seq: number } | undefined)?.seq ??
      -1;
    const asc = order === 'ASC';
    const [low, high] = historyKeys(seq);
    const located = [
      ...(
        (asc
          ? this.sql('SELECT key, last_id FROM history WHERE key BETWEEN ? AND ? AND last_id > ? ORDER BY key ASC').all(
              low,
              high,
              boundId,
            )
          : this.sql(
              'SELECT key, last_id FROM history WHERE key BETWEEN ? AND ? AND (? = 0 OR key < ? + ?) ORDER BY key DESC',
            ).all(low, high, boundId, low, boundId)) as { key: number }[]
      ).map((s) => ({
        first: s.key - low,
        body: () => this.sql('SELECT body FROM history WHERE key = ?').get(s.key) as { body: Buffer },
      })),
      ...(!this.holdsOlderEvents
        ? []
        : ((asc
            ? this.sql(
                'SELECT first_id, last_id FROM packed_events WHERE execution_arn = ? AND last_id > ? ORDER BY first_id ASC',
              ).all(executionArn, boundId)
            : this.sql(
                'SELECT first_id, last_id FROM packed_events WHERE execution_arn = ? AND (? = 0 OR first_id < ?) ORDER BY first_id DESC',
              ).all(executionArn, boundId, boundId)) as { first_id: number }[])
      ).map((s) => ({
        first: s.first_id,
        body: () =>
          this.sql('SELECT body FROM packed_events WHERE execution_arn = ? AND first_id = ?').get(
            executionArn,
            s.first_id,
          ) as { body: Buffer },
      })),
    ].sort((a, b) => (asc ? a.first - b.first : b.first - a.first));
    if (located.length === 0) return rows;
    const inRange = (id: number) => (asc ? id > boundId : boundId === 0 || id < boundId);
    // Segments are read in page order only until they hold a page: the first `limit` events overall are
    // among them and the rows read above.
    const packed: HistoryEventRow[] = [];
    for (const segment of located) {
      if (packed.length >= limit) break;
      for (const e of unpackEventValues(segment.body().body))
        if (inRange(e.id)) packed.push({ execution_arn: executionArn, ...e });
    }
    return [...packed, ...rows].sort((a, b) => (asc ? a.id - b.id : b.id - a.id)).slice(0, limit);
  }
  /**
   * Writes one transition's events (in id order) as a history segment (history-codec) of the execution
   * numbered `executionSeq`: one row, or more when the transition's events exceed a segment's budget
   * ({@link PACKED_SEGMENT_MAX_EVENTS}, {@link PACKED_SEGMENT_MAX_BYTES}), so no segment is one giant string.
   */
  insertHistorySegment(executionSeq: number, events: readonly EventToPack[]): void {
    const insert = this.sql('INSERT INTO history (key, last_id, body) VALUES (?, ?, ?)');
    const [low] = historyKeys(executionSeq);
    for (const s of historySegments(events, !this.inMemory)) insert.run(low + s.firstId, s.lastId, s.body);
  }
  /**
   * Moves the segments an import staged ({@link stageImportedSegments}) into the history of the execution
   * numbered `executionSeq`, and drops them from the staging table: inside the import's one commit.
   */
  adoptStagedHistory(importId: string, executionSeq: number): void {
    const [low] = historyKeys(executionSeq);
    this.sql(
      'INSERT INTO history (key, last_id, body) SELECT ? + first_id, last_id, body FROM import_staging WHERE import_id = ?',
    ).run(low, importId);
    this.sql('DELETE FROM import_staging WHERE import_id = ?').run(importId);
  }
  /** Writes a page of an import's events (in id order) as staged history segments, seen by no reader until adopted. */
  stageImportedSegments(importId: string, events: readonly EventToPack[]): void {
    const insert = this.sql('INSERT INTO import_staging (import_id, first_id, last_id, body) VALUES (?, ?, ?, ?)');
    for (const s of historySegments(events, !this.inMemory)) insert.run(importId, s.firstId, s.lastId, s.body);
  }
  /** Drops what an import staged (it failed, or a crash cut it off: `importId` undefined drops every import's). */
  dropStagedImport(importId?: string): void {
    if (importId === undefined) this.sql('DELETE FROM import_staging').run();
    else this.sql('DELETE FROM import_staging WHERE import_id = ?').run(importId);
  }
  /**
   * Packs the events a closing execution holds in rows (written by a version before store schema 2, or
   * left by a packing that failed) into compressed rows (history-codec), a segment per
   * {@link PACKED_SEGMENT_MAX_EVENTS} events or {@link PACKED_SEGMENT_MAX_BYTES} of details, whichever
   * comes first: a history of any size (25,000 events of 256 KiB each) is packed and read back a
   * segment at a time, never as one string. Runs inside the closing transition's write, in a savepoint of
   * its own: packing only saves space, so a packing that fails leaves the events as rows (history reads
   * them the same) and the run still closes. Returns whether the history was packed.
   */
  packHistory(executionArn: string): boolean {
    if (this.inMemory || !this.holdsOlderEvents) return false;
    try {
      this.db.transaction(() => this.packSegments(executionArn))();
      return true;
    } catch (err) {
      console.error(
        `autosave engine: the history of ${executionArn} stays unpacked (${(err as Error)?.message ?? String(err)})`,
      );
      return false;
    }
  }

  private packSegments(executionArn: string): void {
    const read = this.sql(
      'SELECT id, type, ts_ms, previous_id, details FROM events WHERE execution_arn = ? AND id > ? ORDER BY id LIMIT ?',
    );
    const write = this.sql(
      'INSERT OR REPLACE INTO packed_events (execution_arn, first_id, last_id, body) VALUES (?, ?, ?, ?)',
    );
    let segment: EventRow[] = [];
    let bytes = 0;
    const flush = () => {
      if (segment.length === 0) return;
      write.run(executionArn, segment[0].id, segment[segment.length - 1].id, packEventRows(segment));
      segment = [];
      bytes = 0;
    };
    let after = 0;
    for (;;) {
      const batch = read.all(executionArn, after, PACKED_SEGMENT_MAX_EVENTS) as EventRow[];
      if (batch.length === 0) break;
      for (const event of batch) {
        const size = (event.details?.length ?? 0) + EVENT_OVERHEAD_BYTES;
        if (
          segment.length >= PACKED_SEGMENT_MAX_EVENTS ||
          (segment.length > 0 && bytes + size > PACKED_SEGMENT_MAX_BYTES)
        )
          flush();
        segment.push(event);
        bytes += size;
      }
      after = batch[batch.length - 1].id;
    }
    flush();
    this.sql('DELETE FROM events WHERE execution_arn = ?').run(executionArn);
  }
  /** Deletes an execution's frames (a SUCCEEDED run is never redriven: nothing reads them again). */
  deleteFrames(executionArn: string): void {
    this.sql('DELETE FROM frames WHERE execution_arn = ?').run(executionArn);
  }
  /** Up to `limit` closed executions that stopped before `stoppedBeforeMs`, oldest first. */
  closedBefore(stoppedBeforeMs: number, limit: number): string[] {
    return (
      this.sql(
        "SELECT arn FROM executions WHERE stop_ms IS NOT NULL AND stop_ms < ? AND status != 'RUNNING' ORDER BY stop_ms LIMIT ?",
      ).all(stoppedBeforeMs, limit) as {
        arn: string;
      }[]
    ).map((r) => r.arn);
  }
  /** Returns up to `pages` free pages to the file system (auto_vacuum = INCREMENTAL); 0: all of them. */
  releaseFreePages(pages = 0): void {
    this.db.pragma(`incremental_vacuum(${Math.max(0, Math.floor(pages))})`);
  }
  /** The file's size in pages and its free pages (bytes: times `pageSize`). */
  get storageStats(): { pageSize: number; pages: number; freePages: number } {
    return {
      pageSize: Number(this.db.pragma('page_size', { simple: true })),
      pages: Number(this.db.pragma('page_count', { simple: true })),
      freePages: Number(this.db.pragma('freelist_count', { simple: true })),
    };
  }
  /** Pages (WAL frames) the store writes while `work` runs ({@link walFramesDuring}); 0 for a store in memory. */
  async walFramesDuring(work: () => Promise<void>): Promise<number> {
    if (this.inMemory) {
      await work();
      return 0;
    }
    return walFramesDuring(this.db, work, () => this.committer.flush());
  }
  /** The pages each commit of `work` writes, labelled by table or index ({@link walCommitsDuring}); none for a store in memory. */
  async walCommitsDuring(work: () => Promise<void>): Promise<string[][]> {
    if (this.inMemory) {
      await work();
      return [];
    }
    return walCommitsDuring(this.db, work, () => this.committer.flush());
  }
  /** Re-opens a closed execution for a redrive (RUNNING, output and error cleared, counted, close hooks dropped). */
  reopenForRedrive(arn: string, nowMs: number, clientToken: string | null): void {
    this.bases.delete(arn);
    this.sql(
      `UPDATE executions SET status = 'RUNNING', stop_ms = NULL, output = NULL, error = NULL, cause = NULL,
         redrive_count = redrive_count + 1, redrive_ms = ?, redrive_token = ?, open = 1 WHERE arn = ?`,
    ).run(nowMs, clientToken, arn);
  }

  // ---- close notifications (close hooks not yet run to the end) -----------------------------------------
  /** Closed executions still `open`: their close hooks have not run to the end. */
  closeNotifications(): string[] {
    return (
      this.sql("SELECT arn FROM executions WHERE open = 1 AND status != 'RUNNING' ORDER BY seq").all() as {
        arn: string;
      }[]
    ).map((r) => r.arn);
  }
  /** The hooks of an execution's close (as `status`) have run: it is no longer open, unless it was redriven meanwhile. */
  deleteCloseNotification(executionArn: string, status: string): void {
    this.sql('UPDATE executions SET open = 0 WHERE arn = ? AND status = ? AND open = 1').run(executionArn, status);
  }

  /** Removes an execution with everything it left: history, frames, timers, task tokens, close notification. */
  deleteExecution(arn: string): void {
    this.bases.delete(arn);
    const seq = (this.sql('SELECT seq FROM executions WHERE arn = ?').get(arn) as { seq: number } | undefined)?.seq;
    if (seq !== undefined) this.sql('DELETE FROM history WHERE key BETWEEN ? AND ?').run(...historyKeys(seq));
    for (const table of [
      'events',
      'packed_events',
      'frames',
      'timers',
      'task_tokens',
      'mocked_runs',
      'mock_invocations',
      'activity_tasks',
      'imported_runs',
    ]) {
      this.sql(`DELETE FROM ${table} WHERE execution_arn = ?`).run(arn);
    }
    this.sql('DELETE FROM executions WHERE arn = ?').run(arn);
  }

  // ---- frames ------------------------------------------------------------------------------------------
  getFrame(executionArn: string, frameId: string): FrameRow | undefined {
    return this.sql('SELECT * FROM frames WHERE execution_arn = ? AND frame_id = ?').get(executionArn, frameId) as
      FrameRow | undefined;
  }
  childFrames(executionArn: string, parentId: string): FrameRow[] {
    return this.sql('SELECT * FROM frames WHERE execution_arn = ? AND parent_id = ? ORDER BY item_index').all(
      executionArn,
      parentId,
    ) as FrameRow[];
  }
  /**
   * What a Parallel/Map decides on each time a child ends: how many children run, how many failed, and whether
   * any waits to start. Each reads only the children in that status, so a Map of many items pays the same per
   * item however many wait or succeeded.
   */
  childTally(executionArn: string, parentId: string): ChildTally {
    const count = (status: FrameStatus) =>
      (
        this.sql(
          'SELECT COUNT(*) AS n FROM frames INDEXED BY frames_by_parent_status WHERE execution_arn = ? AND parent_id = ? AND status = ?',
        ).get(executionArn, parentId, status) as { n: number }
      ).n;
    const waiting = this.sql(
      "SELECT 1 FROM frames INDEXED BY frames_by_parent_status WHERE execution_arn = ? AND parent_id = ? AND status = 'PENDING' LIMIT 1",
    ).get(executionArn, parentId);
    return { running: count('RUNNING'), failed: count('FAILED'), waiting: waiting !== undefined };
  }
  /** The first `limit` PENDING children of a group (Map iterations waiting for room under MaxConcurrency), by index. */
  pendingChildren(executionArn: string, parentId: string, limit: number): FrameRow[] {
    return this.sql(
      "SELECT * FROM frames INDEXED BY frames_by_parent_status WHERE execution_arn = ? AND parent_id = ? AND status = 'PENDING' ORDER BY item_index LIMIT ?",
    ).all(executionArn, parentId, limit) as FrameRow[];
  }
  /**
   * Frames of running executions (all, or one) that have something to do: about to enter a state, waiting
   * on children, or in a Task attempt whose outcome was never committed.
   */
  resumableFrames(executionArn?: string): { execution_arn: string; frame_id: string }[] {
    return this.sql(
      `SELECT f.execution_arn, f.frame_id FROM frames f JOIN executions e ON e.arn = f.execution_arn
       WHERE e.open = 1 AND e.status = 'RUNNING' AND f.status = 'RUNNING' AND (? IS NULL OR e.arn = ?)
         AND (json_extract(f.position, '$.phase.kind') IN ('enter', 'children')
           OR (json_extract(f.position, '$.phase.kind') = 'task' AND json_extract(f.position, '$.phase.submitted') IS NOT 1))`,
    ).all(executionArn ?? null, executionArn ?? null) as { execution_arn: string; frame_id: string }[];
  }
  framesOf(executionArn: string): FrameRow[] {
    return this.sql('SELECT * FROM frames WHERE execution_arn = ?').all(executionArn) as FrameRow[];
  }

  // ---- timers --------------------------------------------------------------------------------------------
  earliestTimer(): TimerRow | undefined {
    return this.sql('SELECT * FROM timers ORDER BY due_ms LIMIT 1').get() as TimerRow | undefined;
  }
  /** The `limit` earliest timers. */
  earliestTimers(limit: number): TimerRow[] {
    return this.sql('SELECT * FROM timers ORDER BY due_ms LIMIT ?').all(limit) as TimerRow[];
  }
  /** Deletes one timer row, if it is still the one that fired. */
  deleteTimer(t: TimerRow): void {
    this.sql('DELETE FROM timers WHERE execution_arn = ? AND frame_id = ? AND kind = ? AND seq = ? AND due_ms = ?').run(
      t.execution_arn,
      t.frame_id,
      t.kind,
      t.seq,
      t.due_ms,
    );
  }
  /** Pushes a Task attempt's heartbeat deadline out (SendTaskHeartbeat); false when the attempt has no heartbeat timer. */
  pushHeartbeat(executionArn: string, frameId: string, seq: number, dueMs: number): boolean {
    return (
      this.sql(
        "UPDATE timers SET due_ms = ? WHERE execution_arn = ? AND frame_id = ? AND kind = 'heartbeat' AND seq = ?",
      ).run(dueMs, executionArn, frameId, seq).changes > 0
    );
  }
  dueTimers(nowMs: number, limit: number): TimerRow[] {
    return this.sql('SELECT * FROM timers WHERE due_ms <= ? ORDER BY due_ms LIMIT ?').all(nowMs, limit) as TimerRow[];
  }
  getTimer(executionArn: string, frameId: string, kind: string): TimerRow | undefined {
    return this.sql('SELECT * FROM timers WHERE execution_arn = ? AND frame_id = ? AND kind = ?').get(
      executionArn,
      frameId,
      kind,
    ) as TimerRow | undefined;
  }

  // ---- task tokens -------------------------------------------------------------------------------------
  getTaskToken(token: string): TaskTokenRow | undefined {
    return this.sql('SELECT * FROM task_tokens WHERE token = ?').get(token) as TaskTokenRow | undefined;
  }
}
