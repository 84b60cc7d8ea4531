import type { FrameRow } from '../../store';
import type { FrameRecord } from './frame';

/** How many frames' rows are kept (the frames in flight; a miss only reads the row). */
export const FRAME_ROWS_KEPT = 256;
/** Longer positions (a large input or variables) are read again rather than kept in memory. */
export const FRAME_ROW_MAX_CHARS = 16 * 1024;

/**
 * The rows of running frames as the executor's last transition of each wrote them, so that the frame's
 * next transition need not read its row back. Taken, not shared: a transition takes its frame's row out
 * (it will change the frame), and only its successful commit puts the new row back.
 *
 * A row kept here may be out of date (a parent aborted the frame's group, the run closed or was redriven):
 * the write of a transition taken from it is guarded by the row's revision, so it cannot land on a frame
 * that moved; the executor then computes the transition again from a fresh read.
 */
export class FrameRows {
  private readonly rows = new Map<string, KeptFrameRow>();

  /** The kept row of a frame, taken out. */
  take(executionArn: string, frameId: string): KeptFrameRow | undefined {
    const key = keyOf(executionArn, frameId);
    const row = this.rows.get(key);
    if (row) this.rows.delete(key);
    return row;
  }

  /** Keeps the row a committed transition wrote for `frame` (a RUNNING frame whose position is not too long). */
  written(frame: FrameRecord): void {
    const position = frame.writtenPosition;
    if (position === undefined || frame.status !== 'RUNNING' || position.length > FRAME_ROW_MAX_CHARS) return;
    const row: KeptFrameRow = {
      noTimerRows: frame.leftNoTimerRows === true,
      execution_arn: frame.executionArn,
      frame_id: frame.id,
      parent_id: frame.parentId,
      item_index: frame.itemIndex,
      status: frame.status,
      rev: frame.baseRev === null ? 0 : frame.baseRev + 1,
      position,
    };
    this.rows.set(keyOf(frame.executionArn, frame.id), row);
    if (this.rows.size > FRAME_ROWS_KEPT) this.rows.delete(this.rows.keys().next().value as string);
  }

  /** Forgets every kept row (a redrive resumes frames it rewrote). */
  clear(): void {
    this.rows.clear();
  }

  /**
   * Forgets the kept rows of a run: a new run of the same ARN (an older one swept) makes frames of the same
   * ids, whose revisions start again at 0 — a row kept from the older run must not pass for theirs.
   */
  forgetRun(executionArn: string): void {
    const prefix = keyOf(executionArn, '');
    for (const key of this.rows.keys()) if (key.startsWith(prefix)) this.rows.delete(key);
  }
}

/** A kept row, and whether the write that left it left the frame without timer rows (FrameRecord.noTimerRowsAtBase). */
export interface KeptFrameRow extends FrameRow {
  readonly noTimerRows: boolean;
}

const keyOf = (executionArn: string, frameId: string): string => `${executionArn}\u0000${frameId}`;
