/**
 * Takes in a closed STANDARD run read from another Step Functions endpoint (AWS, or a second engine): its
 * definition, under the same state machine name (created when the engine has no machine of that name), and
 * a run of the same name and input whose history is the source's events and whose frames stand where the
 * source left it, so that RedriveExecution resumes it at the failed state.
 *
 * Bounded memory, durable, one visible write: events arrive one at a time; each batch of them is written
 * as history segments to a staging table (no reader sees it) and fed to a {@link HistoryReplay}, which
 * keeps only the run's position. Once the last event is in, one commit writes the run's row, its frames,
 * its origin and its machine, and moves the staged segments into its history. An import that fails, or
 * that a crash cuts off, leaves nothing but staged rows, which are dropped (at once, or at the next start).
 */
import { randomUUID } from 'node:crypto';
import { HISTORY_EVENT_LIMIT } from '@autosave/workflow/config';
import type { ExecutionRow } from '../store';
import { insertImportedRun, importedRunOf, PACKED_SEGMENT_MAX_BYTES, PACKED_SEGMENT_MAX_EVENTS } from '../store';
import type { ExecutionRuntime } from '../api/executions';
import { newStateMachineRow } from '../api/state-machines';
import { executionArn, parseExecutionArn, stateMachineArn } from '../arns';
import { validateDefinition, type PreparedDefinition } from '../definition';
import { assertValidName } from '../names';
import { ExecutionAlreadyExists, ValidationException } from '../service-errors';
import { HistoryReplay, type ImportedEvent } from './history-replay';
import { ImportRefusedError } from './import-errors';
import { statesLeftToRun } from './states-left';
import { toImportedEvent, type WireHistoryEvent } from './wire-events';

/** What the import is told about the run before its events: DescribeExecution's and DescribeStateMachineForExecution's answers at the source. */
export interface RunImportHeader {
  /** DescribeExecution at the source (dates in epoch milliseconds). */
  readonly execution: {
    readonly executionArn: string;
    readonly name?: string;
    readonly status: string;
    readonly startDate: number;
    readonly stopDate?: number;
    readonly input?: string;
    readonly error?: string;
    readonly cause?: string;
    readonly redriveCount?: number;
  };
  /** DescribeStateMachineForExecution at the source: the definition the run used. */
  readonly stateMachine: { readonly name: string; readonly definition: string; readonly roleArn?: string };
  /** The endpoint the run was read from, when not AWS's own. @default AWS */
  readonly sourceEndpoint?: string;
}

/** What an import did. */
export interface RunImportAnswer {
  readonly executionArn: string;
  readonly stateMachineArn: string;
  readonly sourceExecutionArn: string;
  readonly status: string;
  readonly error?: string;
  readonly cause?: string;
  /** The state the run stopped in: a redrive enters it again. */
  readonly failedState?: string;
  readonly events: number;
  /** The run was pulled before (from the same source): nothing was written. */
  readonly alreadyPulled: boolean;
  /** Lambda functions and integrations the states left to run call that this engine may not serve, in plain words. */
  readonly warnings: readonly string[];
}

/** Options of {@link importRun}. */
export interface RunImportOptions {
  /** Whether the engine runs a Lambda function of this name (undefined: not checked). @default not checked */
  readonly hasFunction?: (name: string) => boolean;
}

/** Statuses a pull takes: a closed run that a redrive can resume, or that is only read (SUCCEEDED). */
const PULLABLE = new Set(['FAILED', 'TIMED_OUT', 'ABORTED', 'SUCCEEDED']);

