import type { HistoryEvent } from '@aws-sdk/client-sfn';
import type { RunSource } from '@autosave/runtime/idempotency';

/**
 * Reads an execution history (the Step Functions wire events) as people think about a run: which steps
 * ran, how many attempts each took, how long, which results came from the idempotency ledger or the
 * model-call recording instead of a new call, and what each state of the machine is doing now. Both the
 * console (graph colours, timeline) and `autosave history` use it, so they always agree.
 */

/** What happened to one state, as the console colours it. */
export type StateStatus = 'done' | 'running' | 'waiting' | 'failed' | 'skipped' | 'not-run';

/** The legend of {@link StateStatus}, in display order. */
export const STATE_STATUS_LABELS: Readonly<Record<StateStatus, string>> = {
  done: 'done',
  running: 'running',
  waiting: 'waiting on a human or a worker',
  failed: 'failed',
  skipped: 'skipped on resume',
  'not-run': 'not reached',
};

/** One attempt of a Task entry: one invocation of its resource, as its history recorded it. */
export interface StepAttempt {
  /** The id of the event that scheduled it (`TaskScheduled`...), or of the restart's second `*Started`. */
  readonly eventId?: number;
  readonly startedAt: Date;
  endedAt?: Date;
  outcome: 'succeeded' | 'failed' | 'running';
  /** What it was called with: a Lambda's Payload, else the task's parameters (parsed). */
  readonly input?: unknown;
  /** What it answered: a Lambda's Payload, else the task's output (parsed). */
  output?: unknown;
  error?: string;
  cause?: string;
  /** LOCAL ENGINE ONLY: invoked again after an engine restart cut the attempt off. */
  readonly reinvocation?: boolean;
}

/** One entry into one state (a state entered twice, e.g. an agent loop's turns, has two). */
export interface StepEntry {
  /** The state's name. */
  readonly name: string;
  /** The id of its `*StateEntered` event. */
  readonly eventId?: number;
  /** The Map or Parallel entry it runs inside (absent at the top level). */
  readonly parent?: StepEntry;
  /** The state's input and output as recorded (JSON text; absent while it has not exited). */
  readonly input?: string;
  output?: string;
  /** Every attempt of a Task's resource, in order. */
  readonly attemptLog: StepAttempt[];
  /** The state type from the event (`Task`, `Choice`, `Pass`...). */
  readonly type: string;
  readonly enteredAt: Date;
  exitedAt?: Date;
  /** Invocations of the task's resource within this entry (1 = first try succeeded or still running). */
  attempts: number;
  outcome: 'succeeded' | 'failed' | 'running' | 'waiting';
  /** Error name of the last failed attempt (or of the state, when it failed). */
  error?: string;
  cause?: string;
  /** Errors of the failed attempts, in order (`IdempotencyInProgressError`, `States.Timeout`...). */
  readonly attemptErrors: string[];
  /** The result was returned from the ledger (tool; every call, for a batch) or the recording (model), not made again. */
  replayed: boolean;
  /** Where a single tool step's result came from: the tool-step envelope's `source` (docs/architecture.md §2). */
  source?: RunSource;
  /** An agent-loop tool batch: where each call's result came from, in call order (absent when `results` went by reference). */
  calls?: readonly ToolCallSource[];
  /** Redrives before this entry last ran (a redriven step runs again; the steps before it are skipped). */
  resumeIndex: number;
  /**
   * LOCAL ENGINE ONLY: attempts cut off by an engine restart and invoked again ({@link isLocalRestartReinvocation}).
   * Always 0 for a history recorded on AWS, where a Lambda killed mid-attempt is a `TaskFailed`
   * (`Sandbox.Timedout`, `Runtime.ExitError`...) and the Retry's next `TaskScheduled`: counted in `attempts`
   * and `attemptErrors` like any retry.
   */
  reinvocations: number;
  /**
   * Parsed task result: the Lambda's payload when the task is `lambda:invoke`, and for a single tool step
   * the tool's result inside the envelope (what the step recorded; its `source` is in {@link source}).
   */
  result?: unknown;
  /** The Lambda function a `lambda:invoke` task called (from the scheduled parameters). */
  functionName?: string;
  /**
   * The idempotency key a tool step was called with (from the scheduled parameters' Payload); for an
   * agent-loop tool batch, the first call's key followed by `(+n)` for the others.
   */
  idempotencyKey?: string;
  /** Every idempotency key the step's attempts were called with (a tool batch's calls each have one). */
  idempotencyKeys: string[];
  /** What a callback task's resource returned when it was submitted (the approval link, for approvals). */
  submitted?: unknown;
  /** The activity task this entry waits on now: scheduled, not yet answered (gone once a worker answers or it times out). */
  activityWait?: ActivityWait;
}

