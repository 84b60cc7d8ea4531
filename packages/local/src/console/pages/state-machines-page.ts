import type { SFNClient } from '@aws-sdk/client-sfn';
import type { StartSyncExecutionCommandOutput } from '@aws-sdk/client-sfn';
import {
  describeStateMachineDetail,
  describeStateMachineView,
  formatTime,
  listDeployedWorkflows,
  type StateMachineDetail,
} from '../../operations';
import { html, type SafeHtml } from '../html';
import { renderPage } from '../layout';
import { renderStateGraph } from '../state-graph';
import { statusBadge } from './runs-page';
import { errorBlock, prettyJson } from './step-page';

/** Link to a state machine's page. */
export const stateMachineHref = (stateMachineArn: string): string =>
  `/state-machines/${encodeURIComponent(stateMachineArn)}`;

const tasksNotServed = (n: number) => `${n} Task state${n === 1 ? '' : 's'} the local engine does not serve`;

/**
 * `GET /state-machines`: every state machine on the engine, each linking to its page and its runs, and
 * saying how many of its Tasks the engine does not serve (the warnings its page details).
 */
export async function stateMachinesPage(sfn: SFNClient): Promise<string> {
  const machines = await listDeployedWorkflows(sfn);
  const unserved = await Promise.all(
    machines.map(async (m) => (await describeStateMachineView(sfn, m.stateMachineArn)).unserved.length),
  );
  const body = html`<h1>State machines</h1>
<table class="state-machines"><thead><tr><th>Name</th><th>Type</th><th>Warnings</th><th>Runs</th></tr></thead><tbody>
${machines.length === 0 ? html`<tr><td colspan="4" class="muted">No state machine yet.</td></tr>` : ''}
${machines.map(
  (m, i) =>
    html`<tr data-state-machine="${m.stateMachineName}"><td><a href="${stateMachineHref(m.stateMachineArn)}">${m.stateMachineName}</a></td><td>${m.type}</td><td>${
      unserved[i] > 0
        ? html`<a class="badge WAITING" data-unserved="${unserved[i]}" href="${stateMachineHref(m.stateMachineArn)}#warnings">${tasksNotServed(unserved[i])}</a>`
        : html`<span class="muted">none</span>`
    }</td><td><a href="/?workflow=${encodeURIComponent(m.workflow)}">runs</a></td></tr>`,
)}
</tbody></table>`;
  return renderPage({ title: 'State machines', active: '/state-machines' }, body);
}

/** The address a state machine's Start form posts to. */
export const startHref = (stateMachineArn: string): string => `${stateMachineHref(stateMachineArn)}/start`;

/** Start with an input: the newest run's input to edit, an optional name; an EXPRESS run is run to its end. */
function startForm(stateMachineArn: string, type: string, detail: StateMachineDetail): SafeHtml {
  return html`<section class="panel" id="start"><h2>Start a run</h2>
<form method="post" action="${startHref(stateMachineArn)}" class="start">
<p class="muted">${detail.lastRunInput !== undefined ? 'Input of the last run, to edit.' : 'No run yet: write the input.'} Starts <code>${detail.startTarget.split(':').slice(6).join(':')}</code>${type === 'EXPRESS' ? ' and waits for the end (StartSyncExecution: an EXPRESS run is kept nowhere else)' : ''}.</p>
<textarea name="input" rows="10" spellcheck="false">${prettyJson(detail.lastRunInput ?? '{}')}</textarea>
<p><label>Name <input name="name" placeholder="optional: a name of the service's choosing" pattern="[0-9A-Za-z_\-]{1,80}"></label> <button type="submit">Start</button></p>
</form></section>`;
}

