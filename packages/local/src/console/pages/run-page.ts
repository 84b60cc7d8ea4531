import type { SFNClient } from '@aws-sdk/client-sfn';
import {
  definitionOfRun,
  formatDuration,
  formatTime,
  describeStepOutcome,
  STATE_STATUS_LABELS,
  stepKind,
  type StateStatus,
  type RunDetails,
  type MockedRunInfo,
  type PendingActivity,
  type RunOrigin,
  workerLabel,
} from '../../operations';
import { html } from '../html';
import { renderPage } from '../layout';
import { renderStateGraph } from '../state-graph';
import { statusBadge } from './runs-page';
import { stateMachineHref } from './state-machines-page';
import { eventsHref } from './events-page';
import { errorBlock, stepHref } from './step-page';
import { approvalActions } from './approval-actions';

/** How often a moving run's page reloads itself. */
export const RUN_PAGE_REFRESH_SECONDS = 2;

const pretty = (json: string | undefined) => {
  if (json === undefined) return '';
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
};

/**
 * A run waiting for an activity's worker: which state, which activity, since when, whether a worker took
 * the task (and when), and when it times out — the wait is otherwise invisible (the state is just running).
 */
function activityCallout(a: PendingActivity) {
  const name = a.activityArn.split(':').slice(6).join(':') || a.activityArn;
  const timesOut =
    a.timeoutSeconds !== undefined ? new Date(a.scheduledAt.getTime() + a.timeoutSeconds * 1000) : undefined;
  return html`<div class="callout" data-activity="${a.activityArn}" data-step="${a.step}"><strong>${a.startedAt ? 'Waiting on a worker' : 'Waiting for a worker'}</strong> at <code>${a.step}</code> on activity <code>${name}</code> since ${formatTime(a.scheduledAt)}: ${
    a.startedAt
      ? html`${workerLabel(a.workerName)} took it at ${formatTime(a.startedAt)} and has not answered yet (SendTaskSuccess or SendTaskFailure)${a.heartbeatSeconds !== undefined ? html`; it must send a heartbeat every ${a.heartbeatSeconds} s` : ''}.`
      : html`no worker has taken the task yet. A worker takes it with GetActivityTask on <code>${a.activityArn}</code>.`
  }${timesOut ? html` The task times out at ${formatTime(timesOut)} (TimeoutSeconds ${a.timeoutSeconds}).` : ''}</div>`;
}

/**
 * `GET /runs/<arn>`: the state machine as a graph coloured by what happened, beside the run's timeline. A run
 * started under a mock test case (`mocked`, asked of the engine by ARN) says so, and marks its mocked steps.
 */
