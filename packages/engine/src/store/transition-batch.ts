import { HISTORY_EVENT_LIMIT } from '@autosave/workflow/config';
import { StatesError } from '@autosave/workflow/errors';
import type { EngineStore, ExecutionStatus, FrameStatus, TransitionBase } from './engine-store';
import type { EventToPack } from './history-codec';
import { dequeueActivityTask, queueActivityTask } from './activity-store';

/**
 * A frame as a batch writes it (the executor's `FrameRecord`): its row columns, its position (stored as
 * JSON; the batch threads `lastEventId`), the row revision it was read at, and the timers that replace its
 * timer rows.
 */
export interface BatchFrame {
  readonly executionArn: string;
  readonly id: string;
  readonly parentId: string | null;
  readonly itemIndex: number;
  readonly status: FrameStatus;
  readonly pos: {
    lastEventId?: number;
    enteredEventId?: number;
    enteredPreviousEventId?: number;
    sideEventId?: number;
    readonly seq: number;
    readonly quiet?: true;
  };
  /** The row's `rev` the frame was read at; null for a frame not yet written. */
  readonly baseRev: number | null;
  /** Timers replacing the frame's timer rows (undefined: leave them). */
  readonly timers?: readonly { readonly kind: string; readonly dueMs: number }[];
  /**
   * Whether the frame is known to have no timer rows at `baseRev` (the write that left the row at that
   * revision left none): then replacing its timers deletes nothing first. Timer rows of a frame are only
   * inserted by a write of that frame, which moves its revision on.
   */
  readonly noTimerRowsAtBase?: boolean;
  /** The parent when it is written in the same batch (a new child's first event follows the parent's). */
  readonly parent?: BatchFrame;
  /**
   * Set by a write: the position text it wrote for the frame (the row's `rev` is then `baseRev + 1`, or 0
   * for a frame it inserted), so the frame's writer can take its next transition from it instead of a read.
   */
  writtenPosition?: string;
  /** Set by a write: whether it left the frame without timer rows (see {@link noTimerRowsAtBase}). */
  leftNoTimerRows?: boolean;
}

/** Appends a position and its event-id fields to `ids` (see `TransitionBatch.idsBefore`), unless it is the one appended last. */
function keepEventIds(ids: unknown[], pos: BatchFrame['pos']): void {
  // A transition's events are mostly its one frame's, in a row: that frame is kept once.
  if (ids.length > 0 && ids[ids.length - 5] === pos) return;
  ids.push(pos, pos.lastEventId, pos.sideEventId, pos.enteredEventId, pos.enteredPreviousEventId);
}

/** Thrown inside a write when the frame or execution moved on meanwhile: the batch is dropped. */
export class StaleTransitionError extends Error {
  override readonly name = 'StaleTransitionError';
}

/**
 * Thrown inside a write when the batch relied on the ids its events would get (see
 * {@link TransitionBatch.reliesOnEventIds}) and another batch of the run was written first: the batch is
 * rolled back, and its transition is to be computed again.
 */
export class EventIdsMovedError extends Error {
  override readonly name = 'EventIdsMovedError';
}

interface PendingEvent {
  readonly frame: BatchFrame | null;
  readonly type: string;
  readonly details: Record<string, unknown> | undefined;
  readonly tsMs: number;
  readonly advance: boolean;
  readonly besideEntered: boolean;
  readonly afterSide: boolean;
  readonly unchained: boolean;
}

/** How an event threads into its frame's chain of `previousEventId`s. */
export interface EventOptions {
  /**
   * Whether the event becomes its frame's latest (the next event's `previousEventId`). AWS leaves some
   * events out of the chain — a Map iteration's MapIterationSucceeded/Failed, a Map/Parallel's
   * `…StateSucceeded` — and chains what follows them after the event before. Such an event's id is kept
   * in the frame's `sideEventId` instead.
   * @default true
   */
  readonly advance?: boolean;
  /**
   * Whether the event follows the event its frame's current state was entered after, not the frame's
   * latest (AWS's `EvaluationFailed`).
   * @default false
   */
  readonly besideEntered?: boolean;
  /**
   * Whether the event follows its frame's latest side event (`sideEventId`) rather than its latest: AWS's
   * MapStateSucceeded follows a distributed Map's MapRunSucceeded, which the Map's exit skips.
   * @default false
   */
  readonly afterSide?: boolean;
  /**
   * Whether the event follows no event (`previousEventId` 0): AWS records ExecutionAborted so.
   * @default false
   */
  readonly unchained?: boolean;
}

/** What {@link TransitionBatch.write} did: the whole batch, or the failure of a run at its history limit instead. */
export type WriteOutcome = 'written' | 'history-limit';

