/**
 * Rebuilds, from a closed run's history read from another endpoint, the frames the engine itself would have
 * left when the run closed there: the run's top-level frame, and under a Parallel or inline Map it stopped
 * in, one frame per branch or iteration, each at the state it stopped in (that state's input, the variables
 * assigned until then), those that succeeded with their output, so that RedriveExecution resumes it as the
 * service does: a Map re-runs only its unsuccessful iterations, a Parallel its unsuccessful branches.
 *
 * Events are read one at a time, in id order; each is put in its frame by the event it follows
 * (`previousEventId`), as the service chains them: a branch's first state follows ParallelStateStarted, an
 * iteration's follows its MapIterationStarted, a Map or Parallel's own closing event follows a child's
 * event. Memory: one record per frame and one entry per event id (at most 25,000), never the events.
 */
import type { ExecutionStatus, FrameRow, FrameStatus } from '../store';
import { MAP_ITEMS, type PreparedDefinition, type StateListPath } from '../definition';
import { type ChildrenPhase, type FramePosition, ROOT_FRAME_ID } from '../executor/frame';
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
  /** The top-level state the run stopped in (a redrive enters it again, or its children), when it had entered one. */
  readonly state?: string;
}

const CHILDREN_OPEN = new Set(['MapStateStarted', 'ParallelStateStarted']);
const CHILDREN_CLOSE = new Set([
  'MapStateSucceeded',
  'MapStateFailed',
  'MapStateAborted',
  'ParallelStateSucceeded',
  'ParallelStateFailed',
  'ParallelStateAborted',
]);
const ITERATION_END: Readonly<Record<string, FrameStatus>> = {
  MapIterationSucceeded: 'SUCCEEDED',
  MapIterationFailed: 'FAILED',
  MapIterationAborted: 'ABORTED',
};
const RUN_CLOSE: Readonly<Record<string, ExecutionStatus>> = {
  ExecutionSucceeded: 'SUCCEEDED',
  ExecutionFailed: 'FAILED',
  ExecutionTimedOut: 'TIMED_OUT',
  ExecutionAborted: 'ABORTED',
};
/** A Task attempt begins (its frame's attempt counter moves on, as the engine's `seq` does). */
const ATTEMPTS = new Set(['TaskScheduled', 'ActivityScheduled', 'LambdaFunctionScheduled']);

/** A Parallel or Map whose children are under way. */
interface OpenChildren {
  readonly type: 'Parallel' | 'Map';
  readonly group: string;
  readonly state: string;
  readonly startedEventId: number;
  readonly total: number;
  readonly children: Map<number, FrameBuild>;
}

/** A frame as the replay builds it. */
interface FrameBuild {
  readonly id: string;
  readonly parentId: string | null;
  readonly itemIndex: number;
  readonly path: StateListPath;
  state?: string;
  input?: unknown;
  enteredMs: number;
  enteredEventId?: number;
  enteredPreviousEventId?: number;
  lastEventId: number;
  sideEventId?: number;
  variables: Record<string, unknown>;
  attempts: number;
  spawns: number;
  status: FrameStatus;
  output?: unknown;
  error?: string;
  cause?: string;
  mapItem?: { index: number; value: unknown };
  open?: OpenChildren;
  /** The children of the Parallel/Map it is in, once they ended (a redrive re-examines them). */
  closed?: OpenChildren;
  /** The Map had iterations that never started: their inputs are not in the history, so a redrive enters the Map again. */
  unstarted?: number;
}

const parseText = (text: unknown, what: string): unknown => {
  if (typeof text !== 'string')
    throw new ImportRefusedError(
      `the history holds no ${what}: pull needs the execution data (read it with includeExecutionData, which the IAM policy in docs/pull.md allows)`,
    );
  return JSON.parse(text);
};

/** The run's frames, built event by event; see the module comment. */
export class HistoryReplay {
  private readonly root: FrameBuild;
  private readonly frames: FrameBuild[];
  /** The frame of each event, by id. */
  private readonly frameOf = new Map<number, FrameBuild>();
  private input: unknown;
  private lastId = 0;
  private outcome: ReplayedOutcome = { status: 'RUNNING' };
  /** Events read so far. */
  count = 0;