/** Imports a run; see the module comment. `events` are its history, oldest first, every page. */
export async function importRun(
  rt: ExecutionRuntime,
  header: RunImportHeader,
  events: AsyncIterable<WireHistoryEvent>,
  options: RunImportOptions = {},
): Promise<RunImportAnswer> {
  const source = checkHeader(header);
  const prepared = validateDefinition(header.stateMachine.definition, { type: 'STANDARD' });
  const arn = executionArn(rt.scope, header.stateMachine.name, source.name);
  const existing = rt.store.getExecution(arn);
  if (existing) return alreadyHere(rt, arn, header, existing);
  const importId = randomUUID();
  const replay = new HistoryReplay(prepared);
  try {
    await stageEvents(rt, importId, events, replay);
    const frames = replay.framesOf(arn);
    const outcome = replay.result;
    if (outcome.status !== header.execution.status) {
      throw new ImportRefusedError(
        `the history ends the run ${outcome.status}, DescribeExecution says ${header.execution.status}: pull it again`,
      );
    }
    const machineArn = stateMachineArn(rt.scope, header.stateMachine.name);
    const nowMs = rt.clock.now();
    const definition = header.stateMachine.definition;
    rt.definitions.remember(definition, prepared);
    await rt.store.committer.commit(() => {
      const hash = rt.store.putDefinition(definition);
      const machine = rt.store.getStateMachine(machineArn);
      const roleArn =
        header.stateMachine.roleArn ??
        machine?.role_arn ??
        `arn:aws:iam::${rt.scope.accountId}:role/service-role/StepFunctions-local`;
      if (!machine)
        rt.store.insertStateMachine(
          newStateMachineRow({
            arn: machineArn,
            name: header.stateMachine.name,
            type: 'STANDARD',
            roleArn,
            definitionHash: hash,
            nowMs,
          }),
        );
      if (rt.store.getExecution(arn)) throw new ExecutionAlreadyExists(`Execution Already Exists: '${arn}'`);
      const row: ExecutionRow = {
        arn,
        seq: 0,
        machine_arn: machineArn,
        machine_name: header.stateMachine.name,
        name: source.name,
        version_arn: null,
        alias_arn: null,
        role_arn: roleArn,
        definition_hash: hash,
        input: header.execution.input ?? JSON.stringify(replay.executionInput ?? {}),
        status: outcome.status,
        start_ms: header.execution.startDate,
        stop_ms: outcome.stopMs ?? header.execution.stopDate ?? nowMs,
        output: null,
        error: outcome.error ?? null,
        cause: outcome.cause ?? null,
        redrive_count: header.execution.redriveCount ?? 0,
        redrive_ms: null,
        redrive_token: null,
        parent_task: null,
        event_count: replay.count,
      };
      insertImportedRun(rt.store, importId, row, frames, {
        execution_arn: arn,
        source_arn: header.execution.executionArn,
        account: source.account,
        region: source.region,
        source_endpoint: header.sourceEndpoint ?? null,
        imported_ms: nowMs,
        last_imported_id: replay.count,
      });
    });
    return {
      executionArn: arn,
      stateMachineArn: machineArn,
      sourceExecutionArn: header.execution.executionArn,
      status: outcome.status,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      ...(outcome.cause !== undefined ? { cause: outcome.cause } : {}),
      ...(outcome.state !== undefined && outcome.status !== 'SUCCEEDED' ? { failedState: outcome.state } : {}),
      events: replay.count,
      alreadyPulled: false,
      warnings:
        outcome.state === undefined || outcome.status === 'SUCCEEDED'
          ? []
          : [...replay.caveats, ...warningsFor(prepared, outcome.state, options)],
    };
  } catch (err) {
    await rt.store.committer.commit(() => rt.store.dropStagedImport(importId)).catch(() => undefined);
    throw err;
  }
}

