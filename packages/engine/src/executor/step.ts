/**
 * One transition of one frame: what a state module reads (the state, its data flow, the scope its
 * expressions see) and the moves it makes (phase changes, exits, failures). Every move only records into
 * the transition's batch and effects; nothing reaches the outside before the kernel commits the batch.
 */
import { STATES_PAYLOAD_LIMIT_BYTES } from '@autosave/workflow/config';
import type { Clock } from '@autosave/workflow/config';
import type { EngineStore } from '../store';
import type { EventOptions, ExecutionClose, TransitionBatch } from '../store';
import { dataFlowFor } from '../dataflow';
import {
  DataLimitExceededError,
  EvaluationDeferredError,
  NoChoiceMatchedError,
  QueryEvaluationError,
  StatesDataFlowError,
} from '../dataflow';
import type { EvaluationScope, EvaluationWatch, ExpressionLimits, StateDataFlow } from '../dataflow';
import type { LongEvaluations } from './long-evaluations';
import type { PreparedState } from '../definition';
import { type FramePosition, FrameRecord, type Phase, ROOT_FRAME_ID, type TimerSpec } from './frame';
import { assignedDetails, payloadDetails, payloadTextDetails } from './history';
import { findCatcher, findRetrier, retrierAllows, retryDelayMillis } from './retry-policy';
import type { IntegrationServices, TaskOutcome } from './task-integrations';
import { type ClosedResume, ENTER, type Effects, type Run, type StateFailure, toFailure } from './transition';

/** What a step uses of the engine: the store, the clock, randomness and where Tasks reach. */
export interface StepServices {
  readonly store: EngineStore;
  readonly clock: Clock;
  /** Uniform random numbers in [0, 1) (retry jitter). */
  readonly random: () => number;
  /** The region written into `TaskScheduled` events. */
  readonly region: string;
  readonly integrations: IntegrationServices;
  /** The module of a state type (the kernel's registry), for {@link Step.drive}. */
  readonly moduleOf: (state: PreparedState) => StateModule;
  /** Asked before a callback task times out. @default nothing is ever recorded outside the engine */
  readonly recordedTaskOutcome?: RecordedTaskOutcome;
  /**
   * Whether a run's `$$.Execution` leaves out `RedriveCount`: AWS does so in a synchronous Express run
   * (StartSyncExecution), which can never be redriven. @default every run's context has it
   */
  readonly withoutRedriveCount?: (executionArn: string) => boolean;
  /** Whether the run's mock-config test case mocks a state (its name). @default no run is mocked */
  readonly mocked?: (executionArn: string, state: string) => boolean;
  /** The budget of each JSONata evaluation. @default DEFAULT_EXPRESSION_LIMITS */
  readonly expressionLimits?: ExpressionLimits;
  /** Where long evaluations are written down. @default nowhere */
  readonly longEvaluations?: LongEvaluations;
}

/**
 * The outcome recorded outside the engine for a callback task's token that never reached the engine —
 * e.g. an approval decided, then cut off by a crash before its SendTaskSuccess. A recorded decision was
 * made in time, so a timeout (or heartbeat timeout) that finds one delivers it instead of timing the task
 * out. Undefined: nothing recorded, time out. It may reject (its store unreachable): then the timeout is
 * postponed by {@link RECORDED_OUTCOME_RETRY_MILLIS}, never decided without asking.
 */
export type RecordedTaskOutcome = (taskToken: string) => Promise<TaskOutcome | undefined>;

/** How long a timeout waits before asking {@link RecordedTaskOutcome} again after it failed. */
export const RECORDED_OUTCOME_RETRY_MILLIS = 1_000;

/**
 * One ASL state type, as the spec describes it: what entering the state does, and how it takes the
 * signals of the phases it waits in. The kernel calls these with the frame loaded and the batch open.
 */
