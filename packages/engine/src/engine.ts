import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  CLOSED_EXECUTION_RETENTION_DAYS,
  type Clock,
  LOCAL_ACCOUNT_ID,
  LOCAL_REGION,
  systemClock,
} from '@autosave/workflow/config';
import {
  definitionHash,
  EngineStore,
  type ExecutionRow,
  type ImportedRunRow,
  importedRunOf,
  mockedRunTestCase,
  mockInvocations,
  type StoreLocking,
  type TimerRow,
} from './store';
import {
  importRun,
  type RunImportAnswer,
  type RunImportHeader,
  type RunImportOptions,
  type WireHistoryEvent,
} from './imports';
import { StatesError } from '@autosave/workflow/errors';
import * as executions from './api/executions';
import type { ExecutionRuntime } from './api/executions';
import * as machines from './api/state-machines';
import * as tokens from './api/task-tokens';
import * as activities from './api/activities';
import { ACTIVITY_POLL_MILLIS, ActivityWorkers } from './activity-workers';
import { CloseWaiters } from './close-waiters';
import type { ArnScope } from './arns';
import { DefinitionCache } from './definition';
import { EXECUTION_TIMER_FRAME, Executor } from './executor/executor';
import type { RecordedTaskOutcome } from './executor/step';
import type { TimerKind } from './executor/frame';
import type {
  IntegrationServices,
  ParentTaskLink,
  TaskCallAuthorizer,
  TaskOutcome,
} from './executor/task-integrations';
import { TimerService } from './executor/timer-service';
import type { ServicePorts } from './executor/service-ports';
import { ExpressRuns, type ExpressRunSnapshot } from './express-runs';
import { MockedRuns, type MockTestCase, type MockTestCases } from './mocks';
import { testState } from './test-state';
import type { LambdaInvoker } from './lambda-invoker';
import { UnknownOperationException, ValidationException } from './service-errors';
import { DEFAULT_EXPRESSION_LIMITS, type ExpressionLimits } from './dataflow';
import { LongEvaluations } from './executor/long-evaluations';

/** The directory of the data directory where long evaluations are written down (executor/long-evaluations.ts). */
const LONG_EVALUATIONS_DIR = 'long-evaluations';

/** The EventBridge event the engine hands to {@link EngineOptions.onExecutionClosed}. */
export type ExecutionStatusChangeEvent = Record<string, unknown> & {
  readonly 'detail-type': 'Step Functions Execution Status Change';
  readonly detail: Record<string, unknown> & { readonly status: string; readonly executionArn: string };
};

/** How long `stop()` waits for transitions under way to commit. */
export const STOP_DRAIN_MILLIS = 5_000;

/** How long a closed execution is kept before the sweep removes it with its history: 90 days, as on AWS. */
export const DEFAULT_CLOSED_EXECUTION_RETENTION_MILLIS = CLOSED_EXECUTION_RETENTION_DAYS * 24 * 3600 * 1000;
/** How often the retention sweep runs (it also runs at every start). */
export const RETENTION_SWEEP_INTERVAL_MILLIS = 3600 * 1000;
/** Executions one sweep transaction removes. */
const RETENTION_SWEEP_BATCH = 500;

/** Statuses the emulated EventBridge rule matches (docs/architecture.md §4). */
export const DEFAULT_CLOSED_STATUSES: readonly string[] = ['FAILED', 'TIMED_OUT', 'ABORTED'];