  constructor(private readonly definition: PreparedDefinition) {
    this.root = {
      id: ROOT_FRAME_ID,
      parentId: null,
      itemIndex: 0,
      path: [],
      enteredMs: 0,
      lastEventId: 0,
      variables: {},
      attempts: 0,
      spawns: 0,
      status: 'RUNNING',
    };
    this.frames = [this.root];
  }

  /** Reads the next event (ids must follow one another from 1, as GetExecutionHistory gives them). */
  add(e: ImportedEvent): void {
    if (e.id !== this.lastId + 1)
      throw new ImportRefusedError(
        `the history skips from event ${this.lastId} to ${e.id}: every page must be read, in order`,
      );
    this.lastId = e.id;
    this.count += 1;
    const d = e.details ?? {};
    const after = this.frameOf.get(e.previous_id) ?? this.root;
    let frame = after;
    if (e.type === 'ExecutionStarted') {
      this.input = parseText(d.input, 'execution input');
      frame = this.root;
    } else if (RUN_CLOSE[e.type] || e.type === 'ExecutionRedriven') {
      frame = this.root;
      this.outcome = RUN_CLOSE[e.type]
        ? {
            status: RUN_CLOSE[e.type],
            ...(typeof d.error === 'string' ? { error: d.error } : {}),
            ...(typeof d.cause === 'string' ? { cause: d.cause } : {}),
            stopMs: e.ts_ms,
            ...(this.root.state !== undefined ? { state: this.root.state } : {}),
          }
        : { status: 'RUNNING' };
    } else if (e.type === 'MapIterationStarted') frame = this.startIteration(after, d, e);
    else if (ITERATION_END[e.type]) {
      const owner = this.opening(after, (o) => o.type === 'Map' && o.state === d.name);
      const child = owner?.open?.children.get(Number(d.index));
      if (child) {
        child.status = ITERATION_END[e.type];
        child.sideEventId = e.id;
        frame = child;
      }
    } else if (CHILDREN_OPEN.has(e.type)) this.openChildren(after, e, d);
    else if (CHILDREN_CLOSE.has(e.type)) frame = this.closeChildren(after) ?? after;
    else if (e.type.endsWith('StateEntered')) frame = this.enter(after, e, d);
    else if (e.type.endsWith('StateExited')) {
      // A Map's Exited shares its Succeeded event's previousEventId, an iteration's event: its frame is the one in that state.
      frame = this.inState(after, String(d.name)) ?? after;
      this.exit(frame, d);
    } else if (ATTEMPTS.has(e.type)) after.attempts += 1;
    if (typeof d.error === 'string' && !RUN_CLOSE[e.type]) {
      frame.error = d.error;
      frame.cause = typeof d.cause === 'string' ? d.cause : undefined;
    }
    this.frameOf.set(e.id, frame);
    // An iteration's end and an aborted state are written beside the frame's chain, as the engine writes them.
    if (ITERATION_END[e.type] || e.type.endsWith('StateAborted')) frame.sideEventId = e.id;
    else frame.lastEventId = e.id;
  }

  /** The frame at or above `from` whose children are open and match. */
  private opening(from: FrameBuild, match: (o: OpenChildren) => boolean = () => true): FrameBuild | undefined {
    for (let f: FrameBuild | undefined = from; f; f = f.parentId === null ? undefined : this.parentOf(f))
      if (f.open && match(f.open)) return f;
    return undefined;
  }

  /** The frame at or above `from` in the state `name`. */
  private inState(from: FrameBuild, name: string): FrameBuild | undefined {
    for (let f: FrameBuild | undefined = from; f; f = f.parentId === null ? undefined : this.parentOf(f))
      if (f.state === name) return f;
    return undefined;
  }