export interface StateModule {
  /** The state was entered (its Entered event is written): run it until it must wait, exits or fails. */
  enter(step: Step): Promise<void>;
  /** A retry backoff ended: the next attempt (Task, Parallel, Map). */
  attempt?(step: Step): Promise<void>;
  /** A timer of the state's phase came due; false when it does not apply to the current phase. */
  onTimer?(step: Step, timer: TimerSpec['kind']): Promise<boolean>;
  /** The outcome of a Task attempt. */
  onTaskOutcome?(step: Step, signal: import('./transition').TaskOutcomeSignal): Promise<void>;
  /** A worker took the activity task the frame waits on. */
  onActivityStarted?(
    step: Step,
    signal: Extract<import('./transition').FrameSignal, { kind: 'activity-started' }>,
  ): void;
  /** After a restart: a Task attempt whose outcome was never committed is invoked again. */
  relaunch?(step: Step): void;
  /** A child frame changed (Parallel, Map): start more, fail, or finish. `childLastEventId`: see the resume signal. */
  onChildren?(step: Step, childLastEventId?: number): Promise<void>;
}

/** Extra fields of a scope: a Task token, a Map item, and the result or error output a state has at that point. */
export interface ScopeExtra {
  readonly token?: string;
  readonly mapItem?: { index: number; value: unknown };
  readonly result?: unknown;
  readonly errorOutput?: unknown;
}

/** Longest run of Pass/Choice states one batch takes before it commits and carries on in the next. */
export const MAX_STEPS_PER_BATCH = 200;

const isoTime = (ms: number): string => new Date(ms).toISOString();

/**
 * The scope of a state's expressions, its context object made when first read. A class, not an object
 * literal with a `context` getter: V8 (Node 20) gives each such literal a map of its own, ~1.7 µs and ~1 KB
 * apiece where a class instance costs ~25 ns, and a transition makes two or three scopes.
 */
class StepScope implements EvaluationScope {
  constructor(
    readonly input: unknown,
    readonly variables: Readonly<Record<string, unknown>>,
    private readonly contextOf: () => Record<string, unknown>,
    readonly nowMillis: number,
    readonly expressionLimits: ExpressionLimits | undefined,
    readonly evaluationWatch: EvaluationWatch | undefined,
    readonly deferLongEvaluation: boolean,
    readonly result: unknown,
    readonly errorOutput: unknown,
  ) {}

  get context(): Record<string, unknown> {
    return this.contextOf();
  }
}

/** The transition of one frame of one run: a batch being filled and the effects to run after its commit. */
export class Step {
  /** Whether the current state was entered in this transition (its entered event's id is then predicted). */
  private enteredHere = false;
  /**
   * A run's first transition, inside its StartExecution: an evaluation that outlasts its slice throws
   * EvaluationDeferredError, which no state catches (see {@link failureOf}), so the start answers at once.
   */
  deferLongEvaluations = false;

  constructor(
    readonly services: StepServices,
    readonly run: Run,
    readonly frame: FrameRecord,
    readonly batch: TransitionBatch,
    readonly fx: Effects,
  ) {}

  /** The state the frame is in. */
  get state(): PreparedState {
    const state = this.run.definition.states.get(this.frame.pos.state);
    if (!state) throw new Error(`state '${this.frame.pos.state}' not found in the definition`);
    return state;
  }

  /** The data flow of the current state's query language. */
  get flow(): StateDataFlow {
    return dataFlowFor(this.state.queryLanguage);
  }

  /** The engine clock's time. */
  now(): number {
    return this.services.clock.now();
  }

  /** A step of another frame of the same run in the same batch (a child being started). */
  child(frame: FrameRecord): Step {
    return new Step(this.services, this.run, frame, this.batch, this.fx);
  }

  // ---- what expressions see ---------------------------------------------------------------------------

  /** Whether the current state is a Task with a Retry field (the only states whose context has `State.RetryCount`). */
  private get retried(): boolean {
    const state = this.run.definition.states.get(this.frame.pos.state);
    return state?.type === 'Task' && state.retry.length > 0;
  }

