import { randomUUID } from 'node:crypto';
import { StatesError } from '@autosave/workflow/errors';
import {
  EXPRESS_MAX_DURATION_SECONDS,
  HISTORY_EVENT_LIMIT,
  MAX_JSON_NESTING_DEPTH,
  STATES_PAYLOAD_LIMIT_BYTES,
} from '@autosave/workflow/config';
import type { EngineStore, ExecutionRow, FrameRow } from '../store';
import { assertExecutionArn, executionArn, expressExecutionArn, parseStateMachineArn, versionArn } from '../arns';
import type { EngineContext } from '../engine-context';
import { EXECUTION_TIMER_FRAME, type Executor, type RunOpening } from '../executor/executor';
import { type FramePosition, FrameRecord, ROOT_FRAME_ID } from '../executor/frame';
import { payloadTextDetails, toWireEvent } from '../executor/history';
import type { ChildStartOptions } from '../executor/task-integrations';
import { TransitionBatch } from '../store';
import { type MockTestCases, requireTestCase, splitTestCase } from '../mocks';
import { assertValidName } from '../names';
import {
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  ExecutionNotRedrivable,
  InvalidExecutionInput,
  ResourceNotFound,
  StateMachineDoesNotExist,
  StateMachineTypeNotSupported,
  ValidationException,
} from '../service-errors';
import { requireStateMachine, routeAlias } from './state-machines';
import {
  byteLength,
  epochSeconds,
  nestsDeeperThan,
  optionalEnum,
  optionalString,
  optionalStringOfAtMost,
  pageRequest,
  pageToken,
  requireString,
} from './wire';

type Input = Record<string, unknown>;

/** How long after closing an execution can still be redriven: 14 days. */
export const REDRIVE_WINDOW_MILLIS = 14 * 24 * 3600 * 1000;

/** What the execution operations need besides the store. */
export interface ExecutionRuntime extends EngineContext {
  readonly executor: Executor;
  /** Re-arms the timer service after timers were written outside the executor. */
  armTimers(): void;
  /** Runs the close hooks of an execution whose close was just committed. */
  executionClosed(executionArn: string): void;
  /** Where EXPRESS runs live: an in-memory store with its own executor (absent inside that runtime itself). */
  readonly express?: ExecutionRuntime;
  /** The test cases a start on `<arn>#<TestCase>` selects from. @default none: every such start is InvalidName */
  readonly mockConfig?: MockTestCases;
}

/** Options of {@link startExecution} beyond the request. */
export interface StartPlacement {
  /** The ARN an express run gets (a caller that waits for it registers first). @default a fresh one */
  readonly expressExecutionArn?: string;
}

export function requireExecution(store: EngineStore, arnInput: unknown): ExecutionRow {
  const arn = assertExecutionArn(arnInput);
  const row = store.getExecution(arn);
  if (!row) throw new ExecutionDoesNotExist(`Execution Does Not Exist: '${arn}'`);
  return row;
}

