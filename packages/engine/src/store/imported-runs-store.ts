/**
 * The rows of runs pulled from another Step Functions endpoint (AWS, or a second engine): where each came
 * from, and how many of its history's events are the source's own. An import writes them, with the run's
 * row, its frames and its history, in one commit (engine/imports).
 */
import type { EngineStore, ExecutionRow, FrameRow } from './engine-store';

/** Where a pulled run came from. */
export interface ImportedRunRow {
  readonly execution_arn: string;
  /** The execution ARN at the source. */
  readonly source_arn: string;
  readonly account: string;
  readonly region: string;
  /** The endpoint it was read from, when not AWS's own. */
  readonly source_endpoint: string | null;
  readonly imported_ms: number;
  /** The id of the last event read from the source: events up to it are the source's own. */
  readonly last_imported_id: number;
}

/**
 * Writes an imported run: its row (numbered after every other run, `row.seq` set) and not open (its close
 * hooks ran at the source, if anywhere), its frames, its origin, and the history staged under `importId`.
 */
export function insertImportedRun(
  store: EngineStore,
  importId: string,
  row: ExecutionRow,
  frames: readonly FrameRow[],
  origin: ImportedRunRow,
): void {
  store.insertExecution(row);
  store.sql('UPDATE executions SET open = 0 WHERE arn = ?').run(row.arn);
  const insertFrame = store.sql(
    'INSERT INTO frames (execution_arn, frame_id, parent_id, item_index, status, rev, position) VALUES (?, ?, ?, ?, ?, 0, ?)',
  );
  for (const f of frames) insertFrame.run(f.execution_arn, f.frame_id, f.parent_id, f.item_index, f.status, f.position);
  store
    .sql(
      'INSERT INTO imported_runs (execution_arn, source_arn, account, region, source_endpoint, imported_ms, last_imported_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
    )
    .run(
      origin.execution_arn,
      origin.source_arn,
      origin.account,
      origin.region,
      origin.source_endpoint,
      origin.imported_ms,
      origin.last_imported_id,
    );
  store.adoptStagedHistory(importId, row.seq);
}

/** Where a run was pulled from, or undefined: it started here. */
export function importedRunOf(store: EngineStore, executionArn: string): ImportedRunRow | undefined {
  return store.sql('SELECT * FROM imported_runs WHERE execution_arn = ?').get(executionArn) as
    ImportedRunRow | undefined;
}