/** The failure of a run whose history reached the limit, as AWS records it (error and cause). */
export const HISTORY_LIMIT_FAILURE = {
  error: StatesError.Runtime,
  cause: `The execution reached the maximum number of history events (${HISTORY_EVENT_LIMIT}).`,
} as const;

/** The closing of an execution written by a batch. */
export interface ExecutionClose {
  readonly status: Exclude<ExecutionStatus, 'RUNNING' | 'PENDING_REDRIVE'>;
  readonly output?: string;
  readonly error?: string;
  readonly cause?: string;
}

/**
 * Everything one transition of one execution writes: history events (ids assigned at write time, in
 * order, so concurrent frames never leave gaps), frame positions (guarded by their `rev`), timers, task
 * tokens and the execution's own row. Applied atomically inside a group commit.
 */
export class TransitionBatch {
  private readonly events: PendingEvent[] = [];
  private readonly frames = new Map<string, BatchFrame>();
  private readonly tokensOpened: { token: string; frameId: string; seq: number }[] = [];
  private readonly tokensClosed: string[] = [];
  /** Activity tasks to queue for workers, and tasks a worker took (their rows leave the queue). */
  private readonly activityTasksQueued: { token: string; activityArn: string; frameId: string; input: string }[] = [];
  private readonly activityTasksTaken: string[] = [];
  private close?: ExecutionClose;
  /** Skip the "execution still RUNNING" check (StartExecution and RedriveExecution write a RUNNING row themselves). */
  allowNotRunning = false;
  /** The batch that fails a run at its history limit: its last event is the 25,000th by construction. */
  private endsAtLimit = false;
  /** Child groups whose running frames, timers and tokens are aborted (a failed Parallel/Map). */
  private readonly abortedGroups: string[] = [];
  /** Execution-level timers to insert (a definition's `TimeoutSeconds`). */
  private readonly executionTimers: { frameId: string; kind: string; dueMs: number }[] = [];

  /** Whether what the batch holds was computed from the ids its events get (see {@link reliesOnEventIds}). */
  private idsRelied = false;
  /**
   * The event-id fields of the positions a write threads ids into, as they were before the batch's first
   * write (position, lastEventId, sideEventId, enteredEventId, enteredPreviousEventId, …): a write run again
   * after its transaction was rolled back starts from them (see `CommitOptions.rerunnable`).
   */
  private idsBefore?: unknown[];

  constructor(
    readonly executionArn: string,
    private readonly nowMs: () => number,
    /** The run's event count when the transition was computed: the basis of the ids {@link event} predicts. @default 0 */
    private readonly baseEventCount = 0,
  ) {}

  /**
   * Appends an event of `frame` (null: an execution-level event threaded after the latest event). Ids
   * are assigned at write time; this returns the id the event gets when no other batch of the run is
   * written first. Events of a quiet frame are dropped. A `*StateEntered` event's written id is kept in its frame's `pos.enteredEventId`.
   */
  event(frame: BatchFrame | null, type: string, details?: Record<string, unknown>, options: EventOptions = {}): number {
    // A quiet frame's events are not part of this run's history (see the frame's `pos.quiet`).
    if (frame?.pos.quiet) return this.baseEventCount + this.events.length;
    this.events.push({
      frame,
      type,
      details,
      tsMs: this.nowMs(),
      advance: options.advance ?? true,
      besideEntered: options.besideEntered ?? false,
      afterSide: options.afterSide ?? false,
      unchained: options.unchained ?? false,
    });
    return this.baseEventCount + this.events.length;
  }

  /**
   * The batch's contents name an id {@link event} predicted (a runtime error's cause names the event its
   * state was entered at): its write throws {@link EventIdsMovedError} if another batch of the run was
   * written since the transition was computed, instead of writing a wrong id.
   */
  reliesOnEventIds(): void {
    this.idsRelied = true;
  }

  /** Writes the batch even if the ids it relied on moved (the caller gave up computing it again). */
  acceptMovedEventIds(): void {
    this.idsRelied = false;
  }

  /** Marks a frame to be written (inserted when new). */
  touch(frame: BatchFrame): void {
    this.frames.set(frame.id, frame);
  }

  openToken(token: string, frame: BatchFrame, seq: number): void {
    this.tokensOpened.push({ token, frameId: frame.id, seq });
  }

  closeToken(token: string): void {
    this.tokensClosed.push(token);
  }

  /** Queues an activity task (its token opened by this batch too) for GetActivityTask. */
  queueActivityTask(token: string, activityArn: string, frame: BatchFrame, input: string): void {
    this.activityTasksQueued.push({ token, activityArn, frameId: frame.id, input });
  }

  /** Takes a queued activity task off the queue: a worker has it. */
  takeActivityTask(token: string): void {
    this.activityTasksTaken.push(token);
  }