/** An activity task scheduled and not answered yet: what its `ActivityScheduled` and `ActivityStarted` say. */
export interface ActivityWait {
  readonly activityArn: string;
  /** When the task was scheduled (its `TimeoutSeconds` runs from here). */
  readonly scheduledAt: Date;
  readonly timeoutSeconds?: number;
  readonly heartbeatSeconds?: number;
  /** The worker whose GetActivityTask took it (absent while no worker has). */
  workerName?: string;
  /** When a worker took it. */
  startedAt?: Date;
}

/** One call of an agent-loop tool batch and where its result came from. */
export interface ToolCallSource {
  readonly id: string;
  readonly name: string;
  readonly source: RunSource;
}

/** A run's history, read. */
export interface RunAnalysis {
  readonly entries: readonly StepEntry[];
  /** The current status of every state seen in the history (states never entered are absent). */
  readonly states: ReadonlyMap<string, StateStatus>;
  /**
   * How many times the run was resumed: redrives (ExecutionRedriven) and, on the local engine only, engine
   * restarts that re-invoked a step (AWS has no such event: its histories count redrives only).
   */
  readonly resumes: number;
  /** Of those, the redrives. */
  readonly redrives: number;
  /** Where each redrive happened: when, and how many entries came before it (for timeline separators). */
  readonly redriveMarks: readonly { readonly at: Date; readonly afterEntries: number; readonly redriveCount: number }[];
  readonly startedAt?: Date;
  readonly closedAt?: Date;
  /** The last event of the execution itself (`ExecutionSucceeded`...), if it closed. */
  readonly closeEvent?: string;
  /** The state each event belongs to, by event id (execution-level events are absent). */
  readonly stateOfEvent: ReadonlyMap<number, string>;
}

const ENTERED = /^(\w+)StateEntered$/;
const EXITED = /^(\w+)StateExited$/;
const ATTEMPT_STARTS = new Set(['TaskScheduled', 'LambdaFunctionScheduled', 'ActivityScheduled']);
const ATTEMPT_FAILURES = new Set([
  'TaskFailed',
  'TaskTimedOut',
  'TaskStartFailed',
  'TaskSubmitFailed',
  'LambdaFunctionFailed',
  'LambdaFunctionTimedOut',
  'LambdaFunctionStartFailed',
  'LambdaFunctionScheduleFailed',
  'ActivityFailed',
  'ActivityTimedOut',
]);
const ATTEMPT_SUCCESSES = new Set(['TaskSucceeded', 'LambdaFunctionSucceeded', 'ActivitySucceeded']);
const ATTEMPT_STARTED = new Set(['TaskStarted', 'LambdaFunctionStarted', 'ActivityStarted']);

/**
 * The local engine's restart marker, the one event shape AWS never writes (docs/architecture.md §5): after a
 * restart the engine invokes again an attempt whose outcome was never committed, and records that as a
 * second `TaskStarted` (`LambdaFunctionStarted`, `ActivityStarted`) after the same `TaskScheduled`, with no
 * outcome between. On AWS every `*Started` follows its own `*Scheduled`. The analysis counts the marker as
 * one more attempt and a re-invocation; the states before it stay `done`, as they would on AWS, where the
 * same cut-off attempt reads as a `TaskFailed` and a retry.
 */
