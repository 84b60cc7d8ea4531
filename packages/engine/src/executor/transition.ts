/** The vocabulary of one transition, shared by the kernel, the step and the state modules. */
import type { ExecutionHeader } from '../store';
import { StatesError } from '@autosave/workflow/errors';
import type { PreparedDefinition } from '../definition';
import type { ChildrenPhase, FrameRecord, TimerKind } from './frame';
import type { TaskOutcome, TaskTarget } from './task-integrations';

/** Where a redrive picks a failed frame up: re-entering its state, or re-examining its children. */
export type ClosedResume = ChildrenPhase | { readonly kind: 'enter' };
export const ENTER: ClosedResume = { kind: 'enter' };

/** What wakes a frame. */
export type FrameSignal =
  /**
   * Carry on from the durable position (after start, redrive, or a child's change). A child that ended
   * says its latest state event: AWS chains the parent's next iteration after it.
   */
  | { readonly kind: 'resume'; readonly childLastEventId?: number }
  /** After a restart: as `resume`, and a Task attempt whose result was never committed is invoked again. */
  | { readonly kind: 'recover' }
  /**
   * A Task attempt's work ended (`source: 'invoke'`) or its token was answered (`'token'`). `mocked`: the
   * outcome is a mocked response standing for the whole call, a `.waitForTaskToken`/`.sync` wait included.
   */
  | {
      readonly kind: 'task-outcome';
      readonly seq: number;
      readonly source: 'invoke' | 'token' | 'child';
      readonly outcome: TaskOutcome;
      readonly mocked?: boolean;
    }
  /** A worker took the activity task of attempt `seq` (GetActivityTask), named `workerName` if it gave one. */
  | { readonly kind: 'activity-started'; readonly seq: number; readonly token: string; readonly workerName?: string }
  /** A timer row came due. */
  | { readonly kind: 'timer'; readonly timer: TimerKind; readonly seq: number };

/** A Task attempt's outcome signal. */
export type TaskOutcomeSignal = Extract<FrameSignal, { kind: 'task-outcome' }>;

/**
 * Whether a signal changed the frame (`applied`), arrived too late to matter (`stale`), or was not acted
 * on at all (`not-applied`: the engine was stopping or the transition failed before its commit; the
 * frame is as it was, so the signal may be sent again).
 */
export type SignalResult = 'applied' | 'stale' | 'not-applied';

/** A Task attempt to launch once its scheduling is committed. */
export interface Launch {
  readonly frame: FrameRecord;
  readonly seq: number;
  readonly target: TaskTarget;
  readonly args: unknown;
  /** `args` as JSON text, as the attempt's scheduled event holds it. @default none (serialized when needed) */
  readonly argsJson?: string;
  /** Invoked again after a restart (its first invocation's outcome was never committed). */
  readonly replay?: boolean;
}

/** Work to do after a batch commits: nothing here runs before the transition is durable. */
export class Effects {
  readonly launches: Launch[] = [];
  /** Signals to send; `endedChild` is a child frame that ended, whose latest event id its parent's resume carries. */
  readonly signals: { frameId: string; signal: FrameSignal; endedChild?: FrameRecord }[] = [];
  closed = false;
  timersChanged = false;
}

/** One execution while a transition of it runs: its row, its prepared definition and its input. */
export interface Run {
  readonly exec: ExecutionHeader;
  readonly definition: PreparedDefinition;
  readonly input: unknown;
  /** The execution's input as its caller wrote it (AWS records this text, not a re-serialization, at the run's start). */
  readonly inputText: string;
}

/** A state failure: an ASL error name and its cause (a Fail state may give neither). */
export interface StateFailure {
  readonly error?: string;
  readonly cause?: string;
  /** A JSONata evaluation failed (`States.QueryEvaluationError`), in `location` when the field is known: AWS records an `EvaluationFailed` event. */
  readonly evaluation?: { readonly location?: string };
  /** The run's history and description leave the cause out: AWS records a timeout with its error only. */
  readonly causeUnrecorded?: boolean;
  /**
   * The name Retry and Catch match, where AWS matches the failure otherwise than by its recorded `error`:
   * a heartbeat timeout is recorded as States.Timeout and matched as States.HeartbeatTimeout (which
   * `States.Timeout` in an ErrorEquals covers too).
   */
  readonly matchedAs?: string;
  /** States.ALL takes it despite a terminal name (see {@link MatchOptions.catchableByAll}). */
  readonly catchableByAll?: boolean;
}

/** The prefix of every predefined ASL error name. */
const STATES_ERROR_PREFIX = 'States.';

/** Turns anything thrown while evaluating a state into an ASL error (unknown ones are `States.Runtime`). */
export function toFailure(err: unknown): StateFailure {
  const e = err as { name?: string; message?: string };
  const name = typeof e?.name === 'string' && e.name.startsWith(STATES_ERROR_PREFIX) ? e.name : StatesError.Runtime;
  return { error: name, cause: e?.message ?? String(err) };
}