export async function runPage(
  sfn: SFNClient,
  details: RunDetails,
  executionArn: string,
  now?: number,
  mockedRun?: (executionArn: string) => Promise<MockedRunInfo | undefined>,
  originOf?: (executionArn: string) => Promise<RunOrigin | undefined>,
): Promise<string> {
  const mocked = mockedRun ? await mockedRun(details.execution.executionArn ?? executionArn) : undefined;
  const pulled = originOf ? await originOf(details.execution.executionArn ?? executionArn) : undefined;
  // The service redrives no EXPRESS run (RedriveExecution: Standard workflows only).
  const express = (details.execution.executionArn ?? executionArn).includes(':express:');
  const redrivable =
    !express &&
    (details.execution.status === 'FAILED' ||
      details.execution.status === 'TIMED_OUT' ||
      details.execution.status === 'ABORTED');
  const mockedStep = (name: string) => mocked !== undefined && Object.hasOwn(mocked.states, name);
  const { execution: e, analysis } = details;
  const arn = e.executionArn ?? executionArn;
  // A graph node opens the state's latest entry (an agent loop enters a state once per turn).
  const latestEntry = new Map(analysis.entries.map((entry, i) => [entry.name, i + 1]));
  const definition = await definitionOfRun(sfn, e);
  const origin = analysis.startedAt?.getTime() ?? e.startDate?.getTime() ?? 0;
  const waiting = details.approvals.length > 0;
  // Engine times only: the close, or the engine's now (none known: no elapsed time shown).
  const end = e.stopDate?.getTime() ?? now;
  const elapsed = end === undefined ? undefined : end - origin;
  const legend = (Object.keys(STATE_STATUS_LABELS) as StateStatus[]).map(
    (s) => html`<li><span class="swatch status-${s}"></span>${STATE_STATUS_LABELS[s]}</li>`,
  );
  const approvals = details.approvals.map(
    (a) =>
      html`<div class="callout" data-approval="${a.approvalId ?? ''}"><strong>Waiting on a human</strong> at <code>${a.step}</code> since ${formatTime(a.since)}${a.expiresAt ? html` (the link expires ${a.expiresAt})` : ''}.
${approvalActions(a.url)}</div>`,
  );
  const body = html`<h1>${e.name} ${statusBadge(e.status ?? '', waiting || (details.activities.length > 0 && 'worker'))}</h1>
${approvals}
${details.activities.map(activityCallout)}
${errorBlock(e.error, e.cause)}
${e.status === 'RUNNING' && !express ? html`<form method="post" action="/runs/${encodeURIComponent(arn)}/stop" class="inline"><button type="submit" class="stop">Stop</button> <span class="muted">StopExecution: the run ends ABORTED; a stopped run can be redriven</span></form>` : ''}
${redrivable ? html`<form method="post" action="/runs/${encodeURIComponent(e.executionArn ?? executionArn)}/redrive"><button type="submit" class="redrive">Redrive</button> <span class="muted">resumes the run at its failed step with the functions this engine runs now; the steps before keep their results</span></form>` : ''}
<table class="facts panel"><tbody>
<tr><td>workflow</td><td>${e.stateMachineArn ? html`<a href="${stateMachineHref(e.stateMachineArn)}">${details.workflow}</a>` : details.workflow}${e.stateMachineVersionArn ? html` <span class="muted">version ${e.stateMachineVersionArn.split(':').pop()}</span>` : ''}</td></tr>
<tr><td>execution</td><td><code>${e.executionArn}</code></td></tr>
${pulled ? html`<tr data-pulled-from="${pulled.source_arn}"><td>pulled from</td><td><code>${pulled.source_arn}</code> (account ${pulled.account}, region ${pulled.region}${pulled.source_endpoint ? html`, endpoint ${pulled.source_endpoint}` : ''}); events 1 to ${pulled.last_imported_id} are its history there</td></tr>` : ''}
${mocked ? html`<tr data-mock-test-case="${mocked.testCase}"><td>mocked</td><td>test case <code>${mocked.testCase}</code>: ${Object.entries(mocked.states).map(([state, s], i) => html`${i > 0 ? ', ' : ''}<code>${state}</code> answered by <code>${s.response}</code>${s.invocations.length ? ` (invocations ${s.invocations.join(', ')})` : ''}`)}</td></tr>` : ''}
<tr><td>started</td><td>${formatTime(e.startDate)}${e.stopDate ? html` · stopped ${formatTime(e.stopDate)}` : ''}${elapsed === undefined ? '' : ` · ${formatDuration(elapsed)}`}</td></tr>
${analysis.resumes ? html`<tr><td>resumed</td><td>${analysis.redrives ? `${analysis.redrives} redrive(s)` : ''}${analysis.resumes > analysis.redrives ? ` ${analysis.resumes - analysis.redrives} engine restart(s)` : ''}</td></tr>` : ''}
</tbody></table>
<div class="run-layout">
<section class="panel"><h2>State machine</h2>${renderStateGraph(definition, analysis.states, (state) => (latestEntry.has(state) ? stepHref(arn, latestEntry.get(state)!) : undefined))}<ul class="legend">${legend}</ul></section>
<section class="panel"><h2>Timeline <a class="events-link" href="${eventsHref(arn)}">event history (${String(details.events.length)} events)</a></h2>
<table class="timeline"><thead><tr><th>#</th><th>Step</th><th>Kind</th><th>Idempotency key</th><th>Attempts</th><th>At</th><th>Took</th><th>Outcome</th></tr></thead><tbody>
${analysis.entries.map(
  (s, i) =>
    html`${analysis.redriveMarks
      .filter((m) => m.afterEntries === i)
      .map(
        (m) =>
          html`<tr class="redrive-mark"><td colspan="8">Redrive ${m.redriveCount} at +${formatDuration(m.at.getTime() - origin)}: the run resumes at its failed step; the steps before keep their results</td></tr>`,
      )}<tr data-step="${s.name}"${mockedStep(s.name) ? html` data-mocked="true"` : ''}><td>${i + 1}</td><td><a href="${stepHref(arn, i + 1)}">${s.name}</a>${mockedStep(s.name) ? html` <span class="badge mocked" title="answered by the mock config, no call made">mocked</span>` : ''}</td><td>${stepKind(s)}</td><td>${s.idempotencyKey ? html`<code>${s.idempotencyKey}</code>` : ''}</td><td>${s.attempts || ''}</td><td>+${formatDuration(s.enteredAt.getTime() - origin)}</td><td>${s.exitedAt ? formatDuration(s.exitedAt.getTime() - s.enteredAt.getTime()) : '…'}</td><td>${describeStepOutcome(s)}</td></tr>`,
)}
</tbody></table>
<h2>Input</h2><pre>${pretty(e.input)}</pre>
${e.output !== undefined ? html`<h2>Output</h2><pre>${pretty(e.output)}</pre>` : ''}
</section></div>`;
  const moving = e.status === 'RUNNING' && !waiting;
  return renderPage(
    { title: e.name ?? 'Run', active: '/', refreshSeconds: moving ? RUN_PAGE_REFRESH_SECONDS : undefined },
    body,
  );
}
