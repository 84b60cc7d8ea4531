import { describe, expect, it } from 'vitest';
import { FRAME_ROW_MAX_CHARS, FRAME_ROWS_KEPT, FrameRows } from '../../src/executor/frame-rows';
import { FrameRecord, type FramePosition } from '../../src/executor/frame';

const written = (
  arn: string,
  id: string,
  baseRev: number | null,
  status: 'RUNNING' | 'SUCCEEDED' = 'RUNNING',
  position = '{"state":"S"}',
): FrameRecord => {
  const frame = new FrameRecord(arn, id, null, 0, status, {} as FramePosition, baseRev);
  frame.writtenPosition = position;
  return frame;
};

describe('FrameRows: the rows of running frames as the executor last wrote them', () => {
  it('hands a written row out once, at the revision the write left (0 for an insert, one past the one read)', () => {
    const rows = new FrameRows();
    rows.written(written('a', 'r', null));
    rows.written(written('b', 'r', 4));
    expect(rows.take('a', 'r')).toMatchObject({ rev: 0, status: 'RUNNING', position: '{"state":"S"}' });
    expect(rows.take('a', 'r')).toBeUndefined();
    expect(rows.take('b', 'r')?.rev).toBe(5);
  });

  it('keeps no closed frame, no position longer than FRAME_ROW_MAX_CHARS, and at most FRAME_ROWS_KEPT rows', () => {
    const rows = new FrameRows();
    rows.written(written('a', 'r', 0, 'SUCCEEDED'));
    rows.written(written('b', 'r', 0, 'RUNNING', 'x'.repeat(FRAME_ROW_MAX_CHARS + 1)));
    expect(rows.take('a', 'r')).toBeUndefined();
    expect(rows.take('b', 'r')).toBeUndefined();
    for (let i = 0; i <= FRAME_ROWS_KEPT; i += 1) rows.written(written(`run-${i}`, 'r', 0));
    expect(rows.take('run-0', 'r')).toBeUndefined();
    expect(rows.take(`run-${FRAME_ROWS_KEPT}`, 'r')).toBeDefined();
  });

  it("forgets a run's rows, and only that run's, when a run of its ARN starts anew", () => {
    const rows = new FrameRows();
    rows.written(written('arn:x', 'r.0.1', 1));
    rows.written(written('arn:x2', 'r.0.1', 1));
    rows.forgetRun('arn:x');
    expect(rows.take('arn:x', 'r.0.1')).toBeUndefined();
    expect(rows.take('arn:x2', 'r.0.1')).toBeDefined();
  });

  it('counts the rows it keeps over every run: a run forgotten or taken out frees its room, a row written again takes none', () => {
    const rows = new FrameRows();
    for (let i = 0; i < FRAME_ROWS_KEPT; i += 1) rows.written(written('a', `r.0.${i}`, 0));
    rows.written(written('a', 'r.0.0', 1));
    rows.forgetRun('a');
    rows.written(written('b', 'r', 0));
    expect(rows.take('b', 'r')).toBeDefined();
    for (let i = 0; i < FRAME_ROWS_KEPT; i += 1) rows.written(written(`run-${i}`, 'r', 0));
    expect(rows.take('run-0', 'r')).toBeDefined();
    expect(rows.take(`run-${FRAME_ROWS_KEPT - 1}`, 'r')).toBeDefined();
  });
});