/** Options of {@link Engine}. */
export interface EngineOptions {
  /** Directory of the engine's SQLite database (created when missing). */
  readonly dataDir: string;
  /**
   * How the database file is locked while the engine runs: `shared` lets other connections read it meanwhile
   * (the sqlite3 shell, a backup), at some cost per statement (see `StoreLocking`).
   * @default 'exclusive'
   */
  readonly storeLocking?: StoreLocking;
  /** Runs Lambda functions for Tasks. */
  readonly invokeLambda: LambdaInvoker;
  /**
   * The one source of time. Pass a `VirtualClock` to skip time in tests.
   * @default systemClock
   */
  readonly clock?: Clock;
  /** @default LOCAL_REGION */
  readonly region?: string;
  /** @default LOCAL_ACCOUNT_ID */
  readonly accountId?: string;
  /**
   * SDK clients (pointed at the local services) for the `sqs:sendMessage` and DynamoDB Task integrations,
   * and for a Distributed Map's S3 `ItemReader` and `ResultWriter`; and the ports of the emulated services
   * (SNS, EventBridge, CloudWatch, the model provider, HTTP connections) and the pass-through to real
   * endpoints (docs/integrations.md). A Task whose service is missing here fails, saying how to serve it.
   */
  readonly integrations?: {
    readonly sqs?: SQSClient;
    readonly dynamodb?: DynamoDBClient;
    readonly s3?: S3Client;
  } & ServicePorts;
  /**
   * Emulates an EventBridge rule on "Step Functions Execution Status Change": called (at least once, also
   * after a crash) when an execution closes with one of {@link closedStatuses}.
   */
  readonly onExecutionClosed?: (event: ExecutionStatusChangeEvent) => Promise<void>;
  /**
   * The statuses `onExecutionClosed` is called for.
   * @default DEFAULT_CLOSED_STATUSES
   */
  readonly closedStatuses?: readonly string[];
  /**
   * Uniform random numbers in [0, 1) for alias routing and retry jitter (inject for deterministic tests).
   * @default Math.random
   */
  readonly random?: () => number;
  /**
   * Asked before a `.waitForTaskToken` task times out, for an outcome recorded outside the engine that
   * never reached it (an approval decided in time, its SendTaskSuccess cut off by a crash); a recorded
   * outcome is delivered instead of the timeout. @default nothing is recorded outside the engine
   */
  readonly recordedTaskOutcome?: RecordedTaskOutcome;
  /**
   * Asked before every Task integration call (each attempt) whether the execution's role may make it: a
   * denial fails the attempt with the error and cause it gives, as the service fails a call its role
   * does not allow. The engine knows no IAM itself; the stack mode's `--enforce-iam` supplies one.
   * @default every call is allowed (IAM is not enforced)
   */
  readonly authorizeTaskCall?: TaskCallAuthorizer;
  /**
   * How long a closed execution is kept (DescribeExecution, history, ListExecutions, its name reserved)
   * before it is removed with its history, frames, timers and tokens, and the file gives the space back.
   * @default DEFAULT_CLOSED_EXECUTION_RETENTION_MILLIS (90 days)
   */
  readonly closedExecutionRetentionMillis?: number;
  /**
   * The mock config (Step Functions Local's MockConfigFile format) a start on `<stateMachineArn>#<TestCase>`
   * selects a test case from: a parsed `MockConfig`, or a source that re-reads its file when it changes.
   * A run keeps the test case it started with (a restart or a changed file does not change it).
   * @default none: a start with `#<TestCase>` is refused with InvalidName
   */
  readonly mockConfig?: MockTestCases;
  /**
   * Told after CreateStateMachine/UpdateStateMachine stored a definition with Tasks whose integration AWS
   * knows but the engine does not serve (they fail at run time with `Local.IntegrationNotServed`): one
   * WARNING diagnostic per Task, as ValidateStateMachineDefinition answers them. `autosave local` prints them.
   * @default nobody is told
   */
  readonly onDefinitionWarnings?: (stateMachineArn: string, warnings: readonly DefinitionWarning[]) => void;
  /**
   * Told of each EXPRESS run as it closes, with its description and whole history, before the engine forgets it
   * (the service keeps no express run: on AWS they are read back from CloudWatch Logs). `autosave local`'s
   * console lists them. @default nobody is told
   */
  readonly onExpressRunClosed?: (run: ExpressRunSnapshot) => void;
  /**
   * How long GetActivityTask holds a poll that finds no task before it answers without one (wall-clock
   * time: it is how long an HTTP request stays open, whatever the engine clock).
   * @default ACTIVITY_POLL_MILLIS (60 seconds, as the service)
   */
  readonly activityPollMillis?: number;
  /**
   * The budget of each JSONata evaluation (time, depth, size of what one step builds), in runs and in
   * TestState: an expression past it fails its state with States.QueryEvaluationError naming the budget.
   * Fields left out keep their default.
   * @default DEFAULT_EXPRESSION_LIMITS
   */
  readonly expressionLimits?: Partial<ExpressionLimits>;
  /**
   * How long a state's evaluation runs before it is written down in the data directory and named in the
   * log: if the engine stops before it ends, the next start fails that state instead of evaluating it again.
   * @default DEFAULT_LONG_EVALUATION_MILLIS (1 second)
   */
  readonly longEvaluationMillis?: number;
}

