/**
 * Rebuilds, from a closed run's history read from another endpoint, the frames the engine itself would have
 * left when the run closed there: where the run stopped (the state it was in, that state's input, the
 * variables assigned until then) so that RedriveExecution resumes it as the service does. It reads the
 * events one at a time, in id order, and holds only the run's position, never the history.
 */
import type { ExecutionStatus, FrameRow } from '../../store';
import { type FramePosition, ROOT_FRAME_ID } from '../executor/frame';
import { ImportRefusedError } from './import-errors';

/** One event as the import stores it: the wire event's id, type, time and details member. */
export interface ImportedEvent {
  readonly id: number;
  readonly type: string;
  readonly ts_ms: number;
  readonly previous_id: number;
  readonly details: Record<string, unknown> | undefined;
}

/** How the run stands after its last event. */
export interface ReplayedOutcome {
  readonly status: ExecutionStatus;
  readonly error?: string;
  readonly cause?: string;
  readonly stopMs?: number;
  /** The state the run stopped in (a redrive enters it again), when it had entered one. */
  readonly state?: string;
}

/** The events that open a Parallel or Map's children, and those that close them. */
const CHILDREN_OPEN = new Set(['MapStateStarted', 'ParallelStateStarted']);
const CHILDREN_CLOSE = new Set(['MapStateSucceeded', 'MapStateFailed', 'MapStateAborted', 'ParallelStateSucceeded', 'ParallelStateFailed', 'ParallelStateAborted']);
/** The events that close a run, with the status they leave it in. */
const RUN_CLOSE: Readonly<Record<string, ExecutionStatus>> = {
  ExecutionSucceeded: 'SUCCEEDED',
  ExecutionFailed: 'FAILED',
  ExecutionTimedOut: 'TIMED_OUT',
  ExecutionAborted: 'ABORTED',
};
/** A Task attempt begins (its frame's attempt counter moves on, as the engine's `seq` does). */
const ATTEMPTS = new Set(['TaskScheduled', 'ActivityScheduled', 'LambdaFunctionScheduled']);

const parseText = (text: unknown, what: string): unknown => {
  if (typeof text !== 'string') throw new ImportRefusedError(`the history holds no ${what}: pull needs the execution data (read it with includeExecutionData, which the IAM policy in docs/pull.md allows)`);
  return JSON.parse(text);
};

/** The run's top-level position, built event by event; see the module comment. */
export class HistoryReplay {
  private input: unknown;
  private pos?: FramePosition;
  private attempts = 0;
  /** How deep in Parallel/Map children the current event is (0: the run's own states). */
  private depth = 0;
  private lastId = 0;
  private outcome: ReplayedOutcome = { status: 'RUNNING' };
  private readonly variables: Record<string, unknown> = {};
  /** Events read so far. */
  count = 0;

  /** Reads the next event (ids must follow one another from 1, as GetExecutionHistory gives them). */
  add(e: ImportedEvent): void {
    if (e.id !== this.lastId + 1) throw new ImportRefusedError(`the history skips from event ${this.lastId} to ${e.id}: every page must be read, in order`);
    this.lastId = e.id;
    this.count += 1;
    const d = e.details ?? {};
    if (e.type === 'ExecutionStarted') this.input = parseText(d.input, 'execution input');
    else if (e.type === 'ExecutionRedriven') this.outcome = { status: 'RUNNING' };
    else if (RUN_CLOSE[e.type]) {
      this.outcome = {
        status: RUN_CLOSE[e.type],
        ...(typeof d.error === 'string' ? { error: d.error } : {}),
        ...(typeof d.cause === 'string' ? { cause: d.cause } : {}),
        stopMs: e.ts_ms,
        ...(this.pos ? { state: this.pos.state } : {}),
      };
    } else if (CHILDREN_OPEN.has(e.type) && this.depth++ === 0) this.attempts += 1;
    else if (CHILDREN_CLOSE.has(e.type)) this.depth = Math.max(0, this.depth - 1);
    else if (this.depth === 0) this.ownEvent(e, d);
  }

  /** An event of the run's own states (not of a branch or an iteration). */
  private ownEvent(e: ImportedEvent, d: Record<string, unknown>): void {
    if (e.type.endsWith('StateEntered')) {
      this.pos = {
        path: [],
        state: String(d.name),
        input: parseText(d.input, `input of state '${String(d.name)}'`),
        variables: {},
        phase: { kind: 'enter' },
        retries: [],
        retryCount: 0,
        enteredMs: e.ts_ms,
        seq: 0,
        spawns: 0,
        enteredEventId: e.id,
        enteredPreviousEventId: e.previous_id,
      };
    } else if (e.type.endsWith('StateExited')) {
      const assigned = d.assignedVariables as Record<string, string> | undefined;
      if (assigned) for (const [name, text] of Object.entries(assigned)) this.variables[name] = JSON.parse(text);
    } else if (ATTEMPTS.has(e.type)) this.attempts += 1;
  }

  /** How the run stands now. */
  get result(): ReplayedOutcome {
    return this.outcome;
  }

  /** The execution input ExecutionStarted recorded. */
  get executionInput(): unknown {
    return this.input;
  }

  /**
   * The frames a redrive resumes: the run's top-level frame, closed in the state it stopped in, to be
   * entered again. Throws {@link ImportRefusedError} for a run that cannot be resumed (still running, or
   * closed before its first state).
   */
  frames(executionArn: string): FrameRow[] {
    const { status, error, cause } = this.outcome;
    if (status === 'RUNNING') throw new ImportRefusedError('the history does not end the run (it is still RUNNING at the source)');
    if (status === 'SUCCEEDED' || !this.pos) return [];
    const position: FramePosition = {
      ...this.pos,
      variables: { ...this.variables },
      phase: { kind: 'closed', resume: { kind: 'enter' } },
      seq: this.attempts,
      lastEventId: this.lastId,
      ...(error !== undefined ? { error } : {}),
      ...(cause !== undefined ? { cause } : {}),
    };
    return [{ execution_arn: executionArn, frame_id: ROOT_FRAME_ID, parent_id: null, item_index: 0, status: status === 'FAILED' ? 'FAILED' : 'ABORTED', rev: 0, position: JSON.stringify(position) }];
  }
}
