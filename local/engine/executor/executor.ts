/**
 * The executor: how an execution moves, durably.
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
 */
import { STATES_PAYLOAD_LIMIT_BYTES } from '../../../lib/config';
import { StatesError } from '../../../lib/errors';
import type { EngineStore, ExecutionHeader } from '../../store';
import { dataFlowFor } from '../dataflow';
import type { EvaluationScope, StateDataFlow, StateDefinition } from '../dataflow';
import type { EngineContext } from '../engine-context';
import { definitionTree } from './definition-tree';
import { FrameRecord, type FramePosition, type Phase, ROOT_FRAME_ID, type TimerKind } from './frame';
import { assignedDetails, payloadDetails } from './history';
import { type Catcher, findCatcher, findRetrier, type Retrier, retrierAllows, retryDelayMillis } from './retry-policy';
import { type IntegrationServices, resolveTaskTarget, runTaskIntegration, type TaskOutcome, type TaskTarget } from './task-integrations';
import { onChildren, startMap, startParallel, type TransitionHost } from './parallel-and-map';
import { newTaskToken } from './task-token';
import {
  type ClosedResume,
  Effects,
  ENTER,
  type FrameSignal,
  type Launch,
  type Run,
  type SignalResult,
  type StateFailure,
  toFailure,
} from './transition';
import { type ExecutionClose, StaleTransitionError, TransitionBatch, type WriteOutcome } from '../../store';

export type { FrameSignal, SignalResult } from './transition';

/** How long `whenIdle` waits for a Task attempt that makes no progress before calling the engine settled. */
export const DEFAULT_SETTLE_INVOCATIONS_MILLIS = 250;

/** The pseudo frame id of execution-level timers (the definition's `TimeoutSeconds`). */
export const EXECUTION_TIMER_FRAME = '#execution';

/** The executor's hooks into the engine. */
export interface ExecutorHooks {
  /** An execution closed (after its close was committed). */
  onClosed(executionArn: string): void;
  /** Timer rows changed: re-arm the timer service. */
  onTimersChanged(): void;
}

const isoTime = (ms: number): string => new Date(ms).toISOString();
/** Event type names per Task flavour: the direct-ARN Lambda form writes LambdaFunction* events. */
function taskEventType(target: TaskTarget, what: 'Scheduled' | 'Started' | 'Succeeded' | 'Failed' | 'TimedOut' | 'Submitted'): string {
  return target.service === 'lambda-function' ? `LambdaFunction${what}` : `Task${what}`;
}

/**
 * Moves executions from state to state. Every transition is computed from the durable frame position,
 * written with its history events in one {@link TransitionBatch} through the group committer, and only
 * then acted upon (a Task invoked, children started, a parent told). Signals to one frame are handled one
 * at a time; frames waiting on a timer or a task token hold no memory — only rows.
 */
export class Executor {
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly invocations = new Set<Promise<unknown>>();
  private busy = 0;
  private idleWaiters: (() => void)[] = [];
  private stopped = false;
  /** What Parallel/Map orchestration (./parallel-and-map) uses of this executor. */
  private readonly host: TransitionHost;

  constructor(
    private readonly ctx: EngineContext,
    private readonly services: IntegrationServices,
    private readonly hooks: ExecutorHooks,
    private readonly settleInvocationsMillis: number = DEFAULT_SETTLE_INVOCATIONS_MILLIS,
  ) {
    this.host = {
      store: ctx.store,
      clock: ctx.clock,
      scope: (run, frame, extra) => this.scope(run, frame, extra),
      flowOf: (run, state) => this.flowOf(run, state),
      stateOf: (run, frame) => this.stateOf(run, frame),
      setPhase: (frame, batch, fx, phase, timers) => this.setPhase(frame, batch, fx, phase, timers),
      exitState: (run, frame, batch, fx, state, flow, result) => this.exitState(run, frame, batch, fx, state, flow, result),
      stateFailed: (run, frame, batch, fx, state, failure, resume) => this.stateFailed(run, frame, batch, fx, state, failure, resume),
      drive: (run, frame, batch, fx) => this.drive(run, frame, batch, fx),
    };
  }

