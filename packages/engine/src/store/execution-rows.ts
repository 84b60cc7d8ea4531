/**
 * Execution rows read by column position. better-sqlite3 names a row object's properties from the
 * statement's column names, making every name a V8 string anew (a lookup in V8's string table, after a
 * `strlen`) for each column of each row: for the 21 columns of the row a DescribeExecution reads, that was
 * most of its store read. A statement in raw mode answers the values alone; these builders make the same
 * objects with literal property names, interned once, when the code is compiled.
 *
 * Each builder reads the values in the order of its column list, which is the SELECT's: the two are kept
 * side by side here, with the row's shape, and a test checks every builder against better-sqlite3's own
 * row objects.
 */

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
  | 'arn'
  | 'seq'
  | 'machine_arn'
  | 'machine_name'
  | 'name'
  | 'version_arn'
  | 'alias_arn'
  | 'role_arn'
  | 'definition_hash'
  | 'status'
  | 'start_ms'
  | 'redrive_count'
  | 'redrive_ms'
  | 'event_count'
>;

/** The columns of {@link ExecutionRow}, in the order {@link executionRow} reads them. */
export const EXECUTION_ROW_COLUMNS =
  'seq, arn, machine_arn, machine_name, name, version_arn, alias_arn, role_arn, definition_hash, input, status, ' +
  'start_ms, stop_ms, output, error, cause, redrive_count, redrive_ms, redrive_token, parent_task, event_count';

/** An execution row from its values in {@link EXECUTION_ROW_COLUMNS}' order. */
export function executionRow(v: readonly unknown[]): ExecutionRow {
  return {
    seq: v[0],
    arn: v[1],
    machine_arn: v[2],
    machine_name: v[3],
    name: v[4],
    version_arn: v[5],
    alias_arn: v[6],
    role_arn: v[7],
    definition_hash: v[8],
    input: v[9],
    status: v[10],
    start_ms: v[11],
    stop_ms: v[12],
    output: v[13],
    error: v[14],
    cause: v[15],
    redrive_count: v[16],
    redrive_ms: v[17],
    redrive_token: v[18],
    parent_task: v[19],
    event_count: v[20],
  } as ExecutionRow;
}

/**
 * The columns of {@link ExecutionHeader} but its event count, in the order {@link executionHeader} reads
 * them; the count, an expression the store picks, comes last.
 */
export const EXECUTION_HEADER_COLUMNS =
  'arn, seq, machine_arn, machine_name, name, version_arn, alias_arn, role_arn, definition_hash, status, start_ms, ' +
  'redrive_count, redrive_ms';

/** An execution header from its values in {@link EXECUTION_HEADER_COLUMNS}' order, then its event count. */
export function executionHeader(v: readonly unknown[]): ExecutionHeader {
  return {
    arn: v[0],
    seq: v[1],
    machine_arn: v[2],
    machine_name: v[3],
    name: v[4],
    version_arn: v[5],
    alias_arn: v[6],
    role_arn: v[7],
    definition_hash: v[8],
    status: v[9],
    start_ms: v[10],
    redrive_count: v[11],
    redrive_ms: v[12],
    event_count: v[13],
  } as ExecutionHeader;
}
