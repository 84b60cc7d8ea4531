import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { GroupCommitter } from './group-committer';
import { SCHEMA_SQL } from './schema';

/** File name of the engine database inside the data directory. */
export const ENGINE_DB_FILE = 'engine.sqlite';

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

/** Execution statuses as the service names them. */
export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'PENDING_REDRIVE';

/** An execution row. */
export interface ExecutionRow {
  arn: string;
  seq: number;
  machine_arn: string;
  machine_name: string;
  name: string;
  version_arn: string | null;
  alias_arn: string | null;
  role_arn: string;
  definition_hash: string;
  input: string;
  status: ExecutionStatus;
  start_ms: number;
  stop_ms: number | null;
  output: string | null;
  error: string | null;
  cause: string | null;
  redrive_count: number;
  redrive_ms: number | null;
  redrive_token: string | null;
  /** JSON of the `.sync` parent Task waiting for this run: `{executionArn, frameId, seq, version}`. */
  parent_task: string | null;
  event_count: number;
}

/** The columns of an execution a transition reads. */
export type ExecutionHeader = Pick<
  ExecutionRow,
  | 'arn' | 'seq' | 'machine_arn' | 'machine_name' | 'name' | 'version_arn' | 'alias_arn' | 'role_arn' | 'definition_hash'
  | 'status' | 'start_ms' | 'redrive_count' | 'redrive_ms' | 'event_count'
>;

/** A history event row; `details` is the JSON of the event's details object. */
export interface EventRow {
  execution_arn: string;
  id: number;
  type: string;
  ts_ms: number;
  previous_id: number;
  details: string | null;
}

/** Frame statuses: PENDING frames are Map iterations not started yet (MaxConcurrency). */
export type FrameStatus = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED';

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

/**
 * The engine's durable store: one SQLite file in WAL mode with `synchronous=FULL` (every COMMIT is
 * fsynced), reached through prepared statements. Writes from the executor go through {@link committer}
 * so concurrent executions share one transaction.
 */
export class EngineStore {
  readonly db: Db;
  readonly committer: GroupCommitter;
  private readonly cache = new Map<string, Statement>();

  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true });
    this.db = new Database(join(dataDir, ENGINE_DB_FILE));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA_SQL);
    this.committer = new GroupCommitter(this.db);
  }

  /** A cached prepared statement. */
  sql(text: string): Statement {
    let s = this.cache.get(text);
    if (!s) {
      s = this.db.prepare(text);
      this.cache.set(text, s);
    }
    return s;
  }

  /** Runs `fn` in one (immediate) transaction now, outside the group commit. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
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
    return this.sql('SELECT * FROM state_machines WHERE arn = ?').get(arn) as StateMachineRow | undefined;
  }
  getVersion(arn: string): VersionRow | undefined {
    return this.sql('SELECT * FROM versions WHERE arn = ?').get(arn) as VersionRow | undefined;
  }
  getAlias(arn: string): AliasRow | undefined {
    return this.sql('SELECT * FROM aliases WHERE arn = ?').get(arn) as AliasRow | undefined;
  }

  // ---- executions ------------------------------------------------------------------------------------
  getExecution(arn: string): ExecutionRow | undefined {
    return this.sql('SELECT * FROM executions WHERE arn = ?').get(arn) as ExecutionRow | undefined;
  }
  /** An execution without its input and output (they can be 256 KiB each): what a transition needs. */
  getExecutionHeader(arn: string): ExecutionHeader | undefined {
    return this.sql(
      `SELECT arn, seq, machine_arn, machine_name, name, version_arn, alias_arn, role_arn, definition_hash, status, start_ms,
         redrive_count, redrive_ms, event_count FROM executions WHERE arn = ?`,
    ).get(arn) as ExecutionHeader | undefined;
  }
  /** An execution's input text. */
  getExecutionInput(arn: string): string {
    return (this.sql('SELECT input FROM executions WHERE arn = ?').get(arn) as { input: string }).input;
  }
  nextExecutionSeq(): number {
    const row = this.sql('SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM executions').get() as { n: number };
    return row.n;
  }

  // ---- frames ------------------------------------------------------------------------------------------
  getFrame(executionArn: string, frameId: string): FrameRow | undefined {
    return this.sql('SELECT * FROM frames WHERE execution_arn = ? AND frame_id = ?').get(executionArn, frameId) as
      | FrameRow
      | undefined;
  }
  childFrames(executionArn: string, parentId: string): FrameRow[] {
    return this.sql('SELECT * FROM frames WHERE execution_arn = ? AND parent_id = ? ORDER BY item_index').all(
      executionArn,
      parentId,
    ) as FrameRow[];
  }
  childStatusCounts(executionArn: string, parentId: string): Record<FrameStatus, number> {
    const rows = this.sql(
      'SELECT status, COUNT(*) AS n FROM frames WHERE execution_arn = ? AND parent_id = ? GROUP BY status',
    ).all(executionArn, parentId) as { status: FrameStatus; n: number }[];
    const counts: Record<FrameStatus, number> = { PENDING: 0, RUNNING: 0, SUCCEEDED: 0, FAILED: 0, ABORTED: 0 };
    for (const r of rows) counts[r.status] = r.n;
    return counts;
  }
  framesOf(executionArn: string): FrameRow[] {
    return this.sql('SELECT * FROM frames WHERE execution_arn = ?').all(executionArn) as FrameRow[];
  }

  // ---- timers --------------------------------------------------------------------------------------------
  earliestTimer(): TimerRow | undefined {
    return this.sql('SELECT * FROM timers ORDER BY due_ms LIMIT 1').get() as TimerRow | undefined;
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
