import type { FrameRow } from '../store';
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
  /** Kept rows by run, then by frame; runs in the order their rows were last written (the oldest go first). */
  private readonly runs = new Map<string, Map<string, KeptFrameRow>>();
  /** Rows kept, over every run. */
  private count = 0;

  /** The kept row of a frame, taken out. */
  take(executionArn: string, frameId: string): KeptFrameRow | undefined {
    const frames = this.runs.get(executionArn);
    const row = frames?.get(frameId);
    if (row) {
      frames!.delete(frameId);
      this.count -= 1;
      if (frames!.size === 0) this.runs.delete(executionArn);
    }
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
    let frames = this.runs.get(frame.executionArn);
    if (frames) this.runs.delete(frame.executionArn);
    else frames = new Map();
    // The run's rows were written last: it goes to the end of the line.
    this.runs.set(frame.executionArn, frames);
    if (!frames.has(frame.id)) this.count += 1;
    frames.set(frame.id, row);
    // Past the bound, the rows of the runs written longest ago go, whole runs at a time.
    while (this.count > FRAME_ROWS_KEPT) this.forgetRun(this.runs.keys().next().value as string);
  }

  /** Forgets every kept row (a redrive resumes frames it rewrote). */
  clear(): void {
    this.runs.clear();
    this.count = 0;
  }

  /**
   * Forgets the kept rows of a run: a new run of the same ARN (an older one swept) makes frames of the same
   * ids, whose revisions start again at 0 — a row kept from the older run must not pass for theirs.
   */
  forgetRun(executionArn: string): void {
    const frames = this.runs.get(executionArn);
    if (!frames) return;
    this.count -= frames.size;
    this.runs.delete(executionArn);
  }
}

/** A kept row, and whether the write that left it left the frame without timer rows (FrameRecord.noTimerRowsAtBase). */
export interface KeptFrameRow extends FrameRow {
  readonly noTimerRows: boolean;
}
