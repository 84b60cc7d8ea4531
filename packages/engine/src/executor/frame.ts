import type { FrameRow, FrameStatus } from '../store';
import type { MapResultWriterSpec } from '../dataflow';
import type { StateListPath } from '../definition';
import type { TaskOutcome } from './task-integrations';

/** The id of an execution's top-level frame. */
export const ROOT_FRAME_ID = 'r';

/**
 * Where a frame is within its current state. Every phase is durable: a crash in any phase resumes
 * from it (see `Executor.resumeRunning`).
 */
export type Phase =
  /** About to enter `state` with `input` (nothing of the state has happened yet). */
  | { readonly kind: 'enter' }
  /** A Task attempt is scheduled: its effect may be in flight, or (`submitted`) it waits for its token. */
  | {
      readonly kind: 'task';
      readonly args: unknown;
      readonly token?: string;
      readonly submitted?: boolean;
      /** The token's or child run's answer, come before the call that submitted the task was answered. */
      readonly early?: TaskOutcome;
      readonly timeoutSeconds?: number;
      readonly heartbeatSeconds?: number;
      /** An activity task a worker has taken (GetActivityTask): its heartbeat clock runs. */
      readonly started?: true;
    }
  /** Backing off before the next attempt of a Task, Parallel or Map (a timer row wakes it). */
  | { readonly kind: 'retry' }
  /** In a Wait state until a timer row wakes it. */
  | { readonly kind: 'wait' }
  /** A Parallel or Map waiting for its child frames. */
  | ChildrenPhase
  /** Finished (the frame's status says how). `resume` is the phase a redrive picks up from. */
  | { readonly kind: 'closed'; readonly resume?: ChildrenPhase | { readonly kind: 'enter' } };

/** A Parallel or Map waiting for the child frames of `group` (child ids are `<group>.<index>`). */
export interface ChildrenPhase {
  readonly kind: 'children';
  readonly type: 'Parallel' | 'Map';
  readonly group: string;
  readonly total: number;
  /** 0: no limit. */
  readonly maxConcurrency: number;
  readonly toleratedFailureCount?: number;
  readonly toleratedFailurePercentage?: number;
  /** A distributed Map's Map Run (`MapRunStarted`'s ARN): a ResultWriter names its files after it. */
  readonly mapRunArn?: string;
  /** A distributed Map's `ResultWriter`, evaluated when the Map started. */
  readonly resultWriter?: MapResultWriterSpec;
}

/** An execution frame's durable position: the top level, a Parallel branch or a Map iteration. */
export interface FramePosition {
  /** Where this frame's states live in the definition. */
  path: StateListPath;
  /** The current state. */
  state: string;
  /** The current state's raw input. */
  input: unknown;
  /** Variables visible here (outer ones copied in at the start of a branch/iteration). */
  variables: Record<string, unknown>;
  phase: Phase;
  /** Attempts used per retrier of the current state. */
  retries: number[];
  /** Retries of the current state so far (`$states.context.State.RetryCount`). */
  retryCount: number;
  /** When the current state was entered (epoch ms). */
  enteredMs: number;
  /** Increments with every attempt/spawn, so a late signal for an earlier one is recognised as stale. */
  seq: number;
  /** Child frames ever spawned, so each spawn gets fresh ids. */
  spawns: number;
  /** Id of the current state's `*StateEntered` event (a runtime error's cause names it, as AWS's does). */
  enteredEventId?: number;
  /** The `previousEventId` of that event (AWS threads an `EvaluationFailed` beside it). */
  enteredPreviousEventId?: number;
  /** Id of this frame's latest history event (the next event's `previousEventId`). */
  lastEventId?: number;
  /**
   * Id of this frame's latest event written outside its chain (a Map iteration's MapIterationSucceeded or
   * MapIterationFailed; see `EventOptions.advance`), when it came after `lastEventId`.
   */
  sideEventId?: number;
  /**
   * The frame's events stay out of the run's history: an iteration of a distributed Map (and everything
   * under it), which AWS runs and records as a child execution of its own.
   */
  quiet?: true;
  /** An iteration's input as it started (kept only under a Map with a ResultWriter, whose files record it). */
  iterationInput?: unknown;
  /** The Map item of an iteration frame (`$states.context.Map.Item`). */
  mapItem?: { readonly index: number; readonly value: unknown };
  /** The final output (SUCCEEDED) or failure (FAILED). */
  output?: unknown;
  error?: string;
  cause?: string;
}

/** A timer a frame wants armed after its next commit. */
export interface TimerSpec {
  readonly kind: TimerKind;
  readonly dueMs: number;
}

/** What a timer wakes a frame for. */
export type TimerKind = 'wait' | 'retry' | 'task-timeout' | 'heartbeat';

/** A frame loaded for one transition, written back by the batch that changed it. */
export class FrameRecord {
  /** Timers replacing this frame's timer rows at the next write (undefined: leave them). */
  timers?: TimerSpec[];
  /**
   * The JSON text of `of`, the input this transition moved the frame on with (the state's output it
   * serialized already): the next state's Entered event reads it instead of serializing the input again.
   * Never written; it holds only while `pos.input` is still `of`.
   */
  inputJson?: { readonly of: unknown; readonly text: string };
  /** The position text the frame's last successful write wrote (see `BatchFrame.writtenPosition`). */
  writtenPosition?: string;
  /** Whether the frame had no timer rows at `baseRev` (see `BatchFrame.noTimerRowsAtBase`): known for a kept row only. */
  noTimerRowsAtBase?: boolean;
  /** Whether the frame's last successful write left it without timer rows (see `BatchFrame.leftNoTimerRows`). */
  leftNoTimerRows?: boolean;

  constructor(
    readonly executionArn: string,
    readonly id: string,
    readonly parentId: string | null,
    readonly itemIndex: number,
    public status: FrameStatus,
    public pos: FramePosition,
    /** The row's `rev` this record was read at; null for a frame not yet written. */
    readonly baseRev: number | null,
    /** The parent's record when it is written in the same batch (for the first event's previousEventId). */
    readonly parent?: FrameRecord,
  ) {}

  static fromRow(row: FrameRow): FrameRecord {
    return new FrameRecord(
      row.execution_arn,
      row.frame_id,
      row.parent_id,
      row.item_index,
      row.status,
      JSON.parse(row.position),
      row.rev,
    );
  }
}