  private get store(): EngineStore {
    return this.ctx.store;
  }

  /** Stops taking signals (in-flight work finishes; its results are dropped once the store closes). */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Resolves once no transition or commit is in flight and every Task attempt in flight has finished —
   * or made no progress for {@link DEFAULT_SETTLE_INVOCATIONS_MILLIS} of real time (a Lambda that hangs
   * on purpose, e.g. to be timed out, must not hang the virtual clock).
   */
  async whenIdle(): Promise<void> {
    for (;;) {
      await this.transitionsIdle();
      if (this.invocations.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      const progressed = await Promise.race([
        Promise.race(this.invocations).then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), this.settleInvocationsMillis);
        }),
      ]);
      clearTimeout(timer);
      if (!progressed) return this.transitionsIdle();
    }
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
    if (this.busy === 0) {
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

  /** Sends `signal` to a frame; resolves once its transition is committed (or found stale, or not applied). */
  signal(executionArn: string, frameId: string, signal: FrameSignal): Promise<SignalResult> {
    if (this.stopped) return Promise.resolve('not-applied');
    const key = `${executionArn}\u0000${frameId}`;
    const previous = this.locks.get(key) ?? Promise.resolve();
    this.enter();
    const next = previous
      .catch(() => undefined)
      .then(() => (this.stopped ? ('not-applied' as const) : this.process(executionArn, frameId, signal)))
      .catch((err: unknown) => {
        console.error(`autosave engine: transition of ${executionArn} frame ${frameId} failed`, err);
        return 'not-applied' as const;
      })
      .finally(() => {
        if (this.locks.get(key) === next) this.locks.delete(key);
        this.leave();
      });
    this.locks.set(key, next);
    return next;
  }

  /**
   * Resumes every running execution's frames that have something to do: at start (`recover`: Task
   * attempts without a committed result are invoked again) and after a redrive (`resume`).
   */
  resumeRunning(kind: 'resume' | 'recover', executionArn?: string): number {
    const rows = this.store.resumableFrames(executionArn);
    for (const r of rows) void this.signal(r.execution_arn, r.frame_id, { kind });
    return rows.length;
  }

  // ---- one transition ------------------------------------------------------------------------------

  private async process(executionArn: string, frameId: string, signal: FrameSignal): Promise<SignalResult> {
    const exec = this.store.getExecutionHeader(executionArn);
    if (!exec || exec.status !== 'RUNNING') return 'stale';
    const row = this.store.getFrame(executionArn, frameId);
    if (!row || row.status !== 'RUNNING') return 'stale';
    const run = this.runOf(exec);
    const frame = FrameRecord.fromRow(row);
    const batch = new TransitionBatch(executionArn, () => this.ctx.clock.now());
    const fx = new Effects();
    const phase = frame.pos.phase;
    switch (signal.kind) {
      case 'resume':
      case 'recover':
        if (phase.kind === 'enter') await this.drive(run, frame, batch, fx);
        else if (phase.kind === 'children') await onChildren(this.host, run, frame, batch, fx);
        else if (signal.kind === 'recover' && phase.kind === 'task' && !phase.submitted) this.relaunchTask(run, frame, batch, fx);
        else return 'stale';
        break;
      case 'task-outcome':
        if (phase.kind !== 'task' || frame.pos.seq !== signal.seq) return 'stale';
        if (signal.source === 'invoke' && phase.submitted) return 'stale';
        await this.onTaskOutcome(run, frame, batch, fx, signal);
        break;
      case 'timer': {
        // The row may have moved on since it was picked (a heartbeat pushed it out, a new attempt replaced it).
        const timer = this.store.getTimer(executionArn, frameId, signal.timer);
        if (frame.pos.seq !== signal.seq || !timer || timer.seq !== signal.seq || timer.due_ms > this.ctx.clock.now()) return 'stale';
        if (!(await this.onTimer(run, frame, batch, fx, signal.timer))) return 'stale';
        break;
      }
    }
    let outcome: WriteOutcome;
    try {
      outcome = await this.store.committer.commit(() => batch.write(this.store));
    } catch (err) {
      if (err instanceof StaleTransitionError) return 'stale';
      throw err;
    }
    // The run failed at its history limit instead: none of the batch's effects may happen.
    if (outcome === 'history-limit') this.hooks.onClosed(run.exec.arn);
    else this.afterCommit(run, fx);
    return 'applied';
  }

  /** `inputText` when the caller has it (a start), else read from the store when first needed. */
  private runOf(exec: ExecutionHeader, inputText?: string): Run {
    let input: { value: unknown } | undefined;
    const store = this.store;
    return {
      exec,
      tree: definitionTree(exec.definition_hash, () => store.getDefinition(exec.definition_hash)),
      // Read and parsed only when an expression reads `$states.context.Execution.Input` (up to 256 KiB).
      get input() {
        input ??= { value: JSON.parse(inputText ?? store.getExecutionInput(exec.arn)) };
        return input.value;
      },
    };
  }

  /**
   * The first transition of a new execution, computed before its row exists so that StartExecution and
   * the run's first steps share one commit. Returns what to do once `batch` (with the row) is committed.
   */
  async firstTransition(exec: ExecutionHeader & { readonly input: string }, root: FrameRecord, batch: TransitionBatch): Promise<() => void> {
    const run = this.runOf(exec, exec.input);
    const fx = new Effects();
    this.enter();
    try {
      await this.drive(run, root, batch, fx);
    } finally {
      this.leave();
    }
    return () => this.afterCommit(run, fx);
  }

  /** Resolves once no transition or commit is in flight (Task attempts are not waited for). */
  drain(): Promise<void> {
    return this.transitionsIdle();
  }

  private afterCommit(run: Run, fx: Effects): void {
    for (const launch of fx.launches) this.launch(run.exec.arn, launch);
    for (const s of fx.signals) void this.signal(run.exec.arn, s.frameId, s.signal);
    if (fx.timersChanged) this.hooks.onTimersChanged();
    if (fx.closed) this.hooks.onClosed(run.exec.arn);
  }

  // ---- context and scopes -----------------------------------------------------------------------------

  private contextObject(run: Run, frame: FrameRecord, extra: { token?: string; mapItem?: { index: number; value: unknown } } = {}): Record<string, unknown> {
    const e = run.exec;
    const context: Record<string, unknown> = {
      Execution: {
        Id: e.arn,
        get Input() {
          return run.input;
        },
        Name: e.name,
        RoleArn: e.role_arn,
        StartTime: isoTime(e.start_ms),
        RedriveCount: e.redrive_count,
        ...(e.redrive_ms !== null ? { RedriveTime: isoTime(e.redrive_ms) } : {}),
      },
      State: { EnteredTime: isoTime(frame.pos.enteredMs), Name: frame.pos.state, RetryCount: frame.pos.retryCount },
      StateMachine: { Id: e.machine_arn, Name: e.machine_name },
    };
    if (extra.token !== undefined) context.Task = { Token: extra.token };
    if (extra.mapItem) context.Map = { Item: { Index: extra.mapItem.index, Value: extra.mapItem.value } };
    return context;
  }

  private scope(run: Run, frame: FrameRecord, extra: Partial<EvaluationScope> & { token?: string; mapItem?: { index: number; value: unknown } } = {}): EvaluationScope {
    const { token, mapItem, ...rest } = extra;
    return { input: frame.pos.input, variables: frame.pos.variables, context: this.contextObject(run, frame, { token, mapItem }), ...rest };
  }

  private flowOf(run: Run, state: StateDefinition): StateDataFlow {
    return dataFlowFor(run.tree.languageOf(state));
  }

  private stateOf(run: Run, frame: FrameRecord): StateDefinition {
    return run.tree.stateAt(frame.pos.path, frame.pos.state);
  }

  /** Replaces the frame's phase and timers (every phase change goes through here). */
  private setPhase(frame: FrameRecord, batch: TransitionBatch, fx: Effects, phase: Phase, timers: { kind: TimerKind; dueMs: number }[] = []): void {
    frame.pos.phase = phase;
    frame.timers = timers;
    fx.timersChanged ||= timers.length > 0;
    batch.touch(frame);
  }

  // ---- moving through states --------------------------------------------------------------------------

  /** Runs states that need no waiting until the frame must wait (Task, Wait, children) or ends. */
  private async drive(run: Run, frame: FrameRecord, batch: TransitionBatch, fx: Effects): Promise<void> {
    // Bounded so a loop of Pass/Choice states commits in slices instead of growing one batch forever.
    for (let steps = 0; frame.status === 'RUNNING' && frame.pos.phase.kind === 'enter'; steps++) {
      if (steps >= 200) {
        batch.touch(frame);
        fx.signals.push({ frameId: frame.id, signal: { kind: 'resume' } });
        return;
      }
      const state = this.stateOf(run, frame);
      const flow = this.flowOf(run, state);
      frame.pos.enteredMs = this.ctx.clock.now();
      batch.touch(frame);
      batch.event(frame, `${state.Type}StateEntered`, { name: frame.pos.state, ...payloadDetails('input', frame.pos.input) });
      try {
        switch (state.Type) {
          case 'Pass': {
            const result = await flow.effectiveInput(state, this.scope(run, frame));
            await this.exitState(run, frame, batch, fx, state, flow, result);
            break;
          }
          case 'Choice': {
            const decision = await flow.choose(state, this.scope(run, frame));
            batch.event(frame, 'ChoiceStateExited', { name: frame.pos.state, ...payloadDetails('output', decision.output), ...assignedDetails(decision.assign) });
            this.moveTo(frame, batch, fx, decision.next, decision.output, decision.assign);
            break;
          }
          case 'Succeed': {
            await this.exitState(run, frame, batch, fx, state, flow, frame.pos.input);
            break;
          }
          case 'Fail': {
            const { error, cause } = await flow.failure(state, this.scope(run, frame));
            this.failFrame(frame, batch, fx, { error: error ?? '', cause: cause ?? '' }, ENTER);
            break;
          }
          case 'Wait': {
            const now = this.ctx.clock.now();
            const dueMs = await flow.waitUntil(state, this.scope(run, frame), now);
            frame.pos.seq += 1;
            this.setPhase(frame, batch, fx, { kind: 'wait' }, [{ kind: 'wait', dueMs }]);
            break;
          }
          case 'Task':
            await this.startTaskAttempt(run, frame, batch, fx, state);
            break;
          case 'Parallel':
            await startParallel(this.host, run, frame, batch, fx, state);
            break;
          case 'Map':
            await startMap(this.host, run, frame, batch, fx, state);
            break;
          default:
            throw Object.assign(new Error(`Unsupported state type '${state.Type}'`), { name: StatesError.Runtime });
        }
      } catch (err) {
        await this.stateFailed(run, frame, batch, fx, state, toFailure(err), ENTER);
      }
    }
  }

  /** Output and Assign of a state whose result is known, its Exited event, and the move on. */
  private async exitState(run: Run, frame: FrameRecord, batch: TransitionBatch, fx: Effects, state: StateDefinition, flow: StateDataFlow, result: unknown): Promise<void> {
    const scope = this.scope(run, frame, { result });
    const [output, assign] = await Promise.all([flow.output(state, scope), flow.assign(state, scope)]);
    const outputText = JSON.stringify(output ?? null);
    if (Buffer.byteLength(outputText) > STATES_PAYLOAD_LIMIT_BYTES) {
      throw Object.assign(new Error(`The state/task '${frame.pos.state}' returned a result with a size exceeding the maximum number of bytes service limit.`), {
        name: StatesError.DataLimitExceeded,
      });
    }
    batch.event(frame, `${state.Type}StateExited`, { name: frame.pos.state, output: outputText, outputDetails: { truncated: false }, ...assignedDetails(assign) });
    if (state.Type === 'Succeed' || state.End === true) {
      frame.pos.variables = { ...frame.pos.variables, ...assign };
      this.succeedFrame(frame, batch, fx, output);
    } else {
      this.moveTo(frame, batch, fx, state.Next as string, output, assign);
    }
  }

  private moveTo(frame: FrameRecord, batch: TransitionBatch, fx: Effects, next: string, input: unknown, assign: Record<string, unknown>): void {
    frame.pos.state = next;
    frame.pos.input = input;
    frame.pos.variables = { ...frame.pos.variables, ...assign };
    frame.pos.retries = [];
    frame.pos.retryCount = 0;
    this.setPhase(frame, batch, fx, { kind: 'enter' });
  }

  private succeedFrame(frame: FrameRecord, batch: TransitionBatch, fx: Effects, output: unknown): void {
    frame.status = 'SUCCEEDED';
    frame.pos.output = output;
    this.setPhase(frame, batch, fx, { kind: 'closed' });
    if (frame.id === ROOT_FRAME_ID) {
      batch.event(frame, 'ExecutionSucceeded', payloadDetails('output', output));
      this.closeExecution(batch, fx, { status: 'SUCCEEDED', output: JSON.stringify(output ?? null) });
      return;
    }
    if (frame.pos.mapItem) batch.event(frame, 'MapIterationSucceeded', { name: mapStateName(frame.pos), index: frame.itemIndex });
    fx.signals.push({ frameId: parentFrameId(frame), signal: { kind: 'resume' } });
  }

  private failFrame(frame: FrameRecord, batch: TransitionBatch, fx: Effects, failure: StateFailure, resume: ClosedResume): void {
    frame.status = 'FAILED';
    frame.pos.error = failure.error;
    frame.pos.cause = failure.cause;
    this.setPhase(frame, batch, fx, { kind: 'closed', resume });
    if (frame.id === ROOT_FRAME_ID) {
      batch.event(frame, 'ExecutionFailed', { error: failure.error, cause: failure.cause });
      this.closeExecution(batch, fx, { status: 'FAILED', error: failure.error, cause: failure.cause });
      return;
    }
    if (frame.pos.mapItem) batch.event(frame, 'MapIterationFailed', { name: mapStateName(frame.pos), index: frame.itemIndex });
    fx.signals.push({ frameId: parentFrameId(frame), signal: { kind: 'resume' } });
  }

  private closeExecution(batch: TransitionBatch, fx: Effects, close: ExecutionClose): void {
    batch.closeExecution(close);
    fx.closed = true;
  }

  /**
   * A state failed: the first matching Retrier schedules another attempt while it has attempts left,
   * else the first matching Catcher moves on, else the frame fails (and with it the parent or the run).
   */
  private async stateFailed(run: Run, frame: FrameRecord, batch: TransitionBatch, fx: Effects, state: StateDefinition, failure: StateFailure, resume: ClosedResume): Promise<void> {
    const canRecover = state.Type === 'Task' || state.Type === 'Parallel' || state.Type === 'Map';
    if (canRecover) {
      const retry = state.Retry as Retrier[] | undefined;
      const index = findRetrier(retry, failure.error);
      if (index >= 0) {
        const retrier = retry![index];
        const used = frame.pos.retries[index] ?? 0;
        if (retrierAllows(retrier, used)) {
          const delay = retryDelayMillis(retrier, used, this.ctx.random);
          frame.pos.retries[index] = used + 1;
          frame.pos.retryCount += 1;
          frame.pos.seq += 1;
          this.setPhase(frame, batch, fx, { kind: 'retry' }, [{ kind: 'retry', dueMs: this.ctx.clock.now() + delay }]);
          return;
        }
      }
      const catcher = findCatcher(state.Catch as Catcher[] | undefined, failure.error);
      if (catcher) {
        try {
          const errorOutput = { Error: failure.error, Cause: failure.cause };
          const { output, assign } = await this.flowOf(run, state).catchOutput(catcher, this.scope(run, frame, { errorOutput }));
          // The service exits a state whose error was caught, with the Catch's output.
          batch.event(frame, `${state.Type}StateExited`, { name: frame.pos.state, ...payloadDetails('output', output), ...assignedDetails(assign) });
          this.moveTo(frame, batch, fx, catcher.Next, output, assign);
          return;
        } catch (err) {
          failure = toFailure(err);
        }
      }
    }
    this.failFrame(frame, batch, fx, failure, resume);
  }

  // ---- Task --------------------------------------------------------------------------------------------

  private async startTaskAttempt(run: Run, frame: FrameRecord, batch: TransitionBatch, fx: Effects, state: StateDefinition): Promise<void> {
    const target = resolveTaskTarget(state.Resource as string);
    const token = target.pattern === 'waitForTaskToken' ? newTaskToken() : undefined;
    const flow = this.flowOf(run, state);
    const scope = this.scope(run, frame, { token });
    const args = await flow.effectiveInput(state, scope);
    const { timeoutSeconds, heartbeatSeconds } = await flow.taskTimeouts(state, scope);
    frame.pos.seq += 1;
    const now = this.ctx.clock.now();
    const timers: { kind: TimerKind; dueMs: number }[] = [];
    if (timeoutSeconds !== undefined) timers.push({ kind: 'task-timeout', dueMs: now + timeoutSeconds * 1000 });
    if (heartbeatSeconds !== undefined) timers.push({ kind: 'heartbeat', dueMs: now + heartbeatSeconds * 1000 });
    this.setPhase(
      frame,
      batch,
      fx,
      { kind: 'task', args, ...(token ? { token } : {}), ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}), ...(heartbeatSeconds !== undefined ? { heartbeatSeconds } : {}) },
      timers,
    );
    if (token) batch.openToken(token, frame, frame.pos.seq);
    if (target.service === 'lambda-function') {
      batch.event(frame, 'LambdaFunctionScheduled', {
        resource: target.resource,
        ...payloadDetails('input', args),
        ...(timeoutSeconds !== undefined ? { timeoutInSeconds: timeoutSeconds } : {}),
      });
      batch.event(frame, 'LambdaFunctionStarted');
    } else {
      batch.event(frame, 'TaskScheduled', {
        resourceType: target.resourceType,
        resource: target.resource,
        region: this.ctx.scope.region,
        parameters: JSON.stringify(args ?? null),
        ...(timeoutSeconds !== undefined ? { timeoutInSeconds: timeoutSeconds } : {}),
        ...(heartbeatSeconds !== undefined ? { heartbeatInSeconds: heartbeatSeconds } : {}),
      });
      batch.event(frame, 'TaskStarted', { resourceType: target.resourceType, resource: target.resource });
    }
    fx.launches.push({ frame, seq: frame.pos.seq, target, args });
  }

  /** After a restart: the attempt was scheduled but its result never committed — invoke it again. */
  private relaunchTask(run: Run, frame: FrameRecord, batch: TransitionBatch, fx: Effects): void {
    const state = this.stateOf(run, frame);
    const phase = frame.pos.phase as Extract<Phase, { kind: 'task' }>;
    const target = resolveTaskTarget(state.Resource as string);
    batch.touch(frame);
    batch.event(frame, taskEventType(target, 'Started'), target.service === 'lambda-function' ? undefined : { resourceType: target.resourceType, resource: target.resource });
    fx.launches.push({ frame, seq: frame.pos.seq, target, args: phase.args, replay: true });
  }

  /** Runs a Task attempt's work outside any lock and signals its outcome. */
  private launch(executionArn: string, launch: Launch): void {
    const parentTask =
      launch.target.service === 'states' && launch.target.pattern === 'sync'
        ? { executionArn, frameId: launch.frame.id, seq: launch.seq, outputAsJson: launch.target.resource.endsWith(':2') }
        : undefined;
    const invocation: Promise<unknown> = runTaskIntegration(this.services, launch.target, launch.args, { parentTask, replay: launch.replay })
      .catch((err: unknown): TaskOutcome => ({ ok: false, error: StatesError.TaskFailed, cause: (err as Error)?.message ?? String(err) }))
      .then((outcome) => this.signal(executionArn, launch.frame.id, { kind: 'task-outcome', seq: launch.seq, source: 'invoke', outcome }))
      .finally(() => this.invocations.delete(invocation));
    this.invocations.add(invocation);
  }

  private async onTaskOutcome(
    run: Run,
    frame: FrameRecord,
    batch: TransitionBatch,
    fx: Effects,
    signal: Extract<FrameSignal, { kind: 'task-outcome' }>,
  ): Promise<void> {
    const state = this.stateOf(run, frame);
    const target = resolveTaskTarget(state.Resource as string);
    const phase = frame.pos.phase as Extract<Phase, { kind: 'task' }>;
    const { outcome } = signal;
    const waits = target.pattern !== 'request';
    batch.touch(frame);
    if (signal.source === 'invoke' && waits && outcome.ok) {
      // The callback/child run is on its way; the task now waits for its token (or child) at no cost.
      batch.event(frame, 'TaskSubmitted', { resourceType: target.resourceType, resource: target.resource, ...payloadDetails('output', outcome.value) });
      frame.pos.phase = { ...phase, submitted: true };
      return;
    }
    if (phase.token) batch.closeToken(phase.token);
    if (!outcome.ok) {
      const details = target.service === 'lambda-function' ? { error: outcome.error, cause: outcome.cause } : { resourceType: target.resourceType, resource: target.resource, error: outcome.error, cause: outcome.cause };
      batch.event(frame, taskEventType(target, 'Failed'), details);
      await this.stateFailed(run, frame, batch, fx, state, { error: outcome.error, cause: outcome.cause }, ENTER);
    } else {
      const outputDetails = payloadDetails('output', outcome.value);
      batch.event(frame, taskEventType(target, 'Succeeded'), target.service === 'lambda-function' ? outputDetails : { resourceType: target.resourceType, resource: target.resource, ...outputDetails });
      try {
        await this.exitState(run, frame, batch, fx, state, this.flowOf(run, state), outcome.value);
      } catch (err) {
        await this.stateFailed(run, frame, batch, fx, state, toFailure(err), ENTER);
      }
    }
    await this.drive(run, frame, batch, fx);
  }

  private async onTimer(run: Run, frame: FrameRecord, batch: TransitionBatch, fx: Effects, timer: TimerKind): Promise<boolean> {
    const phase = frame.pos.phase;
    const state = this.stateOf(run, frame);
    if (timer === 'wait' && phase.kind === 'wait') {
      try {
        await this.exitState(run, frame, batch, fx, state, this.flowOf(run, state), frame.pos.input);
      } catch (err) {
        await this.stateFailed(run, frame, batch, fx, state, toFailure(err), ENTER);
      }
    } else if (timer === 'retry' && phase.kind === 'retry') {
      try {
        if (state.Type === 'Task') await this.startTaskAttempt(run, frame, batch, fx, state);
        else if (state.Type === 'Parallel') await startParallel(this.host, run, frame, batch, fx, state);
        else await startMap(this.host, run, frame, batch, fx, state);
      } catch (err) {
        await this.stateFailed(run, frame, batch, fx, state, toFailure(err), ENTER);
      }
    } else if ((timer === 'task-timeout' || timer === 'heartbeat') && phase.kind === 'task') {
      const target = resolveTaskTarget(state.Resource as string);
      const error = timer === 'heartbeat' ? StatesError.HeartbeatTimeout : StatesError.Timeout;
      if (phase.token) batch.closeToken(phase.token);
      batch.touch(frame);
      batch.event(
        frame,
        taskEventType(target, 'TimedOut'),
        target.service === 'lambda-function' ? { error, cause: '' } : { resourceType: target.resourceType, resource: target.resource, error, cause: '' },
      );
      await this.stateFailed(run, frame, batch, fx, state, { error, cause: '' }, ENTER);
    } else {
      return false;
    }
    await this.drive(run, frame, batch, fx);
    return true;
  }

}

/** The frame id of a child's parent: a child id is `<parent>.<spawn>.<index>`. */
export function parentFrameId(frame: FrameRecord): string {
  const group = frame.parentId as string;
  return group.slice(0, group.lastIndexOf('.'));
}

/** The Map state an iteration frame belongs to (its path ends with `[mapState, 'items']`). */
const mapStateName = (pos: FramePosition): string => pos.path[pos.path.length - 2] as string;
