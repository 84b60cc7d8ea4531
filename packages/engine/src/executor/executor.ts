/**
 * The executor's kernel: how an execution moves, durably. What each state does lives in its own module
 * (./states, one per ASL state type); the kernel only loads frames, routes signals to the module of the
 * frame's state by the phase it waits in, commits, and then acts.
 *
 * An execution is a tree of frames (rows in `frames`): the top level, each Parallel branch, each Map
 * iteration. A frame's position says which state it is in and in which phase (`enter`, `task`, `retry`,
 * `wait`, `children`, `closed`). Everything happens in response to a signal to one frame — resume,
 * recover (after a restart), a Task outcome, a timer — handled one at a time per frame:
 *
 * ```
 *  signal ─▶ load frame row ─▶ compute the transition (pure: data flow, retry/catch) into a batch
 *         ─▶ group commit (events + position + timers + tokens, one fsync shared with other runs)
 *         ─▶ effects: invoke the Task, signal children / parent, arm timers, run close hooks
 * ```
 * A crash before the commit loses nothing that was acted on; a crash after it finds the new position and
 * redoes only effects (a scheduled Task whose outcome was not committed is invoked again). A frame waiting
 * on a timer or a task token is a row and nothing else.
 *
 * Virtual time: a Task attempt in flight holds the engine busy until its outcome is committed, so a
 * virtual clock never fires a timer while a Lambda's result is still on its way. An invocation that waits
 * on the outside world on purpose lets go explicitly (`LambdaInvocation.releaseClock`).
 */
import { StatesError } from '@autosave/workflow/errors';
import type { EngineStore, ExecutionHeader } from '../store';
import type { PreparedDefinition } from '../definition';
import {
  type CommitOptions,
  EventIdsMovedError,
  StaleTransitionError,
  TransitionBatch,
  type WriteOutcome,
} from '../store';
import type { EngineContext } from '../engine-context';
import { EvaluationDeferredError } from '../dataflow';
import { FrameRecord } from './frame';
import { FrameRows } from './frame-rows';
import { headerOf, RunHeaders } from './run-headers';
import { STATE_MODULES } from './states';
import { type RecordedTaskOutcome, Step, type StepServices } from './step';
import { type IntegrationServices, runTaskIntegration, type TaskCall, type TaskOutcome } from './task-integrations';
import { Effects, type FrameSignal, type Launch, type Run, type SignalResult } from './transition';

export type { FrameSignal, SignalResult } from './transition';

/** Step Functions Local's answer to a mock config that maps an activity state (aws-samples/aws-stepfunctions-examples#69). */
const ACTIVITY_NOT_MOCKABLE: TaskOutcome = {
  ok: false,
  error: StatesError.Runtime,
  cause: 'Activity state cannot be mocked. Please remove mocks mapped for all activity state in the mock config file.',
};

/** A transition's write: a batch, which writes the same when run again after a rollback (see `CommitOptions`). */
const RERUNNABLE: CommitOptions = { rerunnable: true };

/** The pseudo frame id of execution-level timers (the definition's `TimeoutSeconds`). */
export const EXECUTION_TIMER_FRAME = '#execution';

/**
 * How many times a transition is computed again because other frames of its run were written first while
 * it named one of its own events' ids (see `TransitionBatch.reliesOnEventIds`).
 */
const MAX_EVENT_ID_ATTEMPTS = 5;

/** How many times the failure of a run whose transition could not be written is tried (a store fault may pass). */
const FAIL_RUN_ATTEMPTS = 5;
/** The pause before the second try to fail such a run, doubling after each (wall-clock time: a fault passes in real time). */
const FAIL_RUN_PAUSE_MILLIS = 20;

/**
 * How many frames a resumption (a restart's recovery, a redrive) resumes per turn of the event loop. A restart
 * finds every run that was in flight; resumed all in one turn, their reads and routing ran before any request
 * waiting at the port was read (2,000 runs in process: the first API answer came 430 ms after the start, where
 * a batch per turn answers within 20 ms). A batch per turn lets the API answer between batches.
 */
export const RESUMED_FRAMES_PER_TURN = 50;

