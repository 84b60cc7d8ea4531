/**
 * The engine's tables. Everything an execution needs to carry on after a crash is here: its pinned
 * definition, its history, every frame (the root, each Parallel branch, each Map iteration) with its
 * position, its timers and its task tokens. JSON columns hold wire-shaped values as text.
 */
export const SCHEMA_SQL = `
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
  arn TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
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
  event_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS executions_by_seq ON executions (seq);
CREATE INDEX IF NOT EXISTS executions_by_machine ON executions (machine_arn, seq);
CREATE INDEX IF NOT EXISTS executions_by_version ON executions (version_arn, seq);
CREATE INDEX IF NOT EXISTS executions_by_alias ON executions (alias_arn, seq);
CREATE INDEX IF NOT EXISTS executions_running ON executions (status) WHERE status = 'RUNNING';
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
CREATE INDEX IF NOT EXISTS frames_by_parent ON frames (execution_arn, parent_id, item_index);
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
CREATE TABLE IF NOT EXISTS close_notifications (
  execution_arn TEXT PRIMARY KEY,
  status TEXT NOT NULL
);
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
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;
