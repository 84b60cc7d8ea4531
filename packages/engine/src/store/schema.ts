import type { Database } from 'better-sqlite3';
import { AutosaveError } from '@autosave/workflow/errors';

/**
 * The layout version of the engine store, kept in the file (`PRAGMA user_version`). 0 is the layout
 * written before versions were recorded; {@link openSchema} moves a store of an older version to this one
 * and refuses a newer one.
 * - 1: `close_notifications` without a rowid (no separate key index to write), the version and alias
 *   indexes of executions only hold runs started through a version or an alias, and a transition no longer
 *   writes the execution's row (its event count is read from the history until the run closes).
 * - 2: a transition writes its events as one history segment (history-codec version 2) in `history`,
 *   keyed by the execution's `seq` (an integer growing with every start, so segments are appended at the end
 *   of the tree instead of splitting pages in its middle as 90-byte ARN keys do), instead of a row per event
 *   in `events`; a closing run's segments stay as they are. Events in rows and segments in `packed_events`
 *   (written before) are still read, and rows are packed when their run closes.
 * - 3: fewer pages per commit. `history` is a rowid table keyed by `seq` × {@link HISTORY_KEYS_PER_RUN} +
 *   the segment's first event id (`execution_seq` and `first_id` are computed columns): a run's next
 *   segment is appended to the tree's last page, which SQLite splits by starting a new page (a WITHOUT
 *   ROWID tree splits by sharing rows among three pages, rewriting them all and leaving them two-thirds
 *   full). `executions` is keyed by its `seq` (no separate index of it), and `frames_by_parent` holds only
 *   frames with a parent (never a run's root frame, which every start inserted and every success deleted).
 * - 4: an execution is `open` from its start until the hooks of its close have run (a `.sync` parent told,
 *   the status-change event), what a restart picks up, indexed by `executions_open`, which neither the
 *   close nor anything between writes: it replaces `close_notifications` (a row inserted at every close)
 *   and `executions_running` (an entry removed at every close).
 */
export const SCHEMA_VERSION = 4;

/**
 * `history` keys per execution: a segment's key is its execution's `seq` times this, plus the id of its
 * first event (at most the history limit, 25,000, far below).
 */
export const HISTORY_KEYS_PER_RUN = 2 ** 20;

/** The store was written by a newer version of the engine, whose layout this one does not know. */
export class StoreSchemaTooNewError extends AutosaveError {
  override readonly name = 'StoreSchemaTooNewError';

  constructor(
    readonly file: string,
    readonly version: number,
  ) {
    super(
      `${file} was written by a newer version of autosave (store schema ${version}; this version reads up to ${SCHEMA_VERSION}): ` +
        'upgrade autosave, or pass another --data directory',
    );
  }
}

/** The columns of `executions` (every version has them all). */
const EXECUTION_COLUMNS =
  'seq, arn, machine_arn, machine_name, name, version_arn, alias_arn, role_arn, definition_hash, input, status, start_ms, stop_ms, ' +
  'output, error, cause, redrive_count, redrive_ms, redrive_token, parent_task, event_count';

const tableExists = (db: Database, name: string): boolean =>
  db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined;

const columnExists = (db: Database, table: string, column: string): boolean =>
  (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as { name: string }[]).some(
    (c) => c.name === column,
  );