/** A WARNING diagnostic of a stored definition (ValidateStateMachineDefinition's shape). */
export type DefinitionWarning = ReturnType<typeof machines.unservedDiagnostic>;

type Handler = (input: Record<string, unknown>) => object | Promise<object>;

/** A mocked run as {@link Engine.mockedRun} shows it. */
export interface MockedRunView {
  readonly stateMachine: string;
  readonly testCase: string;
  /** The states the test case mocks: their response and the invocation numbers taken so far (in order). */
  readonly states: Readonly<Record<string, { readonly response: string; readonly invocations: readonly number[] }>>;
}

/**
 * The embedded Step Functions engine. `handle(operation, input)` takes and returns the service's wire
 * shapes (AWS JSON 1.0) and throws {@link SfnServiceError}s named by their `__type`. Every transition is
 * committed to SQLite (WAL, synchronous=FULL, group commit) before it takes effect; `start()` carries on
 * every RUNNING execution from where it stopped.
 */
export class Engine {
  readonly clock: Clock;
  readonly scope: ArnScope;
  private readonly options: EngineOptions;
  private readonly expressionLimits: ExpressionLimits;
  private store?: EngineStore;
  private executor?: Executor;
  private timers?: TimerService;
  private runtime?: ExecutionRuntime;
  private express?: ExpressRuns;
  /** The Task integrations of the started engine (a TestState of an un-mocked Task calls them too). */
  private integrations?: IntegrationServices;
  private stopping?: Promise<void>;
  /** The close hooks under way ({@link EngineOptions.onExecutionClosed}, a `.sync` parent's notice), for {@link closeHooksSettled}. */
  private readonly closeHooks = new Set<Promise<void>>();
  private sweepTimer?: NodeJS.Timeout;
  private readonly handlers: Record<string, Handler>;
  /** The workers waiting in GetActivityTask (made anew at every start: a stop ends them). */
  private workers = new ActivityWorkers();
  /** Callers of {@link describeWhenClosed} waiting for their run's close. */
  private readonly closeWaiters = new CloseWaiters();

  constructor(options: EngineOptions) {
    this.options = options;
    this.expressionLimits = { ...DEFAULT_EXPRESSION_LIMITS, ...options.expressionLimits };
    this.clock = options.clock ?? systemClock;
    this.scope = { region: options.region ?? LOCAL_REGION, accountId: options.accountId ?? LOCAL_ACCOUNT_ID };
    const rt = () => this.rt();
    this.handlers = {
      CreateStateMachine: async (i) => this.warned(i, await machines.createStateMachine(rt(), i)),
      UpdateStateMachine: async (i) => this.warned(i, await machines.updateStateMachine(rt(), i)),
      DescribeStateMachine: (i) => machines.describeStateMachine(rt(), i),
      ListStateMachines: (i) => machines.listStateMachines(rt(), i),
      ValidateStateMachineDefinition: (i) => machines.validateStateMachineDefinition(rt(), i),
      DeleteStateMachine: (i) => machines.deleteStateMachine(rt(), i),
      PublishStateMachineVersion: (i) => machines.publishStateMachineVersion(rt(), i),
      ListStateMachineVersions: (i) => machines.listStateMachineVersions(rt(), i),
      DeleteStateMachineVersion: (i) =>
        machines.deleteStateMachine(rt(), { stateMachineArn: i.stateMachineVersionArn }),
      CreateStateMachineAlias: (i) => machines.createStateMachineAlias(rt(), i),
      UpdateStateMachineAlias: (i) => machines.updateStateMachineAlias(rt(), i),
      DescribeStateMachineAlias: (i) => machines.describeStateMachineAlias(rt(), i),
      ListStateMachineAliases: (i) => machines.listStateMachineAliases(rt(), i),
      DeleteStateMachineAlias: (i) => machines.deleteStateMachineAlias(rt(), i),
      StartExecution: (i) => executions.startExecution(rt(), i),
      StartSyncExecution: (i) => (this.express as ExpressRuns).startSync(rt(), i),
      DescribeExecution: (i) => executions.describeExecution(rt(), i),
      DescribeStateMachineForExecution: (i) => executions.describeStateMachineForExecution(rt(), i),
      ListExecutions: (i) => executions.listExecutions(rt(), i),
      GetExecutionHistory: (i) => executions.getExecutionHistory(rt(), i),
      StopExecution: (i) => executions.stopExecution(rt(), i),
      RedriveExecution: (i) => executions.redriveExecution(rt(), i),
      SendTaskSuccess: (i) => tokens.sendTaskSuccess(rt(), i),
      SendTaskFailure: (i) => tokens.sendTaskFailure(rt(), i),
      SendTaskHeartbeat: (i) => tokens.sendTaskHeartbeat(rt(), i),
      TestState: (i) => testState(this.testStateServices(), i),
      CreateActivity: (i) => activities.createActivity(rt(), i),
      DescribeActivity: (i) => activities.describeActivity(rt(), i),
      ListActivities: (i) => activities.listActivities(rt(), i),
      DeleteActivity: (i) => activities.deleteActivity(rt(), i),
      GetActivityTask: (i) => activities.getActivityTask(rt(), this.workers, i),
    };
  }

