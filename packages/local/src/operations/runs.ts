import {
  DescribeExecutionCommand,
  paginateGetExecutionHistory,
  ListExecutionsCommand,
  type DescribeExecutionCommandOutput,
  type ExecutionStatus,
  type HistoryEvent,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { InvalidRunFilterError, RunAmbiguousError, RunNotFoundError } from './errors';
import { analyzeHistory, pendingActivities, pendingApprovals } from './run-analysis';
import { listDeployedWorkflows, type DeployedWorkflow } from './workflows';

/**
 * The statuses a workflow's runs can be listed by. Not PENDING_REDRIVE: Step Functions answers that filter
 * for a Map Run's child executions only, and refuses it beside a state machine's ARN (ValidationException).
 */
export const RUN_STATUSES: readonly ExecutionStatus[] = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'];

/** One run as listed. */
export interface RunSummary {
  readonly name: string;
  readonly executionArn: string;
  readonly workflow: string;
  readonly status: string;
  readonly startDate?: Date;
  readonly stopDate?: Date;
  readonly redriveCount?: number;
  /** An EXPRESS run (kept by the console as it closed; the service lists none). @default false */
  readonly express?: boolean;
  /** The run's input when it is at hand without a DescribeExecution (an express run's). */
  readonly input?: string;
}

/** The run-list filter that is no Step Functions status: runs RUNNING and waiting on a human (an approval). */
export const WAITING_RUN_FILTER = 'WAITING';

/** A run-list status filter: a Step Functions status or {@link WAITING_RUN_FILTER}. */
export type RunStatusFilter = ExecutionStatus | typeof WAITING_RUN_FILTER;

/** Every status filter, in display order (WAITING after RUNNING): the CLI's `--status` and the console's links. */
export const RUN_STATUS_FILTERS: readonly RunStatusFilter[] = [
  RUN_STATUSES[0],
  WAITING_RUN_FILTER,
  ...RUN_STATUSES.slice(1),
];

/** Parses a `--status` value (case-insensitive) or throws an {@link InvalidRunFilterError} listing the valid ones. */
export function parseRunStatus(value: string | undefined): RunStatusFilter | undefined {
  if (value === undefined) return undefined;
  const upper = value.toUpperCase() as RunStatusFilter;
  if (!RUN_STATUS_FILTERS.includes(upper))
    throw new InvalidRunFilterError(`unknown status '${value}' (one of ${RUN_STATUS_FILTERS.join(', ')})`);
  return upper;
}

/**
 * What the RUNNING runs among `runs` wait on, by execution ARN: `human` (an unanswered approval) or
 * `worker` (an activity task no worker has answered); runs waiting on neither are absent.
 */
export async function runWaits(sfn: SFNClient, runs: readonly RunSummary[]): Promise<Map<string, 'human' | 'worker'>> {
  // An EXPRESS run has no history to read (and waits on no task token nor activity: EXPRESS machines take neither).
  const running = runs.filter((r) => r.status === 'RUNNING' && !r.express);
  const waits = await Promise.all(
    running.map(async (r) => {
      const analysis = analyzeHistory(await getFullHistory(sfn, r.executionArn));
      return pendingApprovals(analysis).length > 0
        ? 'human'
        : pendingActivities(analysis).length > 0
          ? 'worker'
          : undefined;
    }),
  );
  return new Map(running.flatMap((r, i) => (waits[i] ? [[r.executionArn, waits[i]] as const] : [])));
}

/** Options of {@link listRuns}. */
export interface ListRunsOptions {
  /** Only this workflow's runs. @default every workflow */
  readonly workflow?: string;
  /** Only runs of this status; {@link WAITING_RUN_FILTER}: running runs waiting on a human. @default every status */
  readonly status?: RunStatusFilter;
  /** Most recent runs kept, over all workflows. @default {@link DEFAULT_RUN_LIST_LIMIT} */
  readonly limit?: number;
}

/** How many runs `autosave runs` and the console list by default. */
export const DEFAULT_RUN_LIST_LIMIT = 50;

/** Runs of every deployed workflow (or one), newest first. */
export async function listRuns(
  sfn: SFNClient,
  options: ListRunsOptions = {},
  registryNames: readonly string[] = [],
): Promise<RunSummary[]> {
  const limit = options.limit ?? DEFAULT_RUN_LIST_LIMIT;
  // EXPRESS machines have no runs to list: the service keeps none (ListExecutions refuses them).
  const machines = (await listDeployedWorkflows(sfn, registryNames)).filter(
    (w) =>
      w.type !== 'EXPRESS' &&
      (!options.workflow || w.workflow === options.workflow || w.stateMachineName === options.workflow),
  );
  const waitingOnly = options.status === WAITING_RUN_FILTER;
  const status = waitingOnly ? 'RUNNING' : (options.status as ExecutionStatus | undefined);
  const perMachine = await Promise.all(machines.map((m) => listRunsOf(sfn, m, status, limit)));
  const runs = perMachine.flat().sort((a, b) => (b.startDate?.getTime() ?? 0) - (a.startDate?.getTime() ?? 0));
  // The limit applies to the runs shown: filter the waiting ones before cutting.
  const waits = waitingOnly ? await runWaits(sfn, runs) : undefined;
  return (waits ? runs.filter((r) => waits.get(r.executionArn) === 'human') : runs).slice(0, limit);
}

async function listRunsOf(
  sfn: SFNClient,
  machine: DeployedWorkflow,
  status: ExecutionStatus | undefined,
  limit: number,
): Promise<RunSummary[]> {
  const out: RunSummary[] = [];
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(
      new ListExecutionsCommand({
        stateMachineArn: machine.stateMachineArn,
        statusFilter: status,
        maxResults: Math.min(limit, 1000),
        nextToken,
      }),
    );
    for (const e of page.executions ?? []) {
      out.push({
        name: e.name ?? '',
        executionArn: e.executionArn ?? '',
        workflow: machine.workflow,
        status: e.status ?? '',
        startDate: e.startDate,
        stopDate: e.stopDate,
        redriveCount: e.redriveCount,
      });
    }
    nextToken = page.nextToken;
  } while (nextToken && out.length < limit);
  return out;
}