/** Parses execution input text, refusing what the service refuses (too large, too deep, not JSON) with `InvalidExecutionInput`. */
export function parseExecutionInput(text: string): unknown {
  if (byteLength(text) > STATES_PAYLOAD_LIMIT_BYTES) {
    throw new InvalidExecutionInput(`Input exceeds the maximum size of ${STATES_PAYLOAD_LIMIT_BYTES} bytes`);
  }
  if (nestsDeeperThan(text, MAX_JSON_NESTING_DEPTH)) {
    throw new InvalidExecutionInput(
      `Invalid State Machine Execution Input: nested deeper than ${MAX_JSON_NESTING_DEPTH} levels`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InvalidExecutionInput(`Invalid State Machine Execution Input: '${(err as Error).message}'`);
  }
}

/**
 * StartExecution on a state machine, version or alias ARN; idempotent by name while the run is open with
 * the same input. An EXPRESS machine's run goes to the in-memory runtime (`rt.express`): no name
 * idempotency, a fresh `express:` ARN, five minutes at most, nothing written to the durable store.
 */
export async function startExecution(
  rt: ExecutionRuntime,
  input: Input,
  child: ChildStartOptions = {},
  placement: StartPlacement = {},
): Promise<{ executionArn: string; startDate: number }> {
  const { parentTask } = child;
  const selected = splitTestCase(requireString(input, 'stateMachineArn'));
  const target = parseStateMachineArn(selected.stateMachineArn);
  const machine = requireStateMachine(rt, target.stateMachineArn);
  const testCase =
    selected.testCase === undefined ? undefined : requireTestCase(rt.mockConfig, machine.name, selected.testCase);
  const express = machine.type === 'EXPRESS';
  const home = express ? rt.express : rt;
  if (!home) throw new Error("express runs need the engine's express runtime");
  let definitionHash = machine.definition_hash;
  let roleArn = machine.role_arn;
  let pinnedVersion: string | null = null;
  let viaAlias: string | null = null;
  if (target.kind === 'alias') {
    const alias = rt.store.getAlias(`${machine.arn}:${target.alias}`);
    if (!alias) throw new ResourceNotFound(`Resource not found: '${String(input.stateMachineArn)}'`);
    viaAlias = alias.arn;
    pinnedVersion = routeAlias(rt, alias);
  } else if (target.kind === 'version') {
    pinnedVersion = versionArn(machine.arn, target.version);
  }
  if (pinnedVersion !== null) {
    const version = rt.store.getVersion(pinnedVersion);
    if (!version) throw new StateMachineDoesNotExist(`State Machine Does Not Exist: '${pinnedVersion}'`);
    definitionHash = version.definition_hash;
    roleArn = version.role_arn;
  }
  const name = input.name === undefined || input.name === null ? randomUUID() : assertValidName(input.name, 'Name');
  const inputText = optionalString(input, 'input') ?? '{}';
  const parsedInput = parseExecutionInput(inputText);
  const arn = express
    ? (placement.expressExecutionArn ?? expressExecutionArn(rt.scope, machine.name, name, randomUUID()))
    : executionArn(rt.scope, machine.name, name);
  const definition = rt.definitions.get(definitionHash);
  if (testCase) {
    const unknown = Object.keys(testCase.states).filter((state) => !definition.states.has(state));
    if (unknown.length > 0) rt.mockConfig?.mocksUnknownStates?.(testCase, unknown);
  }
  const nowMs = rt.clock.now();
  const row: ExecutionRow = {
    arn,
    seq: 0,
    machine_arn: machine.arn,
    machine_name: machine.name,
    name,
    version_arn: pinnedVersion,
    alias_arn: viaAlias,
    role_arn: roleArn,
    definition_hash: definitionHash,
    input: inputText,
    status: 'RUNNING',
    start_ms: nowMs,
    stop_ms: null,
    output: null,
    error: null,
    cause: null,
    redrive_count: 0,
    redrive_ms: null,
    redrive_token: null,
    parent_task: parentTask ? JSON.stringify(parentTask) : null,
    event_count: 0,
  };
  const ownTimeout =
    definition.timeoutSeconds !== undefined && definition.timeoutSeconds > 0 ? definition.timeoutSeconds : undefined;
  // The service stops an express run at five minutes, whatever the definition asks.
  const timeoutSeconds = express
    ? Math.min(ownTimeout ?? EXPRESS_MAX_DURATION_SECONDS, EXPRESS_MAX_DURATION_SECONDS)
    : ownTimeout;
  const timed = timeoutSeconds !== undefined;
  const opening = (): RunOpening => {
    const root = new FrameRecord(
      arn,
      ROOT_FRAME_ID,
      null,
      0,
      'RUNNING',
      initialPosition(definition.root.startAt, parsedInput, nowMs),
      null,
    );
    const batch = new TransitionBatch(arn, () => rt.clock.now());
    // As the service writes it: the first state's Entered event has previousEventId 0, like ExecutionStarted.
    batch.event(null, 'ExecutionStarted', {
      // The input as the caller wrote it, as AWS records it (not re-serialized).
      ...payloadTextDetails('input', inputText),
      roleArn,
      ...(viaAlias ? { stateMachineAliasArn: viaAlias } : {}),
      ...(pinnedVersion ? { stateMachineVersionArn: pinnedVersion } : {}),
    });
    batch.touch(root);
    if (timed) {
      batch.armExecutionTimer(EXECUTION_TIMER_FRAME, 'execution-timeout', nowMs + timeoutSeconds * 1000);
    }
    return { root, batch };
  };
  // The run's first steps (up to its first Task, Wait or Parallel/Map) go into the same commit as its start.
  const { batch, afterCommit } = await home.executor.firstTransition(row, opening);
  const store = home.store;
  // Everything the start writes is in the store (its row, its mock's row, its batch): a rollback undoes it, and it may run again.
  const result = await store.committer.commit(() => {
    const existing = store.insertExecutionUnlessExists(row);
    if (existing) {
      if ((existing.status === 'RUNNING' || child.replay) && existing.input === inputText)
        return { created: false, startMs: existing.start_ms };
      throw new ExecutionAlreadyExists(`Execution Already Exists: '${arn}'`);
    }
    if (testCase) home.mocks.write(arn, testCase);
    batch.write(store, row);
    return { created: true, startMs: nowMs };
  }, START_WRITE);
  if (result.created) {
    if (testCase) home.mocks.add(arn, testCase);
    afterCommit();
    if (timed) home.armTimers();
  }
  return { executionArn: arn, startDate: epochSeconds(result.startMs) };
}

/** How a start's write is committed (see above). */
const START_WRITE = { rerunnable: true } as const;

function initialPosition(startAt: string, input: unknown, nowMs: number): FramePosition {
  return {
    path: [],
    state: startAt,
    input,
    variables: {},
    phase: { kind: 'enter' },
    retries: [],
    retryCount: 0,
    enteredMs: nowMs,
    seq: 0,
    spawns: 0,
    lastEventId: 0,
  };
}

function redriveStatus(row: ExecutionRow, nowMs: number): { redriveStatus: string; redriveStatusReason?: string } {
  if (row.status === 'RUNNING')
    return { redriveStatus: 'NOT_REDRIVABLE', redriveStatusReason: 'Execution is RUNNING and cannot be redriven' };
  if (row.status === 'SUCCEEDED')
    return { redriveStatus: 'NOT_REDRIVABLE', redriveStatusReason: 'Execution is SUCCEEDED and cannot be redriven' };
  if (row.event_count >= HISTORY_EVENT_LIMIT - 1) {
    return { redriveStatus: 'NOT_REDRIVABLE', redriveStatusReason: 'Execution history reached the event limit' };
  }
  if (row.stop_ms !== null && nowMs - row.stop_ms > REDRIVE_WINDOW_MILLIS) {
    return { redriveStatus: 'NOT_REDRIVABLE', redriveStatusReason: 'Execution closed more than 14 days ago' };
  }
  return { redriveStatus: 'REDRIVABLE' };
}

/**
 * An execution row in the DescribeExecution wire shape. Built by assignment in the wire's order rather
 * than by spreading optional parts: every poll of a run comes here, and each spread made an object of its
 * own and copied it in.
 */
export function describeExecutionRow(row: ExecutionRow, nowMs: number): Record<string, unknown> {
  const answer: Record<string, unknown> = {
    executionArn: row.arn,
    stateMachineArn: row.machine_arn,
    name: row.name,
    status: row.status,
    startDate: epochSeconds(row.start_ms),
  };
  if (row.stop_ms !== null) answer.stopDate = epochSeconds(row.stop_ms);
  answer.input = row.input;
  answer.inputDetails = { included: true };
  if (row.output !== null) {
    answer.output = row.output;
    answer.outputDetails = { included: true };
  }
  // AWS answers a TIMED_OUT run without error or cause (those stay in its ExecutionTimedOut event).
  if (row.error !== null && row.status !== 'TIMED_OUT') answer.error = row.error;
  if (row.cause !== null && row.status !== 'TIMED_OUT') answer.cause = row.cause;
  if (row.version_arn !== null) answer.stateMachineVersionArn = row.version_arn;
  if (row.alias_arn !== null) answer.stateMachineAliasArn = row.alias_arn;
  answer.redriveCount = row.redrive_count;
  if (row.redrive_ms !== null) answer.redriveDate = epochSeconds(row.redrive_ms);
  const redrive = redriveStatus(row, nowMs);
  answer.redriveStatus = redrive.redriveStatus;
  if (redrive.redriveStatusReason !== undefined) answer.redriveStatusReason = redrive.redriveStatusReason;
  return answer;
}

/** DescribeStateMachineForExecution: the definition the execution is pinned to. */
export function describeStateMachineForExecution(rt: ExecutionRuntime, input: Input): object {
  const row = requireExecution(rt.store, requireString(input, 'executionArn'));
  const machine = rt.store.getStateMachine(row.machine_arn);
  const version = row.version_arn ? rt.store.getVersion(row.version_arn) : undefined;
  return {
    stateMachineArn: row.machine_arn,
    name: row.machine_name,
    definition: rt.store.getDefinition(row.definition_hash),
    roleArn: row.role_arn,
    updateDate: epochSeconds(version?.created_ms ?? machine?.updated_ms ?? machine?.created_ms ?? row.start_ms),
    loggingConfiguration: { level: 'OFF', includeExecutionData: false },
    tracingConfiguration: { enabled: false },
    ...(version
      ? { revisionId: version.revision_id }
      : machine && machine.definition_hash === row.definition_hash
        ? { revisionId: machine.revision_id }
        : {}),
  };
}

/** DescribeExecution. */
export function describeExecution(rt: ExecutionRuntime, input: Input): object {
  return describeExecutionRow(requireExecution(rt.store, requireString(input, 'executionArn')), rt.clock.now());
}

const EXECUTION_STATUSES = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'PENDING_REDRIVE'] as const;
const REDRIVE_FILTERS = ['REDRIVEN', 'NOT_REDRIVEN'] as const;