  /** The operations `handle` serves. */
  get operations(): readonly string[] {
    return Object.keys(this.handlers);
  }

  /** Opens the store and resumes every RUNNING execution (and undelivered close events). */
  async start(): Promise<void> {
    if (this.store) return;
    const store = new EngineStore(this.options.dataDir, { locking: this.options.storeLocking });
    this.store = store;
    this.workers = new ActivityWorkers(this.options.activityPollMillis ?? ACTIVITY_POLL_MILLIS);
    const definitions = new DefinitionCache(store);
    const mocks = new MockedRuns(store);
    mocks.load();
    const longEvaluations = new LongEvaluations(
      join(this.options.dataDir, LONG_EVALUATIONS_DIR),
      (line) => console.error(line),
      this.options.longEvaluationMillis,
    );
    longEvaluations.recover();
    const ctx = {
      store,
      clock: this.clock,
      scope: this.scope,
      random: this.options.random ?? Math.random,
      definitions,
      mocks,
      expressionLimits: this.expressionLimits,
      longEvaluations,
    };
    const services: IntegrationServices = {
      invokeLambda: this.options.invokeLambda,
      sqs: this.options.integrations?.sqs,
      dynamodb: this.options.integrations?.dynamodb,
      s3: this.options.integrations?.s3,
      ports: this.options.integrations ?? {},
      startExecution: (input, child) => executions.startExecution(this.rt(), input, child),
      stepFunctions: (operation, input) => this.handle(operation, input),
      authorize: this.options.authorizeTaskCall,
      clock: this.clock,
      scope: this.scope,
    };
    this.integrations = services;
    const executor = new Executor(ctx, services, {
      onClosed: (arn) => this.executionClosed(arn),
      onTimersChanged: () => this.timers?.arm(),
      onActivityScheduled: (arn) => this.workers.notify(arn),
      recordedTaskOutcome: this.options.recordedTaskOutcome,
    });
    this.executor = executor;
    this.timers = new TimerService(
      store,
      this.clock,
      (t) => this.fireTimer(t),
      () => this.whenIdle(),
    );
    const express = new ExpressRuns({
      clock: this.clock,
      scope: this.scope,
      random: ctx.random,
      definitions,
      services,
      expressionLimits: this.expressionLimits,
      notifyParent: (row) => this.notifyParentTask(row),
      ...(this.options.onExpressRunClosed ? { onRunClosed: this.options.onExpressRunClosed } : {}),
    });
    this.express = express;
    this.runtime = {
      ...ctx,
      executor,
      armTimers: () => this.timers?.arm(),
      executionClosed: (arn) => this.executionClosed(arn),
      express: express.runtime,
      mockConfig: this.options.mockConfig,
    };
    // What an import cut off by a crash staged is dropped (before any import of this start stages anything).
    void store.committer
      .commit(() => store.dropStagedImport())
      .catch((err: unknown) => console.error('autosave engine: dropping staged imports failed', err));
    executor.resumeRunning('recover');
    for (const arn of store.closeNotifications()) this.executionClosed(arn);
    this.timers.arm();
    void this.sweepClosedExecutions().catch((err: unknown) =>
      console.error('autosave engine: retention sweep failed', err),
    );
    this.sweepTimer = setInterval(
      () =>
        void this.sweepClosedExecutions().catch((err: unknown) =>
          console.error('autosave engine: retention sweep failed', err),
        ),
      RETENTION_SWEEP_INTERVAL_MILLIS,
    );
    this.sweepTimer.unref();
  }