  private parentOf(child: FrameBuild): FrameBuild | undefined {
    const ownerId = (child.parentId as string).slice(0, (child.parentId as string).lastIndexOf('.'));
    return this.frames.find((f) => f.id === ownerId);
  }

  private openChildren(frame: FrameBuild, e: ImportedEvent, d: Record<string, unknown>): void {
    const state = this.definition.states.get(frame.state ?? '');
    const type = e.type === 'MapStateStarted' ? 'Map' : 'Parallel';
    const total = type === 'Map' ? Number(d.length ?? 0) : (state?.branches?.length ?? 0);
    frame.open = {
      type,
      group: `${frame.id}.${frame.spawns}`,
      state: frame.state ?? '',
      startedEventId: e.id,
      total,
      children: new Map(),
    };
    frame.spawns += 1;
    frame.attempts += 1;
  }

  private closeChildren(after: FrameBuild): FrameBuild | undefined {
    const owner = this.opening(after);
    if (!owner?.open) return undefined;
    owner.closed = owner.open;
    if (owner.open.type === 'Map') owner.unstarted = owner.open.total - owner.open.children.size;
    owner.open = undefined;
    return owner;
  }

  private child(owner: FrameBuild, index: number, path: StateListPath): FrameBuild {
    const open = owner.open as OpenChildren;
    const child: FrameBuild = {
      id: `${open.group}.${index}`,
      parentId: open.group,
      itemIndex: index,
      path,
      enteredMs: 0,
      lastEventId: 0,
      variables: { ...owner.variables },
      attempts: 0,
      spawns: 0,
      status: 'RUNNING',
    };
    open.children.set(index, child);
    this.frames.push(child);
    return child;
  }

  private startIteration(after: FrameBuild, d: Record<string, unknown>, e: ImportedEvent): FrameBuild {
    const owner = this.opening(after, (o) => o.type === 'Map' && o.state === d.name);
    if (!owner?.open) return after;
    const index = Number(d.index);
    const child = this.child(owner, index, [...owner.path, owner.open.state, MAP_ITEMS]);
    child.enteredMs = e.ts_ms;
    return child;
  }

  private enter(after: FrameBuild, e: ImportedEvent, d: Record<string, unknown>): FrameBuild {
    let frame = after;
    const name = String(d.name);
    if (after.open?.type === 'Parallel' && e.previous_id === after.open.startedEventId) {
      const state = this.definition.states.get(after.open.state);
      const branch = state?.branches?.findIndex((b) => b.startAt === name) ?? -1;
      frame = this.child(after, branch < 0 ? after.open.children.size : branch, [
        ...after.path,
        after.open.state,
        branch,
      ]);
    }
    const input = parseText(d.input, `input of state '${name}'`);
    // An iteration's first state: its input is the item (as ItemSelector made it), the context's Map.Item too.
    if (frame.mapItem === undefined && frame.parentId !== null && frame.path.at(-1) === MAP_ITEMS)
      frame.mapItem = { index: frame.itemIndex, value: input };
    frame.state = name;
    frame.input = input;
    frame.enteredMs = e.ts_ms;
    frame.enteredEventId = e.id;
    frame.enteredPreviousEventId = e.previous_id;
    frame.closed = undefined;
    frame.unstarted = undefined;
    return frame;
  }

  private exit(frame: FrameBuild, d: Record<string, unknown>): void {
    const assigned = d.assignedVariables as Record<string, string> | undefined;
    if (assigned) for (const [name, text] of Object.entries(assigned)) frame.variables[name] = JSON.parse(text);
    const state = this.definition.states.get(String(d.name));
    // A branch or iteration whose last state exited has succeeded, with that state's output.
    if (frame.parentId !== null && state && state.next === undefined && state.type !== 'Choice') {
      frame.status = 'SUCCEEDED';
      frame.output = parseText(d.output, `output of state '${String(d.name)}'`);
    }
  }

  /** How the run stands now. */
  get result(): ReplayedOutcome {
    return this.outcome;
  }

  /** The execution input ExecutionStarted recorded. */
  get executionInput(): unknown {
    return this.input;
  }