/** ListExecutions of a state machine, version or alias, newest first. */
export function listExecutions(rt: ExecutionRuntime, input: Input): object {
  const target = parseStateMachineArn(requireString(input, 'stateMachineArn'));
  const machine = requireStateMachine(rt, target.stateMachineArn);
  // Express runs keep no record the service can list (CloudWatch Logs only).
  if (machine.type === 'EXPRESS')
    throw new StateMachineTypeNotSupported('This operation is not supported by this type of state machine');
  const status = optionalEnum(input, 'statusFilter', EXECUTION_STATUSES);
  const redriveFilter = optionalEnum(input, 'redriveFilter', REDRIVE_FILTERS);
  // The API reference's rules: a Map Run's child executions are listed by its ARN alone, and only they can be
  // PENDING_REDRIVE (this engine runs a Distributed Map's children inside the run, so lists no Map Run).
  if (optionalString(input, 'mapRunArn') !== undefined)
    throw new ValidationException('Specify either a mapRunArn or a stateMachineArn, not both');
  if (status === 'PENDING_REDRIVE')
    throw new ValidationException(
      'The PENDING_REDRIVE statusFilter lists the child executions of a Map Run: specify mapRunArn',
    );
  const by = target.kind === 'stateMachine' ? 'machine_arn' : target.kind === 'version' ? 'version_arn' : 'alias_arn';
  const arn = target.kind === 'stateMachine' ? target.stateMachineArn : String(input.stateMachineArn);
  if (target.kind === 'alias' && !rt.store.getAlias(arn)) throw new ResourceNotFound(`Resource not found: '${arn}'`);
  if (target.kind === 'version' && !rt.store.getVersion(arn))
    throw new ResourceNotFound(`Resource not found: '${arn}'`);
  // Keyset pages (the token holds the last seq returned): runs started meanwhile neither repeat nor vanish.
  const req = pageRequest(input);
  const rows = rt.store.listExecutions({ by, arn, beforeSeq: req.offset, status, redriveFilter, limit: req.limit + 1 });
  const items = rows.slice(0, req.limit);
  return {
    executions: items.map((r) => ({
      executionArn: r.arn,
      stateMachineArn: r.machine_arn,
      name: r.name,
      status: r.status,
      startDate: epochSeconds(r.start_ms),
      ...(r.stop_ms !== null ? { stopDate: epochSeconds(r.stop_ms) } : {}),
      ...(r.version_arn !== null ? { stateMachineVersionArn: r.version_arn } : {}),
      ...(r.alias_arn !== null ? { stateMachineAliasArn: r.alias_arn } : {}),
      redriveCount: r.redrive_count,
      ...(r.redrive_ms !== null ? { redriveDate: epochSeconds(r.redrive_ms) } : {}),
    })),
    ...(rows.length > req.limit ? { nextToken: pageToken(items[items.length - 1].seq) } : {}),
  };
}