  /**
   * The context object (`$$`, `$states.context`) of the current state, as it is now. Built when an
   * expression first reads it (most read none), from what the state was when the scope was made.
   */
  private contextObject(extra: {
    token?: string;
    mapItem?: { index: number; value: unknown };
  }): () => Record<string, unknown> {
    const { run } = this;
    const e = run.exec;
    const { state, enteredMs, retryCount } = this.frame.pos;
    // AWS records State.RetryCount only in a Task that has a Retry field.
    const retried = this.retried;
    const withRedriveCount = !this.services.withoutRedriveCount?.(e.arn);
    let context: Record<string, unknown> | undefined;
    return () => {
      if (context) return context;
      context = {
        Execution: {
          Id: e.arn,
          get Input() {
            return run.input;
          },
          Name: e.name,
          RoleArn: e.role_arn,
          StartTime: isoTime(e.start_ms),
          ...(withRedriveCount ? { RedriveCount: e.redrive_count } : {}),
          ...(e.redrive_ms !== null ? { RedriveTime: isoTime(e.redrive_ms) } : {}),
        },
        State: {
          EnteredTime: isoTime(enteredMs),
          Name: state,
          ...(retried ? { RetryCount: retryCount } : {}),
        },
        StateMachine: { Id: e.machine_arn, Name: e.machine_name },
      };
      if (extra.token !== undefined) context.Task = { Token: extra.token };
      if (extra.mapItem) context.Map = { Item: { Index: extra.mapItem.index, Value: extra.mapItem.value } };
      return context;
    };
  }

  /** The scope of the current state's expressions; `$now()` reads the engine clock. */
  scope(extra: ScopeExtra = {}): EvaluationScope {
    return new StepScope(
      this.frame.pos.input,
      this.frame.pos.variables,
      this.contextObject(extra),
      this.now(),
      this.services.expressionLimits,
      this.services.longEvaluations?.watch(this.run.exec.arn, this.frame.pos.state),
      this.deferLongEvaluations,
      extra.result,
      extra.errorOutput,
    );
  }

  // ---- moves ------------------------------------------------------------------------------------------

  /** Appends an event of this frame; returns its id (see {@link TransitionBatch.event}). */
  event(type: string, details?: Record<string, unknown>, options?: EventOptions): number {
    return this.batch.event(this.frame, type, details, options);
  }

  /** Replaces the frame's phase and timers (every phase change goes through here). */
  setPhase(phase: Phase, timers: TimerSpec[] = []): void {
    this.frame.pos.phase = phase;
    this.frame.timers = timers;
    this.fx.timersChanged ||= timers.length > 0;
    this.batch.touch(this.frame);
  }

  /** Runs states that need no waiting until the frame must wait (Task, Wait, children) or ends. */
  async drive(): Promise<void> {
    const { frame } = this;
    // Bounded so a loop of Pass/Choice states commits in slices instead of growing one batch forever.
    for (let steps = 0; frame.status === 'RUNNING' && frame.pos.phase.kind === 'enter'; steps++) {
      if (steps >= MAX_STEPS_PER_BATCH) {
        this.batch.touch(frame);
        this.fx.signals.push({ frameId: frame.id, signal: { kind: 'resume' } });
        return;
      }
      const state = this.state;
      frame.pos.enteredMs = this.now();
      this.batch.touch(frame);
      // The run's first state is entered with the execution input as its caller wrote it, as AWS records it.
      const first = frame.id === ROOT_FRAME_ID && frame.pos.lastEventId === 0 && !this.enteredHere;
      const known = frame.inputJson;
      const inputText = first
        ? this.run.inputText
        : known && known.of === frame.pos.input
          ? known.text
          : JSON.stringify(frame.pos.input ?? null);
      const input = payloadTextDetails('input', inputText);
      frame.pos.enteredEventId = this.event(`${state.type}StateEntered`, { name: frame.pos.state, ...input });
      this.enteredHere = true;
      await this.guard(() => this.services.moduleOf(state).enter(this));
    }
  }

