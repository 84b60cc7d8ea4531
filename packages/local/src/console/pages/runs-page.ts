import type { SFNClient } from '@aws-sdk/client-sfn';
import { listRuns, parseRunStatus, RUN_STATUS_FILTERS, WAITING_RUN_FILTER, runWaits, formatElapsed, formatTime, listDeployedWorkflows } from '../../operations';
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

/**
 * `GET /?status=&workflow=`: runs, newest first, with status (or WAITING) and workflow filters. `now` is
 * the engine's (durations of open runs are left blank without it).
 */
export async function runsPage(sfn: SFNClient, query: URLSearchParams, now?: number): Promise<string> {
  const status = parseRunStatus(query.get('status') || undefined);
  const workflow = query.get('workflow') || undefined;
  const [runs, machines] = await Promise.all([listRuns(sfn, { status, workflow }), listDeployedWorkflows(sfn)]);
  // Running runs: say which wait on a human or an activity's worker (their history tells; the WAITING filter already asked).
  const waiting = status === WAITING_FILTER ? new Map(runs.map((r) => [r.executionArn, 'human' as const])) : await runWaits(sfn, runs);
  const link = (s: string | undefined, w: string | undefined) => {
    const p = new URLSearchParams();
    if (s) p.set('status', s);
    if (w) p.set('workflow', w);
    const q = p.toString();
    return q ? `/?${q}` : '/';
  };
  const body = html`<h1>Runs</h1>
<p class="filters">Status: <a href="${link(undefined, workflow)}" class="${!status ? 'active' : ''}">all</a>${RUN_STATUS_FILTERS.map(
    (s) => html`<a href="${link(s, workflow)}" class="${s === status ? 'active' : ''}" data-filter="${s}">${s === WAITING_FILTER ? 'waiting on a human' : s.toLowerCase()}</a>`,
  )}</p>
<p class="filters">Workflow: <a href="${link(status, undefined)}" class="${!workflow ? 'active' : ''}">all</a>${machines.map(
    (m) => html`<a href="${link(status, m.workflow)}" class="${m.workflow === workflow ? 'active' : ''}">${m.workflow}</a>`,
  )}</p>
<table class="runs"><thead><tr><th>Run</th><th>Workflow</th><th>Status</th><th>Started</th><th>Duration</th></tr></thead><tbody>
${runs.length === 0 ? html`<tr><td colspan="5" class="muted">No runs${status ? html` with status ${status}` : ''}. Start one: <code>npx autosave start clinical-trial-onboarding</code></td></tr>` : ''}
${runs.map(
  (r) => html`<tr data-run="${r.name}"><td><a href="${runHref(r.executionArn)}">${r.name}</a></td><td>${r.workflow}</td><td>${statusBadge(r.status, waitBadge(waiting.get(r.executionArn)))}${r.redriveCount ? html` <span class="muted">redriven ${r.redriveCount}×</span>` : ''}</td><td>${formatTime(r.startDate)}</td><td>${formatElapsed(r.startDate, r.stopDate ?? now, '')}</td></tr>`,
)}
</tbody></table>`;
  return renderPage({ title: 'Runs', active: '/' }, body);
}