/** GetExecutionHistory: events with their ids and previousEventIds, oldest first unless `reverseOrder`. */
export function getExecutionHistory(rt: ExecutionRuntime, input: Input): object {
  const row = requireExecution(rt.store, requireString(input, 'executionArn'));
  const req = pageRequest(input);
  const includeData = input.includeExecutionData !== false;
  const order = input.reverseOrder === true ? 'DESC' : 'ASC';
  // Keyset pages by event id: a reverse-order page stays put while the run appends events.
  const events = rt.store.historyPage(row.arn, order, req.offset, req.limit + 1);
  const items = events.slice(0, req.limit);
  return {
    events: items.map((e) => toWireEvent(e, includeData)),
    ...(events.length > req.limit ? { nextToken: pageToken(items[items.length - 1].id) } : {}),
  };
}

/** The longest `error` StopExecution takes (Step Functions API reference, StopExecution). */
export const STOP_ERROR_MAX_LENGTH = 256;
/** The longest `cause` StopExecution takes (Step Functions API reference, StopExecution). */
export const STOP_CAUSE_MAX_LENGTH = 32_768;

/** StopExecution: the run is aborted with the given error and cause. */
export async function stopExecution(rt: ExecutionRuntime, input: Input): Promise<object> {
  // The API reference's bounds of StopExecution's fields, checked before the run is looked for, as the service does.
  const error = optionalStringOfAtMost(input, 'error', STOP_ERROR_MAX_LENGTH);
  const cause = optionalStringOfAtMost(input, 'cause', STOP_CAUSE_MAX_LENGTH);
  const row = requireExecution(rt.store, requireString(input, 'executionArn'));
  if (row.status !== 'RUNNING') return { stopDate: epochSeconds(row.stop_ms ?? rt.clock.now()) };
  const batch = new TransitionBatch(row.arn, () => rt.clock.now());
  // AWS chains ExecutionAborted to no event (previousEventId 0).
  batch.event(
    null,
    'ExecutionAborted',
    { ...(error !== undefined ? { error } : {}), ...(cause !== undefined ? { cause } : {}) },
    { unchained: true },
  );
  batch.closeExecution({
    status: 'ABORTED',
    ...(error !== undefined ? { error } : {}),
    ...(cause !== undefined ? { cause } : {}),
  });
  try {
    await rt.store.committer.commit(() => batch.write(rt.store), { rerunnable: true });
  } catch (err) {
    // It closed meanwhile: answer with its stop date like a stop of a closed run. Any other failure is not
    // answered as a stop that changed nothing.
    if (rt.store.getExecution(row.arn)?.status === 'RUNNING') throw err;
  }
  rt.executionClosed(row.arn);
  const after = rt.store.getExecution(row.arn) as ExecutionRow;
  return { stopDate: epochSeconds(after.stop_ms ?? rt.clock.now()) };
}

