import type { SFNClient } from '@aws-sdk/client-sfn';
import {
  DEFAULT_RUN_LIST_LIMIT,
  parseRunDate,
  parseRunStatus,
  RUN_STATUS_FILTERS,
  WAITING_RUN_FILTER,
  runWaits,
  formatElapsed,
  formatTime,
  listDeployedWorkflows,
  searchRuns,
  type RunSearch,
  type RunSummary,
} from '../../operations';
import { html } from '../html';
import { renderPage } from '../layout';

/** Link to a run's page. */
export const runHref = (executionArn: string): string => `/runs/${encodeURIComponent(executionArn)}`;

/** A status badge; a running run that waits on a human (`true`) or on an activity's worker (`'worker'`) shows WAITING. */
export const statusBadge = (status: string, waiting: boolean | 'worker' = false) =>
  html`<span class="badge ${waiting ? 'WAITING' : status}">${waiting === 'worker' ? 'WAITING ON A WORKER' : waiting ? 'WAITING ON A HUMAN' : status}</span>`;

/** {@link statusBadge}'s `waiting` for what a run waits on. */
const waitBadge = (wait: 'human' | 'worker' | undefined) => (wait === 'worker' ? 'worker' : wait === 'human');

/** The console's own status filter: running runs that wait on a human (the CLI's `runs --status WAITING`). */
export const WAITING_FILTER = WAITING_RUN_FILTER;

/** Runs a page of the list shows unless `per` says otherwise (10 to {@link MAX_RUNS_PER_PAGE}). */
export const RUNS_PER_PAGE = DEFAULT_RUN_LIST_LIMIT;
const MAX_RUNS_PER_PAGE = 500;
/** Seconds between reloads when auto-refresh is on. */
export const RUNS_REFRESH_SECONDS = 5;

/** The list's query fields, in the order its links write them. */
const QUERY_FIELDS = ['status', 'workflow', 'name', 'input', 'from', 'to', 'per', 'refresh', 'page'] as const;
type RunsQuery = Partial<Record<(typeof QUERY_FIELDS)[number], string>>;

/** The list's address for `query` (empty fields left out): every link of the page keeps the filters it does not change. */
const runsHref = (query: RunsQuery): string => {
  const p = new URLSearchParams();
  for (const field of QUERY_FIELDS) if (query[field]) p.set(field, query[field]!);
  const q = p.toString();
  return q ? `/?${q}` : '/';
};

/**
 * `GET /?status=&workflow=&name=&input=&from=&to=&page=&per=&refresh=`: runs, newest first, a page at a time
 * with the total, searched by status (or WAITING), workflow, part of the name, part of the input and the day
 * (or time) range they started in. `refresh` reloads the page every {@link RUNS_REFRESH_SECONDS} seconds, to
 * the same address: the filters stay. `express`: the closed EXPRESS runs the console kept, listed with the rest. `now` is the engine's (durations of open runs are left blank without it).
 */