export function isLocalRestartReinvocation(eventType: string, attemptAlreadyStarted: boolean): boolean {
  return ATTEMPT_STARTED.has(eventType) && attemptAlreadyStarted;
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** What a Task attempt was called with: a Lambda's Payload, else the task's parameters (parsed). */
function scheduledInput(event: HistoryEvent): unknown {
  const parameters = parseJson(
    event.taskScheduledEventDetails?.parameters ??
      event.lambdaFunctionScheduledEventDetails?.input ??
      event.activityScheduledEventDetails?.input,
  );
  return parameters && typeof parameters === 'object' && 'Payload' in parameters
    ? (parameters as { Payload: unknown }).Payload
    : parameters;
}

/** A `lambda:invoke` task result is `{Payload, StatusCode, ...}`; the step's own result is the Payload. */
export function unwrapTaskResult(output: unknown): unknown {
  if (output && typeof output === 'object' && 'Payload' in output && 'StatusCode' in output) {
    return (output as { Payload: unknown }).Payload;
  }
  return output;
}

const RUN_SOURCES: ReadonlySet<unknown> = new Set<RunSource>(['executed', 'replayed', 'reconciled']);
const isRunSource = (value: unknown): value is RunSource => RUN_SOURCES.has(value);

/** Where a tool-step result came from: `{result, source}` (single) or `{results: [{id, name, result, source}]}` (batch). */
export function toolResultSources(payload: unknown): {
  readonly source?: RunSource;
  readonly result?: unknown;
  readonly calls?: ToolCallSource[];
} {
  if (!payload || typeof payload !== 'object') return {};
  const p = payload as { source?: unknown; result?: unknown; results?: unknown };
  if (isRunSource(p.source) && 'result' in p) return { source: p.source, result: p.result };
  if (Array.isArray(p.results) && p.results.every((c) => isRunSource((c as { source?: unknown } | null)?.source))) {
    return { calls: p.results.map((c: ToolCallSource) => ({ id: c.id, name: c.name, source: c.source })) };
  }
  return {};
}

/**
 * Whether a step result says it was not made afresh: the model step's `replayed: true`, a tool step's
 * `source: "replayed"`, or every call of a tool batch replayed (docs/architecture.md §2).
 */
export function isReplayedResult(result: unknown): boolean {
  if (!result || typeof result !== 'object') return false;
  if ((result as { replayed?: unknown }).replayed === true) return true;
  const { source, calls } = toolResultSources(result);
  if (source) return source === 'replayed';
  return calls !== undefined && calls.length > 0 && calls.every((c) => c.source === 'replayed');
}

function failureOf(event: HistoryEvent): { error?: string; cause?: string } {
  const details =
    event.taskFailedEventDetails ??
    event.taskTimedOutEventDetails ??
    event.taskStartFailedEventDetails ??
    event.taskSubmitFailedEventDetails ??
    event.lambdaFunctionFailedEventDetails ??
    event.lambdaFunctionTimedOutEventDetails ??
    event.lambdaFunctionStartFailedEventDetails ??
    event.lambdaFunctionScheduleFailedEventDetails ??
    event.activityFailedEventDetails ??
    event.activityTimedOutEventDetails ??
    event.executionFailedEventDetails;
  return { error: details?.error, cause: details?.cause };
}

/**
 * Reads a history (events in ascending id order, as GetExecutionHistory returns by default).
 * Events are attached to their state entry through `previousEventId` (correct inside Parallel and Map,
 * where branches interleave), or to the last open entry when an event does not name its predecessor.
 */
export function analyzeHistory(events: readonly HistoryEvent[]): RunAnalysis {
  const entries: StepEntry[] = [];
  const entryOfEvent = new Map<number, StepEntry>();
  const open: StepEntry[] = [];
  let resumes = 0;
  let redrives = 0;
  const redriveMarks: { at: Date; afterEntries: number; redriveCount: number }[] = [];
  // Whether the entry's current attempt has started and not yet ended (a second start = a re-invocation).
  const attemptOpen = new Set<StepEntry>();
  let startedAt: Date | undefined;
  let closedAt: Date | undefined;
  let closeEvent: string | undefined;
  let failedAtClose: StepEntry[] = [];
  // Entries reopened by a redrive that have seen no event since: closed again (failed) if re-entered.
  const reopened = new Map<StepEntry, { exitedAt?: Date }>();

  const eventTypes = new Map<number, string>();
  for (const event of events) {
    const type = event.type ?? '';
    const at = event.timestamp ?? new Date(0);
    if (event.id !== undefined) eventTypes.set(event.id, type);
    const entered = ENTERED.exec(type);
    if (entered) {
      // After a sibling's exit (or the run's start) a state is that sibling's peer; after an event of a Map or
      // Parallel state (an iteration or a branch starting) it runs inside that state.
      const previous = event.previousEventId !== undefined ? eventTypes.get(event.previousEventId) : undefined;
      const previousEntry = event.previousEventId !== undefined ? entryOfEvent.get(event.previousEventId) : undefined;
      const sibling = previous === undefined || EXITED.test(previous) || previous.startsWith('Execution');
      const entry: StepEntry = {
        name: event.stateEnteredEventDetails?.name ?? '?',
        eventId: event.id,
        parent: sibling ? previousEntry?.parent : previousEntry,
        input: event.stateEnteredEventDetails?.input,
        attemptLog: [],
        idempotencyKeys: [],
        type: entered[1],
        enteredAt: at,
        attempts: 0,
        outcome: 'running',
        attemptErrors: [],
        replayed: false,
        resumeIndex: redrives,
        reinvocations: 0,
      };
      for (const [old, was] of reopened) {
        if (old.name !== entry.name) continue;
        old.outcome = 'failed';
        old.exitedAt = was.exitedAt;
        open.splice(open.indexOf(old), 1);
        reopened.delete(old);
      }
      entries.push(entry);
      open.push(entry);
      if (event.id !== undefined) entryOfEvent.set(event.id, entry);
      continue;
    }
    if (type === 'ExecutionStarted') startedAt = at;
    if (type === 'ExecutionRedriven') {
      // A redrive reschedules the state that failed: its entry is open again, in the new resume.
      resumes += 1;
      redrives += 1;
      redriveMarks.push({
        at,
        afterEntries: entries.length,
        redriveCount: event.executionRedrivenEventDetails?.redriveCount ?? redrives,
      });
      closedAt = undefined;
      closeEvent = undefined;
      // (If the engine enters the state afresh instead, the new entry takes over: see `reopened`.)
      for (const entry of failedAtClose) {
        reopened.set(entry, { exitedAt: entry.exitedAt });
        entry.outcome = 'running';
        entry.exitedAt = undefined;
        entry.resumeIndex = redrives;
        open.push(entry);
        if (event.id !== undefined) entryOfEvent.set(event.id, entry);
      }
      failedAtClose = [];
      continue;
    }
    if (/^Execution(Succeeded|Failed|Aborted|TimedOut)$/.test(type)) {
      closedAt = at;
      closeEvent = type;
      // The state that was open when the execution failed is the one that failed.
      if (type !== 'ExecutionSucceeded') {
        const { error, cause } = failureOf(event);
        for (const entry of open) {
          entry.activityWait = undefined;
          entry.outcome = 'failed';
          entry.error ??= error ?? type;
          entry.cause ??= cause;
          entry.exitedAt = at;
        }
        failedAtClose = [...open];
        open.length = 0;
      }
      continue;
    }
    const byPrevious = event.previousEventId !== undefined ? entryOfEvent.get(event.previousEventId) : undefined;
    const entry = byPrevious ?? open.at(-1);
    if (!entry) continue;
    reopened.delete(entry);
    if (event.id !== undefined) entryOfEvent.set(event.id, entry);

    if (EXITED.test(type)) {
      entry.exitedAt = at;
      entry.output = event.stateExitedEventDetails?.output;
      if (entry.outcome !== 'failed') entry.outcome = 'succeeded';
      open.splice(open.indexOf(entry), 1);
    } else if (ATTEMPT_STARTS.has(type)) {
      entry.attempts += 1;
      attemptOpen.delete(entry);
      entry.attemptLog.push({ eventId: event.id, startedAt: at, outcome: 'running', input: scheduledInput(event) });
      const params = parseJson(event.taskScheduledEventDetails?.parameters) as
        | { FunctionName?: unknown; Payload?: { idempotencyKey?: unknown; calls?: { idempotencyKey?: unknown }[] } }
        | undefined;
      if (typeof params?.FunctionName === 'string') entry.functionName = params.FunctionName;
      const keys = [
        params?.Payload?.idempotencyKey,
        ...(Array.isArray(params?.Payload?.calls) ? params.Payload.calls.map((c) => c?.idempotencyKey) : []),
      ].filter((k): k is string => typeof k === 'string');
      for (const key of keys) if (!entry.idempotencyKeys.includes(key)) entry.idempotencyKeys.push(key);
      if (keys.length > 0) entry.idempotencyKey = keys.length === 1 ? keys[0] : `${keys[0]} (+${keys.length - 1})`;
      else if (event.lambdaFunctionScheduledEventDetails?.resource)
        entry.functionName = event.lambdaFunctionScheduledEventDetails.resource;
      if (entry.outcome === 'waiting') entry.outcome = 'running';
      const activity = event.activityScheduledEventDetails;
      entry.activityWait = activity?.resource
        ? {
            activityArn: activity.resource,
            scheduledAt: at,
            timeoutSeconds: activity.timeoutInSeconds,
            heartbeatSeconds: activity.heartbeatInSeconds,
          }
        : undefined;
    } else if (ATTEMPT_STARTED.has(type)) {
      if (type === 'ActivityStarted' && entry.activityWait) {
        entry.activityWait.workerName = event.activityStartedEventDetails?.workerName;
        entry.activityWait.startedAt = at;
      }
      if (isLocalRestartReinvocation(type, attemptOpen.has(entry))) {
        entry.attempts += 1;
        entry.reinvocations += 1;
        resumes += 1;
        const cut = entry.attemptLog.at(-1);
        if (cut?.outcome === 'running')
          Object.assign(cut, { endedAt: at, outcome: 'failed', error: 'the engine restarted during this attempt' });
        entry.attemptLog.push({
          eventId: event.id,
          startedAt: at,
          outcome: 'running',
          input: cut?.input,
          reinvocation: true,
        });
      }
      attemptOpen.add(entry);
    } else if (type === 'TaskSubmitted') {
      const resource = event.taskSubmittedEventDetails?.resource ?? '';
      if (resource.endsWith('.waitForTaskToken') || entry.outcome === 'running') entry.outcome = 'waiting';
      entry.submitted = unwrapTaskResult(parseJson(event.taskSubmittedEventDetails?.output));
    } else if (ATTEMPT_SUCCESSES.has(type)) {
      attemptOpen.delete(entry);
      entry.activityWait = undefined;
      const output =
        event.taskSucceededEventDetails?.output ??
        event.lambdaFunctionSucceededEventDetails?.output ??
        event.activitySucceededEventDetails?.output;
      const payload = unwrapTaskResult(parseJson(output));
      const attempt = entry.attemptLog.at(-1);
      if (attempt?.outcome === 'running')
        Object.assign(attempt, { endedAt: at, outcome: 'succeeded', output: payload });
      entry.replayed = isReplayedResult(payload);
      const tool = stepKind(entry) === 'tool' ? toolResultSources(payload) : {};
      entry.source = tool.source;
      entry.calls = tool.calls;
      entry.result = tool.source ? tool.result : payload;
      entry.outcome = 'running';
      entry.error = undefined;
      entry.cause = undefined;
    } else if (ATTEMPT_FAILURES.has(type)) {
      attemptOpen.delete(entry);
      entry.activityWait = undefined;
      const { error, cause } = failureOf(event);
      const attempt = entry.attemptLog.at(-1);
      if (attempt?.outcome === 'running')
        Object.assign(attempt, { endedAt: at, outcome: 'failed', error: error ?? type, cause });
      entry.attemptErrors.push(error ?? type);
      entry.error = error ?? type;
      entry.cause = cause;
    } else if (/StateFailed$|StateAborted$/.test(type)) {
      entry.outcome = 'failed';
    }
  }

  // States whose last entry is open are running (or waiting); the rest take their last entry's outcome.
  const states = new Map<string, StateStatus>();
  for (const entry of entries) {
    let status: StateStatus;
    if (entry.outcome === 'failed') status = 'failed';
    else if (entry.outcome === 'waiting') status = 'waiting';
    else if (entry.outcome === 'running') status = closeEvent ? 'failed' : entry.activityWait ? 'waiting' : 'running';
    else status = redrives > 0 && entry.resumeIndex < redrives ? 'skipped' : 'done';
    states.set(entry.name, status);
  }
  const stateOfEvent = new Map<number, string>();
  for (const [id, entry] of entryOfEvent) stateOfEvent.set(id, entry.name);
  for (const event of events)
    if (event.type === 'ExecutionRedriven' && event.id !== undefined) stateOfEvent.delete(event.id);
  return { entries, states, resumes, redrives, redriveMarks, startedAt, closedAt, closeEvent, stateOfEvent };
}

/** A run waiting on a human, with the link the approval-request function issued (docs/architecture.md §2). */
export interface PendingApproval {
  readonly approvalId?: string;
  readonly url?: string;
  /** When the link expires (ISO-8601), from the result's `expiresAtSeconds`. */
  readonly expiresAt?: string;
  /** The state waiting. */
  readonly step: string;
  readonly since: Date;
}

/** The approvals a run is waiting on now (callback tasks submitted and not yet answered). */
export function pendingApprovals(analysis: RunAnalysis): PendingApproval[] {
  return approvalRequests(analysis.entries.filter((e) => e.outcome === 'waiting'));
}

/** Every approval link a run has been sent, waiting or answered (callback tasks that submitted a link). */
export function issuedApprovals(analysis: RunAnalysis): PendingApproval[] {
  return approvalRequests(analysis.entries.filter((e) => e.submitted !== undefined)).filter((a) => a.url !== undefined);
}

function approvalRequests(entries: readonly StepEntry[]): PendingApproval[] {
  return entries.map((e) => {
    const s = (e.submitted ?? {}) as { approvalId?: unknown; url?: unknown; expiresAtSeconds?: unknown };
    return {
      approvalId: typeof s.approvalId === 'string' ? s.approvalId : undefined,
      url: typeof s.url === 'string' ? s.url : undefined,
      expiresAt: typeof s.expiresAtSeconds === 'number' ? new Date(s.expiresAtSeconds * 1000).toISOString() : undefined,
      step: e.name,
      since: e.enteredAt,
    };
  });
}

/** A run waiting for a worker of an activity: the state, and the activity task's {@link ActivityWait}. */
export interface PendingActivity extends ActivityWait {
  /** The state waiting. */
  readonly step: string;
}

/** A worker as the console and the CLI name it: `worker <workerName>`, or `a worker` when it gave no name. */
export const workerLabel = (workerName: string | undefined): string =>
  workerName ? `worker ${workerName}` : 'a worker';

/** The activity tasks a run waits on now (scheduled, not yet answered by a worker nor timed out). */
export function pendingActivities(analysis: RunAnalysis): PendingActivity[] {
  return analysis.entries
    .filter((e) => e.activityWait && e.exitedAt === undefined)
    .map((e) => ({ ...e.activityWait!, step: e.name }));
}

/** Which of our Lambdas a step called, for people: `model`, `tool`, `approval`, or the function name. */
export function stepKind(entry: StepEntry): string {
  const fn = entry.functionName ?? '';
  if (/model-step/.test(fn)) return 'model';
  if (/tool-step/.test(fn)) return 'tool';
  if (/approval-request/.test(fn)) return 'approval';
  return entry.type;
}

/** What the last column says about a step: its outcome, its retries, and where its result came from. */
export function describeStepOutcome(entry: StepEntry): string {
  const notes: string[] = [];
  // A state that exits after a failed last attempt had that failure taken by a Catch, not retried.
  const caught = entry.outcome === 'succeeded' && entry.error !== undefined;
  if (caught) notes.push(`caught ${entry.error}`);
  else if (entry.outcome === 'succeeded') notes.push('done');
  else if (entry.outcome === 'waiting') notes.push('waiting on a human');
  else if (entry.outcome === 'running' && entry.activityWait)
    notes.push(
      entry.activityWait.startedAt ? `taken by ${workerLabel(entry.activityWait.workerName)}` : 'waiting for a worker',
    );
  else if (entry.outcome === 'running') notes.push('running');
  else notes.push(`FAILED ${entry.error ?? ''}`.trim());
  notes.push(...resultOrigin(entry));
  const retriedAfter = caught ? entry.attemptErrors.slice(0, -1) : entry.attemptErrors;
  if (retriedAfter.length > 0 && entry.outcome !== 'failed') notes.push(`retried after ${retriedAfter.join(', ')}`);
  if (entry.reinvocations > 0)
    notes.push(`invoked again after an engine restart${entry.reinvocations > 1 ? ` (${entry.reinvocations}x)` : ''}`);
  return notes.join('; ');
}

const FROM_LEDGER = 'from the ledger (no new call)';
const RECONCILED = 'reconciled with the provider';

/** Where a step's result came from, when not from a new call: the ledger, the provider's record, the model recording. */
function resultOrigin(entry: StepEntry): string[] {
  if (entry.source === 'replayed') return [FROM_LEDGER];
  if (entry.source === 'reconciled') return [RECONCILED];
  if (entry.calls?.length) {
    const count = (source: RunSource) => entry.calls!.filter((c) => c.source === source).length;
    const total = entry.calls.length;
    const replayed = count('replayed');
    const reconciled = count('reconciled');
    if (replayed === total) return [FROM_LEDGER];
    if (reconciled === total) return [RECONCILED];
    const calls = (n: number) => `${n} of ${total} call${total > 1 ? 's' : ''}`;
    return [
      ...(replayed ? [`${calls(replayed)} ${FROM_LEDGER}`] : []),
      ...(reconciled ? [`${calls(reconciled)} ${RECONCILED}`] : []),
    ];
  }
  if (entry.replayed) return [stepKind(entry) === 'model' ? 'recorded model output, no new call' : FROM_LEDGER];
  return [];
}