  /** What a redrive will do otherwise than the service would (a Map whose iterations did not all start is entered again). */
  get caveats(): string[] {
    return this.frames
      .filter((f) => f.closed && f.unstarted && f.status !== 'SUCCEEDED')
      .map(
        (f) =>
          `Map '${f.state}': ${f.unstarted} of its ${f.closed?.total} iterations never started, and the history does not hold their inputs; a redrive runs the whole Map again`,
      );
  }

  /**
   * The frames a redrive resumes (see the module comment). Throws {@link ImportRefusedError} for a run
   * still running at the source.
   */
  framesOf(executionArn: string): FrameRow[] {
    const { status } = this.outcome;
    if (status === 'RUNNING')
      throw new ImportRefusedError('the history does not end the run (it is still RUNNING at the source)');
    if (status === 'SUCCEEDED' || this.root.state === undefined) return [];
    this.root.status = status === 'FAILED' ? 'FAILED' : 'ABORTED';
    this.root.error = this.outcome.error;
    this.root.cause = this.outcome.cause;
    const rows: FrameRow[] = [];
    const write = (f: FrameBuild): void => {
      const resume = this.resumeOf(f);
      const succeeded = f.status === 'SUCCEEDED';
      const position: FramePosition = {
        path: f.path,
        state: f.state as string,
        input: f.input,
        ...(f.mapItem ? { mapItem: f.mapItem } : {}),
        variables: f.variables,
        phase: succeeded ? { kind: 'closed' } : { kind: 'closed', resume },
        retries: [],
        retryCount: 0,
        enteredMs: f.enteredMs,
        seq: f.attempts,
        spawns: f.spawns,
        lastEventId: f.lastEventId,
        ...(f.enteredEventId !== undefined
          ? { enteredEventId: f.enteredEventId, enteredPreviousEventId: f.enteredPreviousEventId }
          : {}),
        ...(f.sideEventId !== undefined && f.sideEventId > f.lastEventId ? { sideEventId: f.sideEventId } : {}),
        ...(succeeded ? { output: f.output } : {}),
        ...(!succeeded && f.error !== undefined ? { error: f.error } : {}),
        ...(!succeeded && f.cause !== undefined ? { cause: f.cause } : {}),
      };
      const frameStatus: FrameStatus = succeeded ? 'SUCCEEDED' : f.status === 'ABORTED' ? 'ABORTED' : 'FAILED';
      rows.push({
        execution_arn: executionArn,
        frame_id: f.id,
        parent_id: f.parentId,
        item_index: f.itemIndex,
        status: frameStatus,
        rev: 0,
        position: JSON.stringify(position),
      });
      if (resume.kind === 'children' && f.closed)
        for (const child of [...f.closed.children.values()].sort((a, b) => a.itemIndex - b.itemIndex))
          if (child.state !== undefined) write(child);
    };
    write(this.root);
    return rows;
  }

  /** Where a redrive picks the frame up: its children when it stopped in a Parallel/Map whose children are all known, else its state. */
  private resumeOf(f: FrameBuild): ChildrenPhase | { kind: 'enter' } {
    const closed = f.closed;
    if (!closed || f.unstarted || [...closed.children.values()].some((c) => c.state === undefined))
      return { kind: 'enter' };
    const state = this.definition.states.get(closed.state)?.definition as Record<string, unknown> | undefined;
    const number = (v: unknown) => (typeof v === 'number' ? v : undefined);
    const toleratedCount = number(state?.ToleratedFailureCount);
    const toleratedPercentage = number(state?.ToleratedFailurePercentage);
    return {
      kind: 'children',
      type: closed.type,
      group: closed.group,
      total: closed.total,
      maxConcurrency: number(state?.MaxConcurrency) ?? 0,
      ...(toleratedCount !== undefined ? { toleratedFailureCount: toleratedCount } : {}),
      ...(toleratedPercentage !== undefined ? { toleratedFailurePercentage: toleratedPercentage } : {}),
    };
  }
}