  /**
   * Removes closed executions older than the retention period (on the engine clock), each with its
   * history, frames, timers and tokens, then returns the freed pages to the file system. Resolves with
   * how many went. Runs at start and every {@link RETENTION_SWEEP_INTERVAL_MILLIS}.
   */
  async sweepClosedExecutions(): Promise<number> {
    const store = this.store;
    if (!store) return 0;
    const cutoff =
      this.clock.now() - (this.options.closedExecutionRetentionMillis ?? DEFAULT_CLOSED_EXECUTION_RETENTION_MILLIS);
    let removed = 0;
    for (;;) {
      if (this.store !== store) return removed;
      const arns = store.closedBefore(cutoff, RETENTION_SWEEP_BATCH);
      if (arns.length === 0) break;
      await store.committer.commit(() => arns.forEach((arn) => store.deleteExecution(arn)));
      removed += arns.length;
    }
    if (removed > 0 && this.store === store) await store.committer.commit(() => store.releaseFreePages());
    return removed;
  }

  /** Stops taking work, lets in-flight transitions commit, and closes the store (a second call waits for the first). */
  /**
   * DescribeExecution of the run once it has closed, answered the moment its close is committed; still
   * RUNNING when `waitMillis` passed first (or the engine stopped). The cheapest correct way to wait for a
   * run: one call, where polling DescribeExecution costs one per poll and sees the close a poll late.
   * Throws what DescribeExecution throws (ExecutionDoesNotExist, InvalidArn).
   */
  async describeWhenClosed(executionArn: string, waitMillis: number): Promise<object> {
    // Waiting before the first look: a close committed between the look and the wait is not missed.
    const waiter = this.closeWaiters.wait(executionArn, waitMillis);
    try {
      const now = (await this.handle('DescribeExecution', { executionArn })) as { status?: string };
      if (now.status !== 'RUNNING') return now;
      await waiter.done;
    } finally {
      waiter.cancel();
    }
    return this.handle('DescribeExecution', { executionArn });
  }

  stop(): Promise<void> {
    this.closeWaiters.stopAll();
    this.stopping ??= this.stopNow().finally(() => (this.stopping = undefined));
    return this.stopping;
  }

  private async stopNow(): Promise<void> {
    const store = this.store;
    if (!store) return;
    clearInterval(this.sweepTimer);
    // Open GetActivityTask polls answer without a task; their tasks stay queued for the next start.
    this.workers.stop();
    this.timers?.stop();
    const executor = this.executor as Executor;
    executor.stop();
    // Express runs in flight are dropped, as the service keeps no express state.
    await this.express?.stop();
    // Let transitions under way commit (bounded); Task attempts still running are re-invoked after the next start.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([executor.drain(), new Promise((resolve) => (timer = setTimeout(resolve, STOP_DRAIN_MILLIS)))]);
    clearTimeout(timer);
    store.close();
    this.store = undefined;
  }

  /** Serves one Step Functions API operation with the wire shapes of AWS JSON 1.0. */
  async handle(operation: string, input: object = {}): Promise<object> {
    // Own properties only: `constructor`, `toString`, `__proto__` are names on every object's prototype.
    const handler = Object.hasOwn(this.handlers, operation) ? this.handlers[operation] : undefined;
    if (!handler) throw new UnknownOperationException(`Unknown operation ${operation}`);
    if (input === null || typeof input !== 'object' || Array.isArray(input))
      throw new ValidationException('The request body must be a JSON object');
    return handler(input as Record<string, unknown>);
  }

