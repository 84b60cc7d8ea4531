/**
 * EXPRESS runs as the service runs them: started with StartSyncExecution (the caller waits for the end
 * and gets status, output and billing in the answer) or asynchronously with StartExecution, at most five
 * minutes each, and never recorded where Describe/List/history could find them. They live in an
 * in-memory store with its own executor and timers — the same kernel as STANDARD runs, minus the fsync —
 * and are removed as soon as they close.
 */
import type { Clock } from '@autosave/workflow/config';
import { EngineStore, type ExecutionRow, IN_MEMORY_STORE, type TimerRow } from './store';
import * as executions from './api/executions';
import type { ExecutionRuntime } from './api/executions';
import { requireStateMachine } from './api/state-machines';
import { epochSeconds, requireString } from './api/wire';
import { expressExecutionArn, parseStateMachineArn, type ArnScope } from './arns';
import type { ExpressionLimits } from './dataflow';
import type { DefinitionCache } from './definition';
import { EXECUTION_TIMER_FRAME, Executor } from './executor/executor';
import { toWireEvent } from './executor/history';
import type { TimerKind } from './executor/frame';
import type { IntegrationServices } from './executor/task-integrations';
import { TimerService } from './executor/timer-service';
import { MockedRuns, splitTestCase } from './mocks';
import { assertValidName } from './names';
import { ServiceUnavailable, StateMachineTypeNotSupported } from './service-errors';
import { randomUUID } from 'node:crypto';

/**
 * Memory Step Functions bills an express run for: the service rounds the memory a run uses up to
 * 64-MB chunks, and a run of small payloads uses less than one.
 */
export const EXPRESS_BILLED_MEMORY_MB = 64;
/** Express runs are billed by duration in 100 ms increments (rounded up). */
export const EXPRESS_BILLING_INCREMENT_MILLIS = 100;

/**
 * An EXPRESS run in the API's wire shapes (DescribeExecution's, GetExecutionHistory's events with their data),
 * as it closed or as it stands: what the service sends to a machine's CloudWatch Logs at level ALL with
 * execution data, the only place an express run can be read back on AWS.
 */
export interface ExpressRunSnapshot {
  readonly description: Readonly<Record<string, unknown>>;
  readonly events: readonly Readonly<Record<string, unknown>>[];
}

/** What {@link ExpressRuns} needs of the engine. */
export interface ExpressRunsOptions {
  readonly clock: Clock;
  readonly scope: ArnScope;
  readonly random: () => number;
  /** The engine's prepared definitions (express runs read the same stored definitions). */
  readonly definitions: DefinitionCache;
  readonly services: IntegrationServices;
  /** A closed express run started as a `.sync` child: tell its parent (the row is gone right after). */
  readonly notifyParent: (row: ExecutionRow) => Promise<void>;
  /** The budget of each JSONata evaluation. @default DEFAULT_EXPRESSION_LIMITS */
  readonly expressionLimits?: ExpressionLimits;
  /** Told of each express run as it closes, before it is forgotten (see {@link ExpressRunSnapshot}). @default nobody */
  readonly onRunClosed?: (run: ExpressRunSnapshot) => void;
}

/** The in-memory home of express runs. */
export class ExpressRuns {
  /** The runtime StartExecution puts express runs in (`ExecutionRuntime.express`). */
  readonly runtime: ExecutionRuntime;
  private readonly store = new EngineStore(IN_MEMORY_STORE, { historyEventLimit: Number.POSITIVE_INFINITY });
  private readonly executor: Executor;
  private readonly timers: TimerService;
  private readonly waiters = new Map<
    string,
    { resolve: (row: ExecutionRow) => void; reject: (err: unknown) => void }
  >();

  constructor(private readonly options: ExpressRunsOptions) {
    const ctx = {
      store: this.store,
      clock: options.clock,
      scope: options.scope,
      random: options.random,
      definitions: options.definitions,
      mocks: new MockedRuns(this.store),
      expressionLimits: options.expressionLimits,
    };
    this.executor = new Executor(ctx, options.services, {
      onClosed: (arn) => this.closed(arn),
      onTimersChanged: () => this.timers.arm(),
      // A run someone waits on is a StartSyncExecution run: AWS gives its `$$.Execution` no RedriveCount.
      withoutRedriveCount: (arn) => this.waiters.has(arn),
    });
    this.timers = new TimerService(
      this.store,
      options.clock,
      (t) => this.fireTimer(t),
      () => this.whenIdle(),
    );
    this.runtime = {
      ...ctx,
      executor: this.executor,
      armTimers: () => this.timers.arm(),
      executionClosed: (arn) => this.closed(arn),
    };
  }

