import { DescribeExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { InvalidRunFilterError } from './errors';
import { listRuns, runWaits, WAITING_RUN_FILTER, type RunStatusFilter, type RunSummary } from './runs';

/** What the console's runs list searches by; every field narrows. */
export interface RunSearch {
  readonly workflow?: string;
  readonly status?: RunStatusFilter;
  /** Part of the run's name (case-insensitive). */
  readonly name?: string;
  /** Part of the run's input as JSON text (case-insensitive). */
  readonly input?: string;
  /** Runs started at or after this time. */
  readonly startedFrom?: Date;
  /** Runs started before this time. */
  readonly startedBefore?: Date;
}

/** One page of a {@link RunSearch}. */
export interface RunPage {
  readonly runs: readonly RunSummary[];
  /** Runs that match, over all pages. */
  readonly total: number;
  /** 1-based, clamped to the last page. */
  readonly page: number;
  readonly pageSize: number;
}

/** Runs matched at most (a search reads every run's listing; the input filter describes each candidate). */
export const RUN_SEARCH_LIMIT = 10_000;
/** DescribeExecution calls in flight while the input filter reads inputs. */
const INPUT_READS_IN_FLIGHT = 8;

/**
 * A day (`YYYY-MM-DD`, UTC) or a time (ISO 8601) from a filter field, or {@link InvalidRunFilterError} naming the
 * field. `endOfDay`: a bare day ends the range after that day (`to=2026-12-05` keeps runs of the 5th).
 */
export function parseRunDate(field: string, value: string | undefined, endOfDay = false): Date | undefined {
  if (!value) return undefined;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const date = new Date(day ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(date.getTime()))
    throw new InvalidRunFilterError(`'${field}' must be a day (YYYY-MM-DD) or a time (ISO 8601), not '${value}'`);
  return day && endOfDay ? new Date(date.getTime() + 86_400_000) : date;
}

/**
 * The runs that match `search`, newest first, and the page `page` of them (`pageSize` a page). `express`: closed
 * EXPRESS runs kept elsewhere (the service lists none), searched with the rest.
 */
export async function searchRuns(
  sfn: SFNClient,
  search: RunSearch,
  page: number,
  pageSize: number,
  registryNames: readonly string[] = [],
  express: readonly RunSummary[] = [],
): Promise<RunPage> {
  const waitingOnly = search.status === WAITING_RUN_FILTER;
  const status = waitingOnly ? 'RUNNING' : search.status;
  const listed = [
    ...(await listRuns(sfn, { workflow: search.workflow, status, limit: RUN_SEARCH_LIMIT }, registryNames)),
    ...express.filter((r) => (!search.workflow || r.workflow === search.workflow) && (!status || r.status === status)),
  ].sort((a, b) => (b.startDate?.getTime() ?? 0) - (a.startDate?.getTime() ?? 0));
  const name = search.name?.toLowerCase();
  let runs = listed.filter(
    (r) =>
      (!name || r.name.toLowerCase().includes(name)) &&
      (!search.startedFrom || (r.startDate?.getTime() ?? 0) >= search.startedFrom.getTime()) &&
      (!search.startedBefore || (r.startDate?.getTime() ?? 0) < search.startedBefore.getTime()),
  );
  if (search.input) runs = await withInputContaining(sfn, runs, search.input.toLowerCase());
  if (waitingOnly) {
    const waits = await runWaits(sfn, runs);
    runs = runs.filter((r) => waits.get(r.executionArn) === 'human');
  }
  const pages = Math.max(1, Math.ceil(runs.length / pageSize));
  const current = Math.min(Math.max(1, page), pages);
  return {
    runs: runs.slice((current - 1) * pageSize, current * pageSize),
    total: runs.length,
    page: current,
    pageSize,
  };
}

/** The runs whose input (JSON text, as DescribeExecution gives it) contains `needle`, in order. */
async function withInputContaining(sfn: SFNClient, runs: readonly RunSummary[], needle: string): Promise<RunSummary[]> {
  const keep: boolean[] = new Array(runs.length).fill(false);
  let next = 0;
  const reader = async () => {
    while (next < runs.length) {
      const i = next++;
      const input =
        runs[i].input ?? (await sfn.send(new DescribeExecutionCommand({ executionArn: runs[i].executionArn }))).input;
      keep[i] = (input ?? '').toLowerCase().includes(needle);
    }
  };
  await Promise.all(Array.from({ length: INPUT_READS_IN_FLIGHT }, reader));
  return runs.filter((_, i) => keep[i]);
}