export async function runsPage(
  sfn: SFNClient,
  params: URLSearchParams,
  now?: number,
  express: readonly RunSummary[] = [],
): Promise<string> {
  const query: RunsQuery = Object.fromEntries(QUERY_FIELDS.map((f) => [f, params.get(f)?.trim() || undefined]));
  const status = parseRunStatus(query.status);
  const search: RunSearch = {
    status,
    workflow: query.workflow,
    name: query.name,
    input: query.input,
    startedFrom: parseRunDate('from', query.from),
    startedBefore: parseRunDate('to', query.to, true),
  };
  const per = Math.min(MAX_RUNS_PER_PAGE, Math.max(1, Number.parseInt(query.per ?? '', 10) || RUNS_PER_PAGE));
  const [found, machines] = await Promise.all([
    searchRuns(sfn, search, Number.parseInt(query.page ?? '1', 10) || 1, per, [], express),
    listDeployedWorkflows(sfn),
  ]);
  const runs = found.runs;
  // Running runs: say which wait on a human or an activity's worker (their history tells; the WAITING filter already asked).
  const waiting =
    status === WAITING_FILTER
      ? new Map(runs.map((r) => [r.executionArn, 'human' as const]))
      : await runWaits(sfn, runs);
  // A change of filter goes back to the first page.
  const link = (change: RunsQuery) => runsHref({ ...query, page: undefined, ...change });
  const firstShown = found.total === 0 ? 0 : (found.page - 1) * found.pageSize + 1;
  const lastShown = (found.page - 1) * found.pageSize + runs.length;
  const hidden = (['status', 'workflow', 'per', 'refresh'] as const)
    .filter((f) => query[f])
    .map((f) => html`<input type="hidden" name="${f}" value="${query[f]}">`);
  const body = html`<h1>Runs</h1>
<form method="get" action="/" class="search">
<label>Name <input name="name" value="${query.name ?? ''}" placeholder="part of the name"></label>
<label>Input <input name="input" value="${query.input ?? ''}" placeholder="part of the input"></label>
<label>From <input type="date" name="from" value="${query.from ?? ''}"></label>
<label>To <input type="date" name="to" value="${query.to ?? ''}"></label>
${hidden}<button type="submit">Search</button>${query.name || query.input || query.from || query.to ? html` <a href="${link({ name: undefined, input: undefined, from: undefined, to: undefined })}">clear</a>` : ''}
</form>
<p class="filters">Status: <a href="${link({ status: undefined })}" class="${!status ? 'active' : ''}">all</a>${RUN_STATUS_FILTERS.map(
    (s) =>
      html`<a href="${link({ status: s })}" class="${s === status ? 'active' : ''}" data-filter="${s}">${s === WAITING_FILTER ? 'waiting on a human' : s.toLowerCase()}</a>`,
  )}</p>
<p class="filters">Workflow: <a href="${link({ workflow: undefined })}" class="${!query.workflow ? 'active' : ''}">all</a>${machines.map(
    (m) =>
      html`<a href="${link({ workflow: m.workflow })}" class="${m.workflow === query.workflow ? 'active' : ''}">${m.workflow}</a>`,
  )}</p>
<div class="list-bar"><p class="count">Runs ${firstShown}–${lastShown} of ${found.total}</p>
<p class="pages">${found.page > 1 ? html`<a rel="prev" href="${runsHref({ ...query, page: String(found.page - 1) })}">← newer</a>` : ''} ${
    lastShown < found.total
      ? html`<a rel="next" href="${runsHref({ ...query, page: String(found.page + 1) })}">older →</a>`
      : ''
  }</p>
<p class="refresh">${
    query.refresh
      ? html`Refreshing every ${RUNS_REFRESH_SECONDS} s · <a rel="refresh" href="${runsHref({ ...query, refresh: undefined })}">stop</a>`
      : html`<a rel="refresh" href="${runsHref({ ...query, refresh: String(RUNS_REFRESH_SECONDS) })}">auto-refresh</a>`
  }</p></div>
<table class="runs"><thead><tr><th>Run</th><th>Workflow</th><th>Status</th><th>Started</th><th>Duration</th></tr></thead><tbody>
${runs.length === 0 ? html`<tr><td colspan="5" class="muted">No runs${status ? html` with status ${status}` : ''}${query.name || query.input || query.from || query.to || query.workflow ? ' that match' : ''}. Start one: <code>npx autosave start clinical-trial-onboarding</code></td></tr>` : ''}
${runs.map(
  (r) =>
    html`<tr data-run="${r.name}"><td class="run-name"><a href="${runHref(r.executionArn)}">${r.name}</a></td><td>${r.workflow}${r.express ? html` <span class="muted" title="an EXPRESS run: the console reads it from the engine while it runs, and keeps it as it closes">EXPRESS</span>` : ''}</td><td>${statusBadge(r.status, waitBadge(waiting.get(r.executionArn)))}${r.redriveCount ? html` <span class="muted">redriven ${r.redriveCount}×</span>` : ''}</td><td class="at">${formatTime(r.startDate)}</td><td>${formatElapsed(r.startDate, r.stopDate ?? now, '')}</td></tr>`,
)}
</tbody></table>`;
  const refresh = query.refresh ? { seconds: RUNS_REFRESH_SECONDS, url: runsHref(query) } : undefined;
  return renderPage(
    { title: 'Runs', active: '/', ...(refresh ? { refreshSeconds: refresh.seconds, refreshUrl: refresh.url } : {}) },
    body,
  );
}