/** Times an execution out (its definition's `TimeoutSeconds` came due). */
export async function timeOutExecution(rt: ExecutionRuntime, executionArn: string): Promise<void> {
  const batch = new TransitionBatch(executionArn, () => rt.clock.now());
  batch.event(null, 'ExecutionTimedOut', { error: StatesError.Timeout, cause: 'The execution timed out' });
  batch.closeExecution({ status: 'TIMED_OUT', error: StatesError.Timeout, cause: 'The execution timed out' });
  try {
    await rt.store.committer.commit(() => batch.write(rt.store), { rerunnable: true });
  } catch {
    return; // already closed
  }
  rt.executionClosed(executionArn);
}

/**
 * RedriveExecution: the same run carries on from where it failed, on its pinned definition. Frames that
 * failed or were aborted are reset (a failed Task is scheduled again, retry counters start over); frames
 * that succeeded — earlier states, finished branches and iterations — keep their results.
 */
export async function redriveExecution(rt: ExecutionRuntime, input: Input): Promise<object> {
  const row = requireExecution(rt.store, requireString(input, 'executionArn'));
  const clientToken = optionalString(input, 'clientToken');
  if (
    row.status === 'RUNNING' &&
    clientToken !== undefined &&
    row.redrive_token === clientToken &&
    row.redrive_ms !== null
  ) {
    return { redriveDate: epochSeconds(row.redrive_ms) };
  }
  const status = redriveStatus(row, rt.clock.now());
  if (status.redriveStatus !== 'REDRIVABLE')
    throw new ExecutionNotRedrivable(`Execution cannot be redriven: ${status.redriveStatusReason ?? row.status}`);
  const nowMs = rt.clock.now();
  await rt.store.committer.commit(() => {
    const current = rt.store.getExecution(row.arn) as ExecutionRow;
    if (current.status === 'RUNNING' || current.status === 'SUCCEEDED')
      throw new ExecutionNotRedrivable(`Execution is ${current.status} and cannot be redriven`);
    rt.store.reopenForRedrive(row.arn, nowMs, clientToken ?? null);
    const batch = new TransitionBatch(row.arn, () => nowMs);
    batch.event(null, 'ExecutionRedriven', { redriveCount: current.redrive_count + 1 });
    resetForRedrive(rt.store, row.arn, ROOT_FRAME_ID, batch, nowMs);
    batch.write(rt.store);
  });
  rt.mocks.reload(row.arn);
  rt.executor.resumeRunning('resume', row.arn);
  return { redriveDate: epochSeconds(nowMs) };
}