/** Versions, newest first, and aliases with the share of runs each of their versions gets. */
function versionsAndAliases(detail: StateMachineDetail): SafeHtml {
  return html`<section class="panel" id="versions"><h2>Versions and aliases</h2>
<table class="versions"><thead><tr><th>Version</th><th>Published</th><th>ARN</th></tr></thead><tbody>
${detail.versions.length === 0 ? html`<tr><td colspan="3" class="muted">No version published.</td></tr>` : ''}
${detail.versions.map((v) => html`<tr data-version="${v.version}"><td>${v.version}</td><td class="at">${formatTime(v.creationDate)}</td><td><code>${v.arn}</code></td></tr>`)}
</tbody></table>
<table class="aliases"><thead><tr><th>Alias</th><th>Routes to</th><th>Created</th></tr></thead><tbody>
${detail.aliases.length === 0 ? html`<tr><td colspan="3" class="muted">No alias.</td></tr>` : ''}
${detail.aliases.map(
  (a) =>
    html`<tr data-alias="${a.name}"><td>${a.name}${a.description ? html` <span class="muted">${a.description}</span>` : ''}</td><td>${a.routing.map((r, i) => html`${i > 0 ? ', ' : ''}<span title="${r.versionArn}">version ${r.version}</span> (${r.weight}%)`)}</td><td class="at">${formatTime(a.creationDate)}</td></tr>`,
)}
</tbody></table></section>`;
}

/**
 * `GET /state-machines/<arn>`: the state machine's graph (Choice edges labelled with their rules), a warning for
 * each Task whose integration the engine accepts but does not serve (its runs fail there with
 * Local.IntegrationNotServed), saying how to serve it — what `autosave local` printed when the machine was
 * created — Start with an input, the versions and aliases, and the definition itself.
 */
export async function stateMachinePage(sfn: SFNClient, stateMachineArn: string): Promise<string> {
  const m = await describeStateMachineView(sfn, stateMachineArn);
  const detail = await describeStateMachineDetail(sfn, m.stateMachineArn, m.type);
  const warnings = m.unserved.map(
    (t) => html`<li data-unserved-state="${t.state}"><code>${t.location}</code>: ${t.message}</li>`,
  );
  const body = html`<h1>${m.name}</h1>
${
  m.unserved.length > 0
    ? html`<div class="callout warning" id="warnings" data-warnings="${m.unserved.length}"><strong>${tasksNotServed(m.unserved.length)}</strong><ul>${warnings}</ul></div>`
    : ''
}
<table class="facts panel"><tbody>
<tr><td>state machine</td><td><code>${m.stateMachineArn}</code></td></tr>
<tr><td>type</td><td>${m.type}</td></tr>
${m.creationDate ? html`<tr><td>created</td><td>${formatTime(m.creationDate)}</td></tr>` : ''}
<tr><td>runs</td><td><a href="/?workflow=${encodeURIComponent(m.name)}">runs of ${m.name}</a></td></tr>
</tbody></table>
${startForm(m.stateMachineArn, m.type, detail)}
<section class="panel"><h2>Graph</h2>${renderStateGraph(JSON.parse(m.definition))}</section>
${versionsAndAliases(detail)}
<section class="panel" id="definition"><h2>Definition</h2><pre class="definition">${prettyJson(m.definition)}</pre></section>`;
  return renderPage({ title: m.name, active: '/state-machines' }, body);
}

/** The answer to Start on an EXPRESS machine: the run's outcome, which StartSyncExecution returned whole. */
export function expressResultPage(stateMachineArn: string, result: StartSyncExecutionCommandOutput): string {
  const name = result.name ?? result.executionArn?.split(':').at(-2) ?? 'run';
  const body = html`<h1>${name} ${statusBadge(result.status ?? '')}</h1>
${errorBlock(result.error, result.cause)}
<table class="facts panel"><tbody>
<tr><td>workflow</td><td><a href="${stateMachineHref(stateMachineArn)}">${stateMachineArn.split(':').at(-1)}</a> <span class="muted">EXPRESS: run with StartSyncExecution, kept nowhere else</span></td></tr>
<tr><td>execution</td><td><code>${result.executionArn}</code></td></tr>
<tr><td>started</td><td>${formatTime(result.startDate)}${result.stopDate ? html` · stopped ${formatTime(result.stopDate)}` : ''}</td></tr>
${result.billingDetails ? html`<tr><td>billed</td><td>${result.billingDetails.billedDurationInMilliseconds} ms, ${result.billingDetails.billedMemoryUsedInMB} MB</td></tr>` : ''}
</tbody></table>
<section class="panel"><h2>Input</h2><pre>${prettyJson(result.input)}</pre>
${result.output !== undefined ? html`<h2>Output</h2><pre class="output">${prettyJson(result.output)}</pre>` : ''}</section>
<p><a href="${stateMachineHref(stateMachineArn)}#start">Start another</a></p>`;
  return renderPage({ title: name, active: '/state-machines' }, body);
}