  /** Runs `work`; a failure it throws goes to the state's Retry/Catch (or fails the frame). */
  async guard(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      await this.recover(this.failureOf(err), ENTER);
    }
  }

  /**
   * What a failure thrown while evaluating the current state is, as an ASL error and cause: the one place
   * a state's failure is named. An error the service raises itself while evaluating the state (a
   * `States.Runtime` path, a `States.QueryEvaluationError`, ...) has its cause prefixed as AWS writes it:
   * `An error occurred while executing the state 'X' (entered at the event id #N). `. A Choice matching
   * nothing and an oversized result keep their own causes, as AWS records them.
   */
  failureOf(err: unknown): StateFailure {
    // Not a failure of the state: the transition is given up and computed again after the start.
    if (err instanceof EvaluationDeferredError) throw err;
    const failure = toFailure(err);
    const entered = this.frame.pos.enteredEventId;
    if (
      !(err instanceof StatesDataFlowError) ||
      err instanceof NoChoiceMatchedError ||
      err instanceof DataLimitExceededError ||
      entered === undefined
    )
      return failure;
    // A quiet frame's events have no ids in this run's history to name.
    if (this.frame.pos.quiet) return failure;
    // The id is only predicted while the state's entry is in this batch: its write checks the prediction held.
    if (this.enteredHere) this.batch.reliesOnEventIds();
    const cause = `An error occurred while executing the state '${this.frame.pos.state}' (entered at the event id #${entered}). ${failure.cause}`;
    if (err instanceof QueryEvaluationError)
      return { ...failure, cause, evaluation: err.location !== undefined ? { location: err.location } : {} };
    return { ...failure, cause };
  }

  /** Output and Assign of a state whose result is known, its Exited event, and the move on. */
  async exit(result: unknown): Promise<void> {
    const state = this.state;
    const scope = this.scope({ result });
    const [output, assign] = await Promise.all([
      this.flow.output(state.definition, scope),
      this.flow.assign(state.definition, scope),
    ]);
    const outputText = JSON.stringify(output ?? null);
    if (Buffer.byteLength(outputText) > STATES_PAYLOAD_LIMIT_BYTES) {
      throw new DataLimitExceededError(
        `The state/task '${this.frame.pos.state}' returned a result with a size exceeding the maximum number of bytes service limit.`,
      );
    }
    this.event(`${state.type}StateExited`, {
      name: this.frame.pos.state,
      output: outputText,
      outputDetails: { truncated: false },
      ...assignedDetails(assign),
    });
    if (state.next === undefined) {
      this.frame.pos.variables = { ...this.frame.pos.variables, ...assign };
      this.succeed(output, outputText);
    } else {
      this.moveTo(state.next, output, assign);
      this.frame.inputJson = { of: output, text: outputText };
    }
  }

  /** Moves to `next` with `input`, the state's assignments applied. */
  moveTo(next: string, input: unknown, assign: Record<string, unknown>): void {
    const pos = this.frame.pos;
    pos.state = next;
    pos.input = input;
    pos.variables = { ...pos.variables, ...assign };
    pos.retries = [];
    pos.retryCount = 0;
    this.setPhase({ kind: 'enter' });
  }

  /** The frame ends with `output` (`outputJson`: its JSON text, when serialized already): the execution succeeds, or the parent is told. */
  succeed(output: unknown, outputJson?: string): void {
    const { frame } = this;
    frame.status = 'SUCCEEDED';
    frame.pos.output = output;
    this.setPhase({ kind: 'closed' });
    if (frame.id === ROOT_FRAME_ID) {
      const text = outputJson ?? JSON.stringify(output ?? null);
      this.event('ExecutionSucceeded', payloadTextDetails('output', text));
      this.closeExecution({ status: 'SUCCEEDED', output: text });
      return;
    }
    // AWS chains the Map's next events after the iteration's last state event, not after this one.
    if (frame.pos.mapItem)
      this.event(
        'MapIterationSucceeded',
        { name: mapStateName(frame.pos), index: frame.itemIndex },
        { advance: false },
      );
    this.fx.signals.push({ frameId: parentFrameId(frame), signal: { kind: 'resume' }, endedChild: frame });
  }

  /** The frame fails: the execution fails, or the parent is told. `resume` is where a redrive picks it up. */
  fail(failure: StateFailure, resume: ClosedResume): void {
    const { frame } = this;
    frame.status = 'FAILED';
    frame.pos.error = failure.error;
    frame.pos.cause = failure.cause;
    this.setPhase({ kind: 'closed', resume });
    if (frame.id === ROOT_FRAME_ID) {
      const cause = failure.causeUnrecorded ? undefined : failure.cause;
      this.event('ExecutionFailed', { error: failure.error, cause });
      this.closeExecution({ status: 'FAILED', error: failure.error, cause });
      return;
    }
    if (frame.pos.mapItem)
      this.event('MapIterationFailed', { name: mapStateName(frame.pos), index: frame.itemIndex }, { advance: false });
    // AWS records a branch's or iteration's failed Task as aborted too, beside the chain (the parent follows the failure).
    if (this.state.type === 'Task') this.event('TaskStateAborted', undefined, { advance: false });
    this.fx.signals.push({ frameId: parentFrameId(frame), signal: { kind: 'resume' }, endedChild: frame });
  }

  private closeExecution(close: ExecutionClose): void {
    this.batch.closeExecution(close);
    this.fx.closed = true;
  }

  /**
   * The state failed: the first matching Retrier schedules another attempt while it has attempts left,
   * else the first matching Catcher moves on, else the frame fails (and with it the parent or the run).
   * Only Task, Parallel and Map have retriers and catchers (the prepared state's lists are empty otherwise).
   * `failedEvent` is written when no retrier takes the failure.
   */
  async recover(failure: StateFailure, resume: ClosedResume, options: { failedEvent?: string } = {}): Promise<void> {
    const state = this.state;
    const pos = this.frame.pos;
    // A Fail state without Error propagates as a nameless error: only States.ALL can match it.
    const error = failure.matchedAs ?? failure.error ?? '';
    const matching = { catchableByAll: failure.catchableByAll === true };
    const index = findRetrier(state.retry, error, matching);
    if (index >= 0) {
      const retrier = state.retry[index];
      const used = pos.retries[index] ?? 0;
      if (retrierAllows(retrier, used)) {
        const delay = retryDelayMillis(retrier, used, this.services.random);
        pos.retries[index] = used + 1;
        pos.retryCount += 1;
        pos.seq += 1;
        this.setPhase({ kind: 'retry' }, [{ kind: 'retry', dueMs: this.now() + delay }]);
        return;
      }
    }
    // A Parallel/Map's Failed event: AWS writes none before a retry.
    if (options.failedEvent) this.event(options.failedEvent);
    const catcher = findCatcher(state.catch, error, matching);
    if (catcher) {
      try {
        const errorOutput = { Error: failure.error, Cause: failure.cause };
        const { output, assign } = await this.flow.catchOutput(catcher, this.scope({ errorOutput }));
        // The service exits a state whose error was caught, with the Catch's output.
        this.event(`${state.type}StateExited`, {
          name: pos.state,
          ...payloadDetails('output', output),
          ...assignedDetails(assign),
        });
        this.moveTo(catcher.Next, output, assign);
        return;
      } catch (err) {
        failure = this.failureOf(err);
      }
    }
    if (failure.evaluation) this.evaluationFailed(failure, resume);
    this.fail(failure, resume);
  }

  /**
   * The `EvaluationFailed` event AWS records for a JSONata evaluation that fails its state: threaded
   * beside the state's Entered event (after it, for a Wait), and for a Map that never started followed by
   * its `MapStateFailed`.
   */
  private evaluationFailed(failure: StateFailure, resume: ClosedResume): void {
    const state = this.state;
    const location = failure.evaluation?.location;
    const details = {
      error: failure.error,
      cause: failure.cause,
      ...(location !== undefined ? { location } : {}),
      state: this.frame.pos.state,
    };
    this.event('EvaluationFailed', details, { besideEntered: state.type !== 'Wait' });
    if (state.type === 'Map' && resume.kind === 'enter') this.event('MapStateFailed');
  }

  /** A new child frame of this one (a Parallel branch or a Map iteration), written by this batch. */
  newChild(
    group: string,
    index: number,
    status: 'RUNNING' | 'PENDING',
    pos: Pick<FramePosition, 'path' | 'state' | 'input'> & { mapItem?: FramePosition['mapItem'] },
  ): FrameRecord {
    const parent = this.frame;
    const position: FramePosition = {
      ...pos,
      variables: { ...parent.pos.variables },
      // The iterations of a distributed Map are child executions on AWS: their events are not the run's.
      ...(parent.pos.quiet || this.state.distributed ? { quiet: true as const } : {}),
      phase: { kind: 'enter' },
      retries: [],
      retryCount: 0,
      enteredMs: this.now(),
      seq: 0,
      spawns: 0,
    };
    return new FrameRecord(parent.executionArn, `${group}.${index}`, group, index, status, position, null, parent);
  }
}

/** The frame id of a child's parent: a child id is `<parent>.<spawn>.<index>`. */
export function parentFrameId(frame: FrameRecord): string {
  const group = frame.parentId as string;
  return group.slice(0, group.lastIndexOf('.'));
}

/** The Map state an iteration frame belongs to (its path ends with `[mapState, 'items']`). */
export const mapStateName = (pos: FramePosition): string => pos.path[pos.path.length - 2] as string;