  closeExecution(close: ExecutionClose): void {
    this.close = close;
  }

  get closing(): ExecutionClose | undefined {
    return this.close;
  }

  /**
   * Aborts every running frame under a child group (`<group>.…`), with their timers and tokens. Pending
   * frames stay PENDING: they never started, and a redrive starts them in turn. Unguarded by `rev`: the
   * aborted frames may be mid-transition, and their own batch then finds itself stale.
   */
  abortGroup(group: string): void {
    this.abortedGroups.push(group);
  }

  /** Arms an execution-level timer (`frameId` is a pseudo frame id, e.g. the execution timeout's). */
  armExecutionTimer(frameId: string, kind: string, dueMs: number): void {
    this.executionTimers.push({ frameId, kind, dueMs });
  }

  get eventCount(): number {
    return this.events.length;
  }

  /** Keeps the event-id fields of every position the write changes, or puts them back as they were kept. */
  private restoreEventIds(): void {
    const kept = this.idsBefore;
    if (kept) {
      for (let i = 0; i < kept.length; i += 5) {
        const pos = kept[i] as BatchFrame['pos'];
        pos.lastEventId = kept[i + 1] as number | undefined;
        pos.sideEventId = kept[i + 2] as number | undefined;
        pos.enteredEventId = kept[i + 3] as number | undefined;
        pos.enteredPreviousEventId = kept[i + 4] as number | undefined;
      }
      return;
    }
    const ids: unknown[] = [];
    for (const e of this.events) if (e.frame) keepEventIds(ids, e.frame.pos);
    for (const f of this.frames.values()) keepEventIds(ids, f.pos);
    this.idsBefore = ids;
  }