  /**
   * StartSyncExecution: runs an EXPRESS machine (or its version or alias) to its end and answers with the
   * outcome. A run that fails still answers 200, with `status` FAILED and its error and cause.
   */
  async startSync(rt: ExecutionRuntime, input: Record<string, unknown>): Promise<object> {
    const target = parseStateMachineArn(splitTestCase(requireString(input, 'stateMachineArn')).stateMachineArn);
    const machine = requireStateMachine(rt, target.stateMachineArn);
    if (machine.type !== 'EXPRESS')
      throw new StateMachineTypeNotSupported('This operation is not supported by this type of state machine');
    const name = input.name === undefined || input.name === null ? randomUUID() : assertValidName(input.name, 'Name');
    const arn = expressExecutionArn(rt.scope, machine.name, name, randomUUID());
    const closed = new Promise<ExecutionRow>((resolve, reject) => this.waiters.set(arn, { resolve, reject }));
    try {
      await executions.startExecution(rt, { ...input, name }, {}, { expressExecutionArn: arn });
    } catch (err) {
      this.waiters.delete(arn);
      throw err;
    }
    return syncExecutionResult(await closed, target.stateMachineArn);
  }

  /**
   * The runs in flight, newest first, at most `limit`: read where the service keeps nothing, for a local
   * console that shows a run before it ends.
   */
  inFlight(limit: number): readonly ExpressRunSnapshot[] {
    const now = this.options.clock.now();
    return this.store.runningExecutions(limit).map((row) => this.snapshot(row, now));
  }

  /** Resolves once no express transition, commit or Task attempt is in flight. */
  async whenIdle(): Promise<void> {
    do await this.executor.whenIdle();
    while (await this.timers.flushImmediate());
  }

  /** Stops: runs in flight are dropped (the service keeps no express state), waiting callers get ServiceUnavailable. */
  async stop(): Promise<void> {
    this.timers.stop();
    this.executor.stop();
    await this.executor.drain();
    for (const waiter of this.waiters.values())
      waiter.reject(new ServiceUnavailable('The local engine stopped before the express execution ended'));
    this.waiters.clear();
    this.store.close();
  }

  /** After an express run's close was committed: answer its caller, tell a parent, forget it. */
  private closed(arn: string): void {
    const row = this.store.getExecution(arn);
    if (!row || row.status === 'RUNNING') return;
    this.waiters.get(arn)?.resolve(row);
    this.waiters.delete(arn);
    if (this.options.onRunClosed) {
      try {
        this.options.onRunClosed(this.snapshot(row, this.options.clock.now()));
      } catch (err) {
        console.error(`autosave engine: the record of express run ${arn} could not be handed on`, err);
      }
    }
    const parentTold = row.parent_task ? this.options.notifyParent(row) : Promise.resolve();
    void parentTold
      .catch((err: unknown) =>
        console.error(`autosave engine: the parent of express run ${arn} could not take its outcome`, err),
      )
      .finally(() => {
        this.runtime.mocks.forget(arn);
        return this.store.committer.commit(() => this.store.deleteExecution(arn)).catch(() => undefined);
      });
  }

  private snapshot(row: ExecutionRow, nowMs: number): ExpressRunSnapshot {
    return {
      description: executions.describeExecutionRow(row, nowMs),
      events: this.store.historyPage(row.arn, 'ASC', 0, Number.MAX_SAFE_INTEGER).map((e) => toWireEvent(e, true)),
    };
  }

  private async fireTimer(timer: TimerRow): Promise<void> {
    if (timer.frame_id === EXECUTION_TIMER_FRAME) {
      await executions.timeOutExecution(this.runtime, timer.execution_arn);
      return;
    }
    await this.executor.signal(timer.execution_arn, timer.frame_id, {
      kind: 'timer',
      timer: timer.kind as TimerKind,
      seq: timer.seq,
    });
  }
}

/** The StartSyncExecution answer for a closed express run. */
function syncExecutionResult(row: ExecutionRow, stateMachineArn: string): object {
  const stopMs = row.stop_ms ?? row.start_ms;
  const billedMillis =
    Math.max(1, Math.ceil((stopMs - row.start_ms) / EXPRESS_BILLING_INCREMENT_MILLIS)) *
    EXPRESS_BILLING_INCREMENT_MILLIS;
  return {
    executionArn: row.arn,
    stateMachineArn,
    name: row.name,
    startDate: epochSeconds(row.start_ms),
    stopDate: epochSeconds(stopMs),
    status: row.status,
    ...(row.error !== null ? { error: row.error } : {}),
    ...(row.cause !== null ? { cause: row.cause } : {}),
    input: row.input,
    inputDetails: { included: true },
    // AWS says outputDetails.included even when a failed run has no output.
    ...(row.output !== null ? { output: row.output } : {}),
    outputDetails: { included: true },
    billingDetails: { billedMemoryUsedInMB: EXPRESS_BILLED_MEMORY_MB, billedDurationInMilliseconds: billedMillis },
  };
}