/** Resets a frame that did not succeed, and the unfinished children of the Parallel/Map it stopped in. */
function resetForRedrive(
  store: EngineStore,
  executionArn: string,
  frameId: string,
  batch: TransitionBatch,
  nowMs: number,
): void {
  const row = store.getFrame(executionArn, frameId) as FrameRow;
  if (row.status === 'SUCCEEDED' || row.status === 'PENDING') return;
  const frame = FrameRecord.fromRow(row);
  const phase = frame.pos.phase;
  const resume =
    phase.kind === 'closed'
      ? (phase.resume ?? { kind: 'enter' as const })
      : phase.kind === 'children'
        ? phase
        : { kind: 'enter' as const };
  frame.status = 'RUNNING';
  frame.pos.phase = resume;
  frame.pos.retries = [];
  frame.pos.retryCount = 0;
  frame.pos.enteredMs = nowMs;
  delete frame.pos.error;
  delete frame.pos.cause;
  frame.timers = [];
  batch.touch(frame);
  if (resume.kind === 'children') {
    for (const child of store.childFrames(executionArn, resume.group))
      resetForRedrive(store, executionArn, child.frame_id, batch, nowMs);
  }
}

/** The EventBridge "Step Functions Execution Status Change" event of a closed execution, as AWS sends it. */
export function statusChangeEvent(rt: EngineContext, row: ExecutionRow): Record<string, unknown> {
  const nowMs = rt.clock.now();
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    account: rt.scope.accountId,
    time: new Date(row.stop_ms ?? nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: rt.scope.region,
    resources: [row.arn],
    detail: {
      executionArn: row.arn,
      stateMachineArn: row.machine_arn,
      name: row.name,
      status: row.status,
      startDate: row.start_ms,
      stopDate: row.stop_ms,
      input: row.input,
      output: row.output,
      inputDetails: { included: true },
      outputDetails: row.output !== null ? { included: true } : null,
      error: row.error,
      cause: row.cause,
      redriveCount: row.redrive_count,
      redriveDate: row.redrive_ms,
      ...redriveStatus(row, nowMs),
      ...(row.version_arn !== null ? { stateMachineVersionArn: row.version_arn } : {}),
      ...(row.alias_arn !== null ? { stateMachineAliasArn: row.alias_arn } : {}),
    },
  };
}