/** The source run's account, region and name; refuses, in plain words, a run that cannot be pulled. */
function checkHeader(header: RunImportHeader): { account: string; region: string; name: string } {
  const e = header?.execution as Partial<RunImportHeader['execution']> | undefined;
  const m = header?.stateMachine as Partial<RunImportHeader['stateMachine']> | undefined;
  if (
    typeof e?.executionArn !== 'string' ||
    typeof e.status !== 'string' ||
    typeof e.startDate !== 'number' ||
    typeof m?.name !== 'string' ||
    typeof m.definition !== 'string'
  ) {
    throw new ValidationException(
      'the header must hold execution {executionArn, status, startDate} (DescribeExecution) and stateMachine {name, definition} (DescribeStateMachineForExecution)',
    );
  }
  const sourceArn = header.execution.executionArn;
  if (/:express:/.test(sourceArn)) {
    throw new ImportRefusedError(
      `${sourceArn} is an EXPRESS run: the service keeps no history of it (only its CloudWatch Logs do, with execution data when logging includes it), so it cannot be pulled`,
    );
  }
  const parts = parseExecutionArn(sourceArn);
  if (!parts) throw new ImportRefusedError(`not an execution ARN: '${sourceArn}'`);
  const status = header.execution.status;
  if (status === 'RUNNING' || status === 'PENDING_REDRIVE') {
    throw new ImportRefusedError(
      `${sourceArn} is still ${status}: stop it first (aws stepfunctions stop-execution --execution-arn ${sourceArn}), then pull it, or read it where it runs with autosave history`,
    );
  }
  if (!PULLABLE.has(status)) throw new ImportRefusedError(`${sourceArn} is ${status}, which a pull does not take`);
  return {
    account: parts.account,
    region: parts.region,
    name: assertValidName(header.execution.name ?? parts.name, 'Name'),
  };
}

/** A run of the same name is here: the same run pulled before (answered as it stands), or another one. */
function alreadyHere(rt: ExecutionRuntime, arn: string, header: RunImportHeader, row: ExecutionRow): RunImportAnswer {
  const origin = importedRunOf(rt.store, arn);
  if (origin?.source_arn !== header.execution.executionArn) {
    throw new ExecutionAlreadyExists(
      `Execution Already Exists: '${arn}' (a run of that name is here and was not pulled from ${header.execution.executionArn})`,
    );
  }
  return {
    executionArn: arn,
    stateMachineArn: row.machine_arn,
    sourceExecutionArn: origin.source_arn,
    status: row.status,
    ...(row.error !== null ? { error: row.error } : {}),
    ...(row.cause !== null ? { cause: row.cause } : {}),
    events: origin.last_imported_id,
    alreadyPulled: true,
    warnings: [],
  };
}

/** Feeds the events to the replay and stages them, a segment's worth per commit. */
async function stageEvents(
  rt: ExecutionRuntime,
  importId: string,
  events: AsyncIterable<WireHistoryEvent>,
  replay: HistoryReplay,
): Promise<void> {
  let batch: ImportedEvent[] = [];
  let bytes = 0;
  const flush = async () => {
    const staged = batch;
    batch = [];
    bytes = 0;
    if (staged.length > 0) await rt.store.committer.commit(() => rt.store.stageImportedSegments(importId, staged));
  };
  for await (const wire of events) {
    const event = toImportedEvent(wire);
    replay.add(event);
    if (replay.count > HISTORY_EVENT_LIMIT)
      throw new ImportRefusedError(`the history holds more than ${HISTORY_EVENT_LIMIT} events, more than a run can`);
    batch.push(event);
    bytes += event.details ? JSON.stringify(event.details).length : 0;
    if (batch.length >= PACKED_SEGMENT_MAX_EVENTS || bytes >= PACKED_SEGMENT_MAX_BYTES) await flush();
  }
  await flush();
  if (replay.count === 0) throw new ImportRefusedError('the history holds no events');
}

/** What the states left to run call that this engine does not serve (or has no function for), and what to do. */
function warningsFor(prepared: PreparedDefinition, resumeState: string, options: RunImportOptions): string[] {
  const left = statesLeftToRun(prepared, resumeState);
  const warnings = prepared.unservedTasks
    .filter((t) => left.states.has(t.state))
    .map(
      (t) =>
        `state '${t.state}' calls ${t.resource}, which the local engine does not serve: mock it (a mock config test case, docs/testing.md) or route it to a real endpoint (docs/integrations.md)`,
    );
  if (options.hasFunction) {
    for (const [state, fn] of left.functions) {
      if (!options.hasFunction(fn))
        warnings.push(
          `state '${state}' invokes the Lambda function '${fn}', which this engine does not have: register it by that name (functions in autosave.config.ts, or --functions) or mock it`,
        );
    }
  }
  return warnings;
}