/**
 * Promises resolving on `count` successive turns of the event loop, each after its turn's I/O (`setImmediate`),
 * the first one turn later: a connection accepted in the first turn (a client waiting at the port while the
 * store opened) has its request read in the next, and that request is answered before any batch runs.
 */
export function successiveTurns(count: number): Promise<void>[] {
  const turns: Promise<void>[] = [];
  let previous = new Promise<void>((resolve) => setImmediate(resolve));
  for (let turn = 0; turn < count; turn += 1) {
    previous = previous.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    turns.push(previous);
  }
  return turns;
}

/** A new run's root frame and the batch that starts it (its ExecutionStarted event, its timers). */
export interface RunOpening {
  readonly root: FrameRecord;
  readonly batch: TransitionBatch;
}

/** What {@link Executor.firstTransition} computed: the batch to commit with the run's row, and what follows the commit. */
export interface FirstTransition {
  readonly batch: TransitionBatch;
  readonly afterCommit: () => void;
}

/** The executor's hooks into the engine. */
export interface ExecutorHooks {
  /** An execution closed (after its close was committed). */
  onClosed(executionArn: string): void;
  /** Timer rows changed: re-arm the timer service. */
  onTimersChanged(): void;
  /** Asked before a callback task is timed out: see {@link RecordedTaskOutcome}. @default nothing is ever recorded */
  recordedTaskOutcome?: RecordedTaskOutcome;
  /** An activity task was queued (committed) for the activity `activityArn`: its waiting workers may take it. @default nobody waits */
  onActivityScheduled?(activityArn: string): void;
  /** See {@link StepServices.withoutRedriveCount}. @default every run's context has it */
  withoutRedriveCount?: (executionArn: string) => boolean;
}

/** A Task attempt in flight: it holds the engine busy until its outcome is committed, or until it lets go. */
interface Invocation {
  /** Resolves once the attempt's outcome was committed (or found stale). */
  settled?: Promise<unknown>;
  /** Resolves when the invocation lets go of the clock before it ends. */
  readonly released: Promise<void>;
  isReleased: boolean;
}

/**
 * Moves executions from state to state. Every transition is computed from the durable frame position,
 * written with its history events in one {@link TransitionBatch} through the group committer, and only
 * then acted upon (a Task invoked, children started, a parent told). Signals to one frame are handled one
 * at a time; frames waiting on a timer or a task token hold no memory — only rows.
 */
export class Executor {
  /** The latest signal of each frame, by run then frame: a frame's signals are handled one after another. */
  private readonly locks = new Map<string, Map<string, Promise<unknown>>>();
  private readonly invocations = new Set<Invocation>();
  private busy = 0;
  private idleWaiters: (() => void)[] = [];
  private stopped = false;
  private readonly stepServices: StepServices;
  private readonly headers = new RunHeaders();
  private readonly frameRows = new FrameRows();

  constructor(
    private readonly ctx: EngineContext,
    private readonly services: IntegrationServices,
    private readonly hooks: ExecutorHooks,
  ) {
    this.stepServices = {
      store: ctx.store,
      clock: ctx.clock,
      random: ctx.random,
      region: ctx.scope.region,
      integrations: services,
      moduleOf: (state) => STATE_MODULES[state.type],
      recordedTaskOutcome: hooks.recordedTaskOutcome,
      withoutRedriveCount: hooks.withoutRedriveCount,
      mocked: (executionArn, state) => ctx.mocks.mockedState(executionArn, state) !== undefined,
      expressionLimits: ctx.expressionLimits,
      longEvaluations: ctx.longEvaluations,
    };
  }

  private get store() {
    return this.ctx.store;
  }

  /** Stops taking signals (in-flight work finishes; its results are dropped once the store closes). */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Resolves once no transition or commit is in flight and every Task attempt in flight has had its
   * outcome committed — except invocations that let go of the clock (they wait on the outside world).
   */
  async whenIdle(): Promise<void> {
    for (;;) {
      await this.transitionsIdle();
      const holding = [...this.invocations].filter((i) => !i.isReleased);
      if (holding.length === 0) return;
      await Promise.race(holding.flatMap((i) => [i.settled, i.released]));
    }
  }