  /** Tells {@link EngineOptions.onDefinitionWarnings} of the unserved Tasks of a definition just stored; returns the answer. */
  private warned(input: Record<string, unknown>, answer: object): object {
    const tell = this.options.onDefinitionWarnings;
    const arn = (answer as { stateMachineArn?: unknown }).stateMachineArn ?? input.stateMachineArn;
    if (tell && typeof input.definition === 'string' && typeof arn === 'string') {
      const unserved = this.rt().definitions.get(definitionHash(input.definition)).unservedTasks;
      if (unserved.length > 0) tell(arn, unserved.map(machines.unservedDiagnostic));
    }
    return answer;
  }

  /**
   * What made a run mocked (not a Step Functions API: the console's view): the test case it started under,
   * and per mocked state the invocation numbers it took so far. Undefined for a run started without one.
   */
  mockedRun(executionArn: string): MockedRunView | undefined {
    const store = this.rt().store;
    const text = mockedRunTestCase(store, executionArn);
    if (text === undefined) return undefined;
    const testCase = JSON.parse(text) as MockTestCase;
    const states: Record<string, { response: string; invocations: number[] }> = {};
    for (const [state, mocked] of Object.entries(testCase.states))
      states[state] = { response: mocked.response, invocations: [] };
    for (const row of mockInvocations(store, executionArn)) states[row.state]?.invocations.push(row.number);
    return { stateMachine: testCase.stateMachine, testCase: testCase.testCase, states };
  }

  /**
   * Takes in a closed run read from another Step Functions endpoint (`autosave pull`; not a Step Functions
   * API: the service has no such operation): see engine/imports/run-import.ts.
   */
  importRun(
    header: RunImportHeader,
    events: AsyncIterable<WireHistoryEvent>,
    options: RunImportOptions = {},
  ): Promise<RunImportAnswer> {
    return importRun(this.rt(), header, events, options);
  }

  /**
   * The EXPRESS runs in flight, newest first, at most `limit` (not a Step Functions API: the service keeps no
   * express run; the console's view, beside the closed ones {@link EngineOptions.onExpressRunClosed} hands on).
   * @param limit @default 100
   */
  expressRunsInFlight(limit = 100): readonly ExpressRunSnapshot[] {
    return this.express?.inFlight(limit) ?? [];
  }

  /** Where a pulled run came from (the console's and `autosave describe`'s view); undefined for a run started here. */
  importedRun(executionArn: string): ImportedRunRow | undefined {
    return importedRunOf(this.rt().store, executionArn);
  }

  /** Resolves once no transition, commit or Task attempt is in flight (tests and the virtual clock). */
  async whenIdle(): Promise<void> {
    do {
      await this.executor?.whenIdle();
      await this.express?.whenIdle();
    } while (await this.timers?.flushImmediate());
  }

  /** Commit statistics: transactions and the writes they carried (group commit shares one per many). */
  get commitStats(): { commits: number; writes: number; flushMillis: number } {
    const c = this.rt().store.committer;
    return { commits: c.commits, writes: c.writes, flushMillis: c.flushMillis };
  }

  /** Whether the store holds a state machine: a restart's, not a first start's (`autosave local` answers sooner then). */
  hasStateMachines(): boolean {
    return this.rt().store.listStateMachines().length > 0;
  }

  /** The durable file's page size, pages and free pages (live bytes: `(pages - freePages) * pageSize`). */
  get storageStats(): { pageSize: number; pages: number; freePages: number } {
    return this.rt().store.storageStats;
  }

  /** Pages (WAL frames) the store writes while `work` runs (see {@link EngineStore.walFramesDuring}). */
  walFramesDuring(work: () => Promise<void>): Promise<number> {
    return this.rt().store.walFramesDuring(work);
  }

  /** The pages each commit of `work` writes, labelled by table or index (see {@link EngineStore.walCommitsDuring}). */
  walCommitsDuring(work: () => Promise<void>): Promise<string[][]> {
    return this.rt().store.walCommitsDuring(work);
  }

  /** What a TestState call uses: the started engine's integrations, scope and clock. */
  private testStateServices() {
    this.rt();
    return {
      scope: this.scope,
      clock: this.clock,
      integrations: this.integrations as IntegrationServices,
      expressionLimits: this.expressionLimits,
    };
  }

  private rt(): ExecutionRuntime {
    if (!this.runtime || !this.store) throw new Error('Engine not started: call start() first');
    return this.runtime;
  }