  /**
   * Applies the batch; throws {@link StaleTransitionError} (rolling it back) when it lost a race. The
   * history limit is checked here, against the count inside the transaction, so that frames committed in
   * one group (a Map's iterations) cannot pass it between them. As on AWS, at 24,999 events the next one
   * decides: an `ExecutionSucceeded` may be the 25,000th; otherwise the events that fit are written and
   * event 25,000 is `ExecutionFailed` ({@link HISTORY_LIMIT_FAILURE}), and nothing else of the batch is.
   * `justInserted`: the execution's row as the same write just inserted it (a start), instead of reading it back.
   */
  write(store: EngineStore, justInserted?: TransitionBase): WriteOutcome {
    this.restoreEventIds();
    const exec = justInserted ?? store.transitionBase(this.executionArn);
    if (!exec || (!this.allowNotRunning && exec.status !== 'RUNNING'))
      throw new StaleTransitionError(this.executionArn);
    if (this.idsRelied && exec.event_count !== this.baseEventCount) throw new EventIdsMovedError(this.executionArn);
    const room = store.historyEventLimit - exec.event_count;
    const fits =
      this.events.length < room || (this.events.length === room && this.events[room - 1].type === 'ExecutionSucceeded');
    if (!fits && !this.endsAtLimit) {
      const failed = new TransitionBatch(this.executionArn, this.nowMs);
      for (const e of this.events.slice(0, Math.max(0, room - 1))) failed.events.push(e);
      failed.event(null, 'ExecutionFailed', { ...HISTORY_LIMIT_FAILURE });
      failed.closeExecution({ status: 'FAILED', ...HISTORY_LIMIT_FAILURE });
      failed.allowNotRunning = this.allowNotRunning;
      failed.endsAtLimit = true;
      failed.write(store, justInserted);
      return 'history-limit';
    }
    let nextId = exec.event_count + 1;
    let lastId = exec.event_count;
    const written: EventToPack[] = [];
    for (const e of this.events) {
      const id = nextId++;
      let previous = e.frame ? (e.frame.pos.lastEventId ?? e.frame.parent?.pos.lastEventId ?? lastId) : lastId;
      if (e.besideEntered && e.frame?.pos.enteredPreviousEventId !== undefined)
        previous = e.frame.pos.enteredPreviousEventId;
      if (e.afterSide && e.frame?.pos.sideEventId !== undefined) previous = e.frame.pos.sideEventId;
      if (e.unchained) previous = 0;
      written.push({ id, type: e.type, ts_ms: e.tsMs, previous_id: previous, details: e.details });
      if (e.frame) {
        if (e.advance) e.frame.pos.lastEventId = id;
        else e.frame.pos.sideEventId = id;
        if (e.type.endsWith('StateEntered')) {
          e.frame.pos.enteredEventId = id;
          e.frame.pos.enteredPreviousEventId = previous;
        }
      }
      lastId = id;
    }
    // The transition's events: one row (see history-codec).
    store.insertHistorySegment(exec.seq, written);
    const update = store.sql(
      'UPDATE frames SET status = ?, position = ?, rev = rev + 1 WHERE execution_arn = ? AND frame_id = ? AND rev = ?',
    );
    const insert = store.sql(
      'INSERT INTO frames (execution_arn, frame_id, parent_id, item_index, status, rev, position) VALUES (?, ?, ?, ?, ?, 0, ?)',
    );
    const deleteTimers = store.sql('DELETE FROM timers WHERE execution_arn = ? AND frame_id = ?');
    const insertTimer = store.sql(
      'INSERT OR REPLACE INTO timers (execution_arn, frame_id, kind, seq, due_ms) VALUES (?, ?, ?, ?, ?)',
    );
    for (const f of this.frames.values()) {
      if (f.pos.lastEventId === undefined && f.parent?.pos.lastEventId !== undefined)
        f.pos.lastEventId = f.parent.pos.lastEventId;
      const position = JSON.stringify(f.pos);
      f.writtenPosition = position;
      if (f.baseRev === null) {
        insert.run(this.executionArn, f.id, f.parentId, f.itemIndex, f.status, position);
      } else if (update.run(f.status, position, this.executionArn, f.id, f.baseRev).changes !== 1) {
        throw new StaleTransitionError(`${this.executionArn}#${f.id}`);
      }
      // A closing batch deletes every timer of the run below: nothing to replace one by one.
      if (f.timers && !this.close) {
        if (!f.noTimerRowsAtBase) deleteTimers.run(this.executionArn, f.id);
        for (const t of f.timers) insertTimer.run(this.executionArn, f.id, t.kind, f.pos.seq, t.dueMs);
      }
      f.leftNoTimerRows = f.timers ? f.timers.length === 0 : f.noTimerRowsAtBase === true;
    }
    const openToken = store.sql(
      'INSERT INTO task_tokens (token, execution_arn, frame_id, seq, open) VALUES (?, ?, ?, ?, 1)',
    );
    for (const t of this.tokensOpened) openToken.run(t.token, this.executionArn, t.frameId, t.seq);
    const closeToken = store.sql('UPDATE task_tokens SET open = 0 WHERE token = ?');
    for (const t of this.tokensClosed) closeToken.run(t);
    for (const t of this.activityTasksQueued)
      queueActivityTask(store, {
        token: t.token,
        activity_arn: t.activityArn,
        execution_arn: this.executionArn,
        frame_id: t.frameId,
        input: t.input,
      });
    for (const token of this.activityTasksTaken) dequeueActivityTask(store, token);
    for (const group of this.abortedGroups) {
      const like = `${group}.%`;
      store
        .sql(
          "UPDATE frames SET status = 'ABORTED', rev = rev + 1 WHERE execution_arn = ? AND frame_id LIKE ? AND status = 'RUNNING'",
        )
        .run(this.executionArn, like);
      store.sql('DELETE FROM timers WHERE execution_arn = ? AND frame_id LIKE ?').run(this.executionArn, like);
      store
        .sql('UPDATE task_tokens SET open = 0 WHERE execution_arn = ? AND frame_id LIKE ? AND open = 1')
        .run(this.executionArn, like);
    }
    if (!this.close)
      for (const t of this.executionTimers) insertTimer.run(this.executionArn, t.frameId, t.kind, 0, t.dueMs);
    if (this.close) {
      store
        .sql(
          'UPDATE executions SET status = ?, stop_ms = ?, output = ?, error = ?, cause = ?, event_count = ? WHERE arn = ?',
        )
        .run(
          this.close.status,
          this.nowMs(),
          this.close.output ?? null,
          this.close.error ?? null,
          this.close.cause ?? null,
          lastId,
          this.executionArn,
        );
      // Nothing of a closed run may fire or answer any more.
      store.sql('DELETE FROM timers WHERE execution_arn = ?').run(this.executionArn);
      store.sql('UPDATE task_tokens SET open = 0 WHERE execution_arn = ? AND open = 1').run(this.executionArn);
      // A SUCCEEDED run's frames are deleted below instead.
      if (this.close.status !== 'SUCCEEDED')
        store
          .sql("UPDATE frames SET status = 'ABORTED', rev = rev + 1 WHERE execution_arn = ? AND status = 'RUNNING'")
          .run(this.executionArn);
      // The run stays `open` (its row's flag, untouched here) until its close hooks have run.
      // What a closed run keeps: its row, its history segments, and (unless it succeeded, so a redrive
      // may pick up from them) its frames. Events an older version left in rows are packed now.
      store.packHistory(this.executionArn);
      if (this.close.status === 'SUCCEEDED') store.deleteFrames(this.executionArn);
    }
    store.transitionWritten(
      this.executionArn,
      this.close ? undefined : { seq: exec.seq, status: exec.status, event_count: lastId },
    );
    return 'written';
  }
}