  /** Resolves once no transition or commit is in flight (Task attempts are not waited for). */
  drain(): Promise<void> {
    return this.transitionsIdle();
  }

  private async transitionsIdle(): Promise<void> {
    while (this.busy > 0 || !this.store.committer.idle) {
      if (this.busy > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
      else await new Promise((resolve) => setImmediate(resolve)); // a queued commit flushes on the next turn
    }
  }

  private enter(): void {
    this.busy += 1;
  }

  private leave(): void {
    this.busy -= 1;
    // Nobody waits (the usual case: a whenIdle() adds its waiter only while busy): no turn to schedule.
    if (this.busy === 0 && this.idleWaiters.length > 0) {
      // New work may be queued by what just finished; check again after the current turn.
      setImmediate(() => {
        if (this.busy === 0) {
          const waiters = this.idleWaiters;
          this.idleWaiters = [];
          waiters.forEach((w) => w());
        }
      });
    }
  }

  /**
   * Sends `signal` to a frame; resolves once its transition is committed (or found stale, or not applied).
   * With `notBefore`, the signal takes its place in the frame's order now but is handled once that settles.
   */
  signal(
    executionArn: string,
    frameId: string,
    signal: FrameSignal,
    notBefore?: Promise<unknown>,
  ): Promise<SignalResult> {
    if (this.stopped) return Promise.resolve('not-applied');
    let frames = this.locks.get(executionArn);
    if (!frames) this.locks.set(executionArn, (frames = new Map()));
    const previous = (frames.get(frameId) ?? Promise.resolve()).catch(() => undefined);
    this.enter();
    const next = (notBefore ? previous.then(() => notBefore) : previous)
      .then(() => (this.stopped ? ('not-applied' as const) : this.process(executionArn, frameId, signal)))
      // A transition that cannot be written (not a stale one: a store failure, a bug) is tried once more;
      // failing again, it fails the run with the error recorded rather than leave it RUNNING for good.
      .catch(() => (this.stopped ? ('not-applied' as const) : this.process(executionArn, frameId, signal)))
      .catch(async (err: unknown) => {
        console.error(`autosave engine: transition of ${executionArn} frame ${frameId} failed`, err);
        if (!this.stopped) await this.failRun(executionArn, err);
        return 'not-applied' as const;
      })
      .finally(() => {
        if (frames.get(frameId) === next) {
          frames.delete(frameId);
          if (frames.size === 0 && this.locks.get(executionArn) === frames) this.locks.delete(executionArn);
        }
        this.leave();
      });
    frames.set(frameId, next);
    return next;
  }

  /**
   * Fails a run whose transition could not be written (States.Runtime, the cause naming the failure). A
   * store failure may outlast the transition's own tries: the failure is written again after a short pause,
   * up to {@link FAIL_RUN_ATTEMPTS} times, so a run is not left RUNNING by a passing fault.
   */
  private async failRun(executionArn: string, err: unknown): Promise<void> {
    this.headers.forget(executionArn);
    const cause = `The local engine could not apply a transition of this execution: ${(err as Error)?.message ?? String(err)}`;
    for (let attempt = 1; ; attempt++) {
      const batch = new TransitionBatch(executionArn, () => this.ctx.clock.now());
      batch.event(null, 'ExecutionFailed', { error: StatesError.Runtime, cause });
      batch.closeExecution({ status: 'FAILED', error: StatesError.Runtime, cause });
      try {
        await this.store.committer.commit(() => batch.write(this.store), RERUNNABLE);
        this.hooks.onClosed(executionArn);
        return;
      } catch (failed) {
        // Closed meanwhile (a stop, a timeout): nothing left to do.
        if (failed instanceof StaleTransitionError || this.store.getExecution(executionArn)?.status !== 'RUNNING')
          return;
        if (attempt >= FAIL_RUN_ATTEMPTS || this.stopped) {
          console.error(`autosave engine: could not fail ${executionArn} either`, failed);
          return;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, FAIL_RUN_PAUSE_MILLIS * 2 ** (attempt - 1)));
    }
  }

  /**
   * Resumes every running execution's frames that have something to do: at start (`recover`: Task
   * attempts without a committed result are invoked again) and after a redrive (`resume`).
   */
  resumeRunning(kind: 'resume' | 'recover', executionArn?: string): number {
    const rows = this.store.resumableFrames(executionArn);
    // A redriven run's header changed (its redrive count and time), and its frames were written anew: read them again.
    this.headers.forget(executionArn);
    this.frameRows.clear();
    // Every frame takes its place now, ahead of any signal an API call or a timer sends it meanwhile (a Task
    // outcome handled first would have its next attempt relaunched by a recovery), and is handled in its
    // batch's turn (see RESUMED_FRAMES_PER_TURN).
    const turns = successiveTurns(Math.ceil(rows.length / RESUMED_FRAMES_PER_TURN));
    rows.forEach(
      (r, i) => void this.signal(r.execution_arn, r.frame_id, { kind }, turns[Math.floor(i / RESUMED_FRAMES_PER_TURN)]),
    );
    return rows.length;
  }

  // ---- one transition ------------------------------------------------------------------------------

  private async process(executionArn: string, frameId: string, signal: FrameSignal): Promise<SignalResult> {
    for (let attempt = 1; ; attempt++) {
      // The header this executor wrote last (checked by the write; see RunHeaders), read again after a retry.
      const exec =
        (attempt === 1 ? this.headers.get(executionArn) : undefined) ?? this.store.getExecutionHeader(executionArn);
      if (!exec || exec.status !== 'RUNNING') return 'stale';
      // The row this executor's last transition of the frame wrote, if it still has it (FrameRows): a
      // transition from it that turns out stale or not to apply is computed again from a fresh read.
      const kept = attempt === 1 ? this.frameRows.take(executionArn, frameId) : undefined;
      const row = kept ?? this.store.getFrame(executionArn, frameId);
      if (!row || row.status !== 'RUNNING') return 'stale';
      const run = this.runOf(exec);
      const batch = new TransitionBatch(executionArn, () => this.ctx.clock.now(), exec.event_count);
      const frame = FrameRecord.fromRow(row);
      frame.noTimerRowsAtBase = kept?.noTimerRows;
      const step = new Step(this.stepServices, run, frame, batch, new Effects());
      if (!(await this.route(step, signal))) {
        if (kept) continue;
        return 'stale';
      }
      // Past a few tries (many frames of one run committing at once) the predicted ids are written as they are.
      if (attempt >= MAX_EVENT_ID_ATTEMPTS) batch.acceptMovedEventIds();
      let outcome: WriteOutcome;
      try {
        outcome = await this.store.committer.commit(() => batch.write(this.store), RERUNNABLE);
      } catch (err) {
        this.headers.forget(executionArn);
        if (err instanceof StaleTransitionError) {
          if (kept) continue;
          return 'stale';
        }
        // Another frame of the run was written first, and this transition named an event id: compute it again.
        if (err instanceof EventIdsMovedError) continue;
        throw err;
      }
      // The run failed at its history limit instead: none of the batch's effects may happen.
      if (outcome === 'history-limit') {
        this.headers.forget(executionArn);
        this.hooks.onClosed(run.exec.arn);
      } else {
        this.frameRows.written(step.frame);
        this.afterCommit(run, step.fx, batch.eventCount);
      }
      return 'applied';
    }
  }

  /** Hands a signal to the module of the frame's state, by the phase the frame is in; false if it no longer applies. */
  private async route(step: Step, signal: FrameSignal): Promise<boolean> {
    const { frame } = step;
    const phase = frame.pos.phase;
    if (signal.kind === 'resume' || signal.kind === 'recover') {
      if (phase.kind === 'enter') await step.drive();
      else if (phase.kind === 'children')
        await this.moduleOf(step).onChildren?.(step, signal.kind === 'resume' ? signal.childLastEventId : undefined);
      else if (signal.kind === 'recover' && phase.kind === 'task' && !phase.submitted)
        this.moduleOf(step).relaunch?.(step);
      else return false;
      return true;
    }
    if (signal.kind === 'activity-started') {
      // Taken already (another worker's poll won), or the attempt has moved on: not this worker's task.
      if (phase.kind !== 'task' || frame.pos.seq !== signal.seq || phase.token !== signal.token || phase.started)
        return false;
      this.moduleOf(step).onActivityStarted?.(step, signal);
      return true;
    }
    if (signal.kind === 'task-outcome') {
      if (phase.kind !== 'task' || frame.pos.seq !== signal.seq) return false;
      // A mocked outcome stands for the whole wait, an activity's included (whose task is submitted when scheduled).
      if (signal.source === 'invoke' && phase.submitted && !signal.mocked) return false;
      await this.moduleOf(step).onTaskOutcome?.(step, signal);
      return true;
    }
    // A timer: the row may have moved on since it was picked (a heartbeat pushed it out, a new attempt replaced it).
    const timer = this.store.getTimer(frame.executionArn, frame.id, signal.timer);
    if (frame.pos.seq !== signal.seq || !timer || timer.seq !== signal.seq || timer.due_ms > this.ctx.clock.now())
      return false;
    if (signal.timer === 'retry' && phase.kind === 'retry') {
      const module = this.moduleOf(step);
      await step.guard(() => module.attempt?.(step) ?? Promise.resolve());
      await step.drive();
      return true;
    }
    return (await this.moduleOf(step).onTimer?.(step, signal.timer)) ?? false;
  }

  private moduleOf(step: Step) {
    return STATE_MODULES[step.state.type];
  }

  /** `inputText` when the caller has it (a start), else read from the store when first needed. */
  private runOf(exec: ExecutionHeader, inputText?: string): Run {
    return new StoredRun(exec, this.ctx.definitions.get(exec.definition_hash), this.store, inputText);
  }

  /**
   * The first transition of a new execution, computed before its row exists so that StartExecution and
   * the run's first steps share one commit. `opening` makes the run's root frame and the batch that starts
   * it; returns the batch to commit with the row and what to do once it is committed. A first state whose
   * evaluation outlasts a slice is left to the run: the batch is then a fresh opening, the start alone.
   */
  async firstTransition(
    exec: ExecutionHeader & { readonly input: string },
    opening: () => RunOpening,
  ): Promise<FirstTransition> {
    const run = this.runOf(exec, exec.input);
    let { root, batch } = opening();
    let step = new Step(this.stepServices, run, root, batch, new Effects());
    step.deferLongEvaluations = true;
    this.enter();
    try {
      await step.drive();
    } catch (err) {
      if (!(err instanceof EvaluationDeferredError)) throw err;
      // The start alone, its root frame about to enter its first state: the run evaluates it right after the commit.
      ({ root, batch } = opening());
      step = new Step(this.stepServices, run, root, batch, new Effects());
      step.fx.signals.push({ frameId: root.id, signal: { kind: 'resume' } });
    } finally {
      this.leave();
    }
    return {
      batch,
      afterCommit: () => {
        // A new run (or one of the same ARN after an older one was swept): its own header and root frame from now on.
        this.headers.remember(headerOf(exec));
        this.frameRows.forgetRun(exec.arn);
        this.frameRows.written(root);
        this.afterCommit(run, step.fx, batch.eventCount);
      },
    };
  }

  /** What a committed transition of `run` (`events` events written) sets off. */
  private afterCommit(run: Run, fx: Effects, events: number): void {
    if (fx.closed) this.headers.forget(run.exec.arn);
    else this.headers.written(run.exec, events);
    for (const launch of fx.launches) this.launch(run, launch);
    for (const s of fx.signals) {
      // The ended child's event ids were assigned by the commit that just happened.
      const childLastEventId = s.endedChild?.pos.lastEventId;
      void this.signal(
        run.exec.arn,
        s.frameId,
        childLastEventId !== undefined && s.signal.kind === 'resume' ? { ...s.signal, childLastEventId } : s.signal,
      );
    }
    if (fx.timersChanged) this.hooks.onTimersChanged();
    if (fx.closed) this.hooks.onClosed(run.exec.arn);
  }

  /** Runs a Task attempt's work outside any lock and signals its outcome; the attempt holds the engine busy meanwhile. */
  private launch(run: Run, launch: Launch): void {
    const executionArn = run.exec.arn;
    const state = launch.frame.pos.state;
    const mocked = this.ctx.mocks.mockedState(executionArn, state);
    if (launch.target.service === 'activity') {
      // Step Functions Local refuses to mock an activity (a worker's answer is no service response): so do we.
      if (mocked)
        void this.signal(executionArn, launch.frame.id, {
          kind: 'task-outcome',
          seq: launch.seq,
          source: 'invoke',
          outcome: ACTIVITY_NOT_MOCKABLE,
          mocked: true,
        });
      // Queued for workers (committed): wake the ones waiting on the activity.
      else this.hooks.onActivityScheduled?.(launch.target.resource);
      return;
    }
    if (mocked) {
      // A mocked state makes no call (and so asks no IAM): its response stands for the call and any wait.
      const invocation: Invocation = { released: new Promise<void>(() => undefined), isReleased: false };
      invocation.settled = this.ctx.mocks
        .outcome(mocked, {
          executionArn,
          frameId: launch.frame.id,
          seq: launch.seq,
          state,
          functionResource: launch.target.service === 'lambda-function',
        })
        .catch((err: unknown): TaskOutcome => ({
          ok: false,
          error: StatesError.Runtime,
          cause: (err as Error)?.message ?? String(err),
        }))
        .then((outcome) =>
          this.signal(executionArn, launch.frame.id, {
            kind: 'task-outcome',
            seq: launch.seq,
            source: 'invoke',
            outcome,
            mocked: true,
          }),
        )
        .finally(() => this.invocations.delete(invocation));
      this.invocations.add(invocation);
      return;
    }
    const parentTask =
      launch.target.service === 'states' && launch.target.pattern === 'sync'
        ? {
            executionArn,
            frameId: launch.frame.id,
            seq: launch.seq,
            outputAsJson: launch.target.resource.endsWith(':2'),
          }
        : undefined;
    let release!: () => void;
    const invocation: Invocation = {
      released: new Promise<void>((resolve) => (release = resolve)),
      isReleased: false,
    };
    const releaseClock = () => {
      invocation.isReleased = true;
      release();
    };
    const call: TaskCall = {
      roleArn: run.exec.role_arn,
      executionArn,
      stateMachineArn: run.exec.machine_arn,
      state: launch.frame.pos.state,
      resource: launch.target.resourceArn,
      args: launch.args,
    };
    const authorize = this.services.authorize;
    // Authorized per attempt, as the service authorizes each call it makes with the role.
    const denied = authorize ? authorize(call) : Promise.resolve(undefined);
    invocation.settled = denied
      .then((denial): Promise<TaskOutcome> | TaskOutcome =>
        denial
          ? { ok: false, ...denial }
          : runTaskIntegration(this.services, launch.target, launch.args, {
              parentTask,
              replay: launch.replay,
              releaseClock,
              call,
              argsJson: launch.argsJson,
            }),
      )
      .catch((err: unknown): TaskOutcome => ({
        ok: false,
        error: StatesError.TaskFailed,
        cause: (err as Error)?.message ?? String(err),
      }))
      .then((outcome) =>
        this.signal(executionArn, launch.frame.id, {
          kind: 'task-outcome',
          seq: launch.seq,
          source: 'invoke',
          outcome,
        }),
      )
      .finally(() => this.invocations.delete(invocation));
    this.invocations.add(invocation);
  }
}

/**
 * One execution while a transition of it runs. Its input is read (and parsed) only when needed:
 * `$states.context.Execution.Input`, the first Entered event (up to 256 KiB). A class, not an object
 * literal with getters: one is made per transition.
 */
class StoredRun implements Run {
  private text: string | undefined;
  private parsed?: { readonly value: unknown };

  constructor(
    readonly exec: ExecutionHeader,
    readonly definition: PreparedDefinition,
    private readonly store: EngineStore,
    inputText?: string,
  ) {
    this.text = inputText;
  }

  get inputText(): string {
    this.text ??= this.store.getExecutionInput(this.exec.arn);
    return this.text;
  }

  get input(): unknown {
    this.parsed ??= { value: JSON.parse(this.inputText) };
    return this.parsed.value;
  }
}