/**
 * The execution a user named: an execution ARN as is, or a name looked up on every deployed workflow
 * (by the ARN Step Functions gives it, `...:execution:<machine>:<name>`, falling back to listing).
 */
export async function resolveRun(
  sfn: SFNClient,
  ref: string,
  registryNames: readonly string[] = [],
): Promise<DescribeExecutionCommandOutput> {
  if (ref.startsWith('arn:')) {
    try {
      return await sfn.send(new DescribeExecutionCommand({ executionArn: ref }));
    } catch (err) {
      if ((err as Error).name === 'ExecutionDoesNotExist') throw new RunNotFoundError(`no run ${ref}`);
      throw err;
    }
  }
  const machines = await listDeployedWorkflows(sfn, registryNames);
  const found = (
    await Promise.all(
      machines.map(async (m) => {
        const arn = m.stateMachineArn.replace(':stateMachine:', ':execution:') + `:${ref}`;
        try {
          return await sfn.send(new DescribeExecutionCommand({ executionArn: arn }));
        } catch (err) {
          const name = (err as Error).name;
          if (name === 'ExecutionDoesNotExist' || name === 'InvalidArn') return undefined;
          throw err;
        }
      }),
    )
  ).filter((x): x is DescribeExecutionCommandOutput => x !== undefined);
  if (found.length === 1) return found[0];
  if (found.length > 1) {
    throw new RunAmbiguousError(
      `'${ref}' names runs of several workflows; use the ARN: ${found.map((f) => f.executionArn).join(', ')}`,
    );
  }
  const listed = (await listRuns(sfn, { limit: 1000 }, registryNames)).filter((r) => r.name === ref);
  if (listed.length === 1) return sfn.send(new DescribeExecutionCommand({ executionArn: listed[0].executionArn }));
  throw new RunNotFoundError(`no run named '${ref}' (see \`autosave runs\`)`);
}

/** An execution's whole history, oldest event first (the SDK's paginator follows `nextToken`). */
export async function getFullHistory(sfn: SFNClient, executionArn: string): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  for await (const page of paginateGetExecutionHistory(
    { client: sfn, pageSize: 1000 },
    { executionArn, includeExecutionData: true },
  )) {
    events.push(...(page.events ?? []));
  }
  return events;
}