  private async fireTimer(timer: TimerRow): Promise<void> {
    if (timer.frame_id === EXECUTION_TIMER_FRAME) {
      await executions.timeOutExecution(this.rt(), timer.execution_arn);
      return;
    }
    await this.executor?.signal(timer.execution_arn, timer.frame_id, {
      kind: 'timer',
      timer: timer.kind as TimerKind,
      seq: timer.seq,
    });
  }

  /** After an execution's close is committed: tell a `.sync` parent, run the EventBridge emulation. */
  private executionClosed(executionArn: string): void {
    const store = this.store;
    if (!store) return;
    const row = store.getExecution(executionArn);
    if (!row || row.status === 'RUNNING') return;
    this.rt().mocks.forget(executionArn);
    this.closeWaiters.closed(executionArn);
    const statuses = this.options.closedStatuses ?? DEFAULT_CLOSED_STATUSES;
    const callback = this.options.onExecutionClosed;
    // The row goes only once a `.sync` parent has taken the outcome: a crash before that replays it.
    const parentTold = row.parent_task ? this.notifyParentTask(row) : Promise.resolve();
    // Deferred into the next group commit: a delete per closing run must not cost an fsync of its own
    // (lost in a crash, the hooks just run once more at the next start — they are at-least-once anyway).
    const done = () => {
      if (this.store === store) {
        void store.committer.defer(() => store.deleteCloseNotification(row.arn, row.status)).catch(() => undefined);
      }
    };
    const event = statuses.includes(row.status) ? executions.statusChangeEvent(this.rt(), row) : undefined;
    const hooks = Promise.all([
      parentTold,
      callback && event ? callback(event as ExecutionStatusChangeEvent) : undefined,
    ]).then(done, (err: unknown) =>
      console.error(`autosave engine: close hooks failed for ${row.arn}; they run again at the next start`, err),
    );
    this.closeHooks.add(hooks);
    void hooks.finally(() => this.closeHooks.delete(hooks));
  }

  /**
   * Resolves once no close hook is under way (those that start meanwhile included), or after `maxMillis`.
   * An embedder stopping calls it while what the hooks reach is still up (run-monitor reads the run through
   * the Step Functions API and sends to SQS): a hook cut off by a server closing under it would fail loudly
   * for nothing, and in a test environment whose data directory is then removed it would never run again.
   */
  async closeHooksSettled(maxMillis = STOP_DRAIN_MILLIS): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMillis)));
    const settled = (async () => {
      while (this.closeHooks.size > 0) await Promise.all(this.closeHooks);
    })();
    await Promise.race([settled, deadline]);
    clearTimeout(timer);
  }

  private async notifyParentTask(child: ExecutionRow): Promise<void> {
    const link = JSON.parse(child.parent_task as string) as ParentTaskLink;
    // The child's description as the parent's result (or, failed, its cause): `.sync:2` gives its input
    // and output as JSON, `.sync` as texts; a failed child's has its Error and Cause instead of an output
    // (recorded: test_start_execution_sync, _sync2, _sync_delegate_failure).
    const asJson = (text: string | null) => (link.outputAsJson && text !== null ? JSON.parse(text) : text);
    const described = {
      ExecutionArn: child.arn,
      Input: asJson(child.input),
      InputDetails: { Included: true },
      Name: child.name,
    };
    const closed = {
      StartDate: child.start_ms,
      StateMachineArn: child.machine_arn,
      Status: child.status,
      StopDate: child.stop_ms,
    };
    const outcome: TaskOutcome =
      child.status === 'SUCCEEDED'
        ? {
            ok: true,
            value: { ...described, Output: asJson(child.output), OutputDetails: { Included: true }, ...closed },
          }
        : {
            ok: false,
            error: StatesError.TaskFailed,
            cause: JSON.stringify({
              ...(child.cause !== null && child.cause !== undefined ? { Cause: child.cause } : {}),
              ...(child.error !== null && child.error !== undefined ? { Error: child.error } : {}),
              ...described,
              ...closed,
            }),
          };
    const result = await this.executor?.signal(link.executionArn, link.frameId, {
      kind: 'task-outcome',
      seq: link.seq,
      source: 'child',
      outcome,
    });
    // Not taken (stopping, or the transition failed): keep the close notification so the next start tells it.
    if (result === 'not-applied') throw new Error(`the parent of ${child.arn} could not take its outcome now`);
  }
}