/** Moves a store of version `from - 1` to version `from`: run in one transaction, in order. */
const MIGRATIONS: Record<number, string | ((db: Database) => void)> = {
  1: `
    DROP INDEX executions_by_version;
    DROP INDEX executions_by_alias;
    ALTER TABLE close_notifications RENAME TO close_notifications_v0;
    -- the new indexes and table: SCHEMA_SQL, run after
  `,
  // Nothing to move: new transitions write segments in the new table; what was written is read where it is.
  2: '',
  // The old tables step aside (their indexes, named as the new ones, go: SCHEMA_SQL makes them again).
  3: (db) => {
    db.exec(`
      ALTER TABLE executions RENAME TO executions_v2;
      DROP INDEX IF EXISTS executions_by_seq; DROP INDEX IF EXISTS executions_by_machine; DROP INDEX IF EXISTS executions_by_version;
      DROP INDEX IF EXISTS executions_by_alias; DROP INDEX IF EXISTS executions_running; DROP INDEX IF EXISTS executions_closed;
      DROP INDEX IF EXISTS frames_by_parent;
    `);
    if (tableExists(db, 'history')) db.exec('ALTER TABLE history RENAME TO history_v2');
  },
  // A store of version 3 keeps its table (one of an older version is made anew by SCHEMA_SQL and copied).
  4: (db) => {
    if (tableExists(db, 'executions') && !columnExists(db, 'executions', 'open'))
      db.exec('ALTER TABLE executions ADD COLUMN open INTEGER NOT NULL DEFAULT 1');
    db.exec('DROP INDEX IF EXISTS executions_running');
  },
};
/** What a migration copies once {@link SCHEMA_SQL} has created the new tables. */
const MIGRATION_COPIES: Record<number, string | ((db: Database) => void)> = {
  1: `
    CREATE TABLE close_notifications (execution_arn TEXT PRIMARY KEY, status TEXT NOT NULL) WITHOUT ROWID;
    INSERT INTO close_notifications (execution_arn, status) SELECT execution_arn, status FROM close_notifications_v0;
    DROP TABLE close_notifications_v0;
  `,
  2: '',
  3: (db) => {
    db.exec(
      `INSERT INTO executions (${EXECUTION_COLUMNS}) SELECT ${EXECUTION_COLUMNS} FROM executions_v2; DROP TABLE executions_v2;`,
    );
    if (!tableExists(db, 'history_v2')) return;
    db.exec(
      `INSERT INTO history (key, last_id, body) SELECT execution_seq * ${HISTORY_KEYS_PER_RUN} + first_id, last_id, body FROM history_v2; DROP TABLE history_v2;`,
    );
  },
  // Closed runs whose close hooks have run are no longer open.
  4: `
    UPDATE executions SET open = 0 WHERE status != 'RUNNING' AND arn NOT IN (SELECT execution_arn FROM close_notifications);
    DROP TABLE close_notifications;
  `,
};

const run = (db: Database, step: string | ((db: Database) => void)): void => {
  if (typeof step === 'string') db.exec(step);
  else step(db);
};

/** The store's version; throws {@link StoreSchemaTooNewError} before anything touches a newer store. */
export function refuseNewerSchema(db: Database): number {
  const version = Number(db.pragma('user_version', { simple: true }));
  if (version > SCHEMA_VERSION) throw new StoreSchemaTooNewError(db.name, version);
  return version;
}

/**
 * Creates the tables of a new store, or brings an older store to {@link SCHEMA_VERSION} (in one
 * transaction: a crash leaves it at its old version); throws {@link StoreSchemaTooNewError} for a newer one,
 * without touching it. Returns the version an older store was moved from (undefined: nothing moved).
 */
export function openSchema(db: Database): number | undefined {
  const version = refuseNewerSchema(db);
  const fresh =
    (db.prepare("SELECT COUNT(*) AS n FROM sqlite_schema WHERE name = 'executions'").get() as { n: number }).n === 0;
  db.transaction(() => {
    if (!fresh) for (let v = version + 1; v <= SCHEMA_VERSION; v += 1) run(db, MIGRATIONS[v]);
    db.exec(SCHEMA_SQL);
    if (!fresh) for (let v = version + 1; v <= SCHEMA_VERSION; v += 1) run(db, MIGRATION_COPIES[v]);
    if (version !== SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  })();
  return !fresh && version !== SCHEMA_VERSION ? version : undefined;
}

/**
 * The engine's tables. Everything an execution needs to carry on after a crash is here: its pinned
 * definition, its history, every frame (the root, each Parallel branch, each Map iteration) with its
 * position, its timers and its task tokens; the activities, and the activity tasks scheduled and not yet
 * handed to a worker (the queue GetActivityTask reads; each row's token is the task's). JSON columns hold
 * wire-shaped values as text. A table added here without a migration is created in older stores too.
 */
const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS definitions (
  hash TEXT PRIMARY KEY,
  body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS state_machines (
  arn TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  role_arn TEXT NOT NULL,
  definition_hash TEXT NOT NULL,
  revision_id TEXT NOT NULL,
  description TEXT,
  logging TEXT,
  tracing TEXT,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER,
  last_version INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS versions (
  arn TEXT PRIMARY KEY,
  machine_arn TEXT NOT NULL,
  version INTEGER NOT NULL,
  definition_hash TEXT NOT NULL,
  role_arn TEXT NOT NULL,
  revision_id TEXT NOT NULL,
  description TEXT,
  created_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS versions_by_machine ON versions (machine_arn, version);
CREATE TABLE IF NOT EXISTS aliases (
  arn TEXT PRIMARY KEY,
  machine_arn TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT,
  routing TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS aliases_by_machine ON aliases (machine_arn, name);
CREATE TABLE IF NOT EXISTS executions (
  seq INTEGER PRIMARY KEY,
  arn TEXT NOT NULL UNIQUE,
  machine_arn TEXT NOT NULL,
  machine_name TEXT NOT NULL,
  name TEXT NOT NULL,
  version_arn TEXT,
  alias_arn TEXT,
  role_arn TEXT NOT NULL,
  definition_hash TEXT NOT NULL,
  input TEXT NOT NULL,
  status TEXT NOT NULL,
  start_ms INTEGER NOT NULL,
  stop_ms INTEGER,
  output TEXT,
  error TEXT,
  cause TEXT,
  redrive_count INTEGER NOT NULL DEFAULT 0,
  redrive_ms INTEGER,
  redrive_token TEXT,
  parent_task TEXT,
  event_count INTEGER NOT NULL DEFAULT 0,
  open INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS executions_by_machine ON executions (machine_arn, seq);
CREATE INDEX IF NOT EXISTS executions_by_version ON executions (version_arn, seq) WHERE version_arn IS NOT NULL;
CREATE INDEX IF NOT EXISTS executions_by_alias ON executions (alias_arn, seq) WHERE alias_arn IS NOT NULL;
CREATE INDEX IF NOT EXISTS executions_open ON executions (seq) WHERE open = 1;
-- ListExecutions of a status that is neither RUNNING (read through executions_open) nor SUCCEEDED (what most
-- runs end as, found among the machine's runs at once): only such runs are entered, so a run that succeeds
-- writes nothing here, and a list of failures reads failures, not the machine's whole history.
CREATE INDEX IF NOT EXISTS executions_by_machine_status ON executions (machine_arn, status, seq)
  WHERE status NOT IN ('RUNNING', 'SUCCEEDED');
CREATE INDEX IF NOT EXISTS executions_by_version_status ON executions (version_arn, status, seq)
  WHERE version_arn IS NOT NULL AND status NOT IN ('RUNNING', 'SUCCEEDED');
CREATE INDEX IF NOT EXISTS executions_by_alias_status ON executions (alias_arn, status, seq)
  WHERE alias_arn IS NOT NULL AND status NOT IN ('RUNNING', 'SUCCEEDED');
-- ListExecutions of REDRIVEN runs: a run enters once redriven.
CREATE INDEX IF NOT EXISTS executions_by_machine_redriven ON executions (machine_arn, seq) WHERE redrive_count > 0;
CREATE INDEX IF NOT EXISTS executions_by_version_redriven ON executions (version_arn, seq)
  WHERE version_arn IS NOT NULL AND redrive_count > 0;
CREATE INDEX IF NOT EXISTS executions_by_alias_redriven ON executions (alias_arn, seq)
  WHERE alias_arn IS NOT NULL AND redrive_count > 0;
CREATE INDEX IF NOT EXISTS executions_closed ON executions (stop_ms) WHERE stop_ms IS NOT NULL;
CREATE TABLE IF NOT EXISTS events (
  execution_arn TEXT NOT NULL,
  id INTEGER NOT NULL,
  type TEXT NOT NULL,
  ts_ms INTEGER NOT NULL,
  previous_id INTEGER NOT NULL,
  details TEXT,
  PRIMARY KEY (execution_arn, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS packed_events (
  execution_arn TEXT NOT NULL,
  first_id INTEGER NOT NULL,
  last_id INTEGER NOT NULL,
  body BLOB NOT NULL,
  PRIMARY KEY (execution_arn, first_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS history (
  key INTEGER PRIMARY KEY,
  last_id INTEGER NOT NULL,
  body BLOB NOT NULL,
  execution_seq INTEGER GENERATED ALWAYS AS (key / ${HISTORY_KEYS_PER_RUN}) VIRTUAL,
  first_id INTEGER GENERATED ALWAYS AS (key % ${HISTORY_KEYS_PER_RUN}) VIRTUAL
);
CREATE TABLE IF NOT EXISTS frames (
  execution_arn TEXT NOT NULL,
  frame_id TEXT NOT NULL,
  parent_id TEXT,
  item_index INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,
  rev INTEGER NOT NULL DEFAULT 0,
  position TEXT NOT NULL,
  PRIMARY KEY (execution_arn, frame_id)
) WITHOUT ROWID;
-- A Map's children by status: each child that ends counts those running and failed and starts the next waiting
-- one, reading only those (frames_by_parent, before, made each of them read every child: n² for n items).
DROP INDEX IF EXISTS frames_by_parent;
CREATE INDEX IF NOT EXISTS frames_by_parent_status ON frames (execution_arn, parent_id, status, item_index)
  WHERE parent_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS timers (
  execution_arn TEXT NOT NULL,
  frame_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  seq INTEGER NOT NULL,
  due_ms INTEGER NOT NULL,
  PRIMARY KEY (execution_arn, frame_id, kind)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS timers_by_due ON timers (due_ms);
CREATE TABLE IF NOT EXISTS task_tokens (
  token TEXT PRIMARY KEY,
  execution_arn TEXT NOT NULL,
  frame_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  open INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS task_tokens_by_execution ON task_tokens (execution_arn) WHERE open = 1;
CREATE INDEX IF NOT EXISTS task_tokens_of_execution ON task_tokens (execution_arn);
CREATE TABLE IF NOT EXISTS mocked_runs (
  execution_arn TEXT PRIMARY KEY,
  test_case TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS mock_invocations (
  execution_arn TEXT NOT NULL,
  frame_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  state TEXT NOT NULL,
  number INTEGER NOT NULL,
  PRIMARY KEY (execution_arn, frame_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS mock_invocations_by_state ON mock_invocations (execution_arn, state);
CREATE TABLE IF NOT EXISTS activities (
  arn TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  encryption TEXT,
  tags TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS activity_tasks (
  id INTEGER PRIMARY KEY,
  token TEXT NOT NULL UNIQUE,
  activity_arn TEXT NOT NULL,
  execution_arn TEXT NOT NULL,
  frame_id TEXT NOT NULL,
  input TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS activity_tasks_by_activity ON activity_tasks (activity_arn, id);
CREATE INDEX IF NOT EXISTS activity_tasks_by_execution ON activity_tasks (execution_arn);
CREATE TABLE IF NOT EXISTS imported_runs (
  execution_arn TEXT PRIMARY KEY,
  source_arn TEXT NOT NULL,
  account TEXT NOT NULL,
  region TEXT NOT NULL,
  source_endpoint TEXT,
  imported_ms INTEGER NOT NULL,
  last_imported_id INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS import_staging (
  import_id TEXT NOT NULL,
  first_id INTEGER NOT NULL,
  last_id INTEGER NOT NULL,
  body BLOB NOT NULL,
  PRIMARY KEY (import_id, first_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;
