import type { SFNClient } from '@aws-sdk/client-sfn';
import { describeStateMachineView, formatTime, listDeployedWorkflows } from '../../operations';
import { html } from '../html';
import { renderPage } from '../layout';
import { renderStateGraph } from '../state-graph';

/** Link to a state machine's page. */
export const stateMachineHref = (stateMachineArn: string): string => `/state-machines/${encodeURIComponent(stateMachineArn)}`;

const tasksNotServed = (n: number) => `${n} Task state${n === 1 ? '' : 's'} the local engine does not serve`;

/**
 * `GET /state-machines`: every state machine on the engine, each linking to its page and its runs, and
 * saying how many of its Tasks the engine does not serve (the warnings its page details).
 */
export async function stateMachinesPage(sfn: SFNClient): Promise<string> {
  const machines = await listDeployedWorkflows(sfn);
  const unserved = await Promise.all(machines.map(async (m) => (await describeStateMachineView(sfn, m.stateMachineArn)).unserved.length));
  const body = html`<h1>State machines</h1>
<table class="state-machines"><thead><tr><th>Name</th><th>Type</th><th>Warnings</th><th>Runs</th></tr></thead><tbody>
${machines.length === 0 ? html`<tr><td colspan="4" class="muted">No state machine yet.</td></tr>` : ''}
${machines.map(
  (m, i) => html`<tr data-state-machine="${m.stateMachineName}"><td><a href="${stateMachineHref(m.stateMachineArn)}">${m.stateMachineName}</a></td><td>${m.type}</td><td>${
    unserved[i] > 0 ? html`<a class="badge WAITING" data-unserved="${unserved[i]}" href="${stateMachineHref(m.stateMachineArn)}#warnings">${tasksNotServed(unserved[i])}</a>` : html`<span class="muted">none</span>`
  }</td><td><a href="/?workflow=${encodeURIComponent(m.workflow)}">runs</a></td></tr>`,
)}
</tbody></table>`;
  return renderPage({ title: 'State machines', active: '/state-machines' }, body);
}

/**
 * `GET /state-machines/<arn>`: the state machine's graph, and a warning for each Task whose integration
 * the engine accepts but does not serve (its runs fail there with Local.IntegrationNotServed), saying how
 * to serve it — what `autosave local` printed when the machine was created.
 */
export async function stateMachinePage(sfn: SFNClient, stateMachineArn: string): Promise<string> {
  const m = await describeStateMachineView(sfn, stateMachineArn);
  const warnings = m.unserved.map(
    (t) => html`<li data-unserved-state="${t.state}"><code>${t.location}</code>: ${t.message}</li>`,
  );
  const body = html`<h1>${m.name}</h1>
${m.unserved.length > 0
  ? html`<div class="callout warning" id="warnings" data-warnings="${m.unserved.length}"><strong>${tasksNotServed(m.unserved.length)}</strong><ul>${warnings}</ul></div>`
  : ''}
<table class="facts panel"><tbody>
<tr><td>state machine</td><td><code>${m.stateMachineArn}</code></td></tr>
<tr><td>type</td><td>${m.type}</td></tr>
${m.creationDate ? html`<tr><td>created</td><td>${formatTime(m.creationDate)}</td></tr>` : ''}
<tr><td>runs</td><td><a href="/?workflow=${encodeURIComponent(m.name)}">runs of ${m.name}</a></td></tr>
</tbody></table>
<section class="panel"><h2>Definition</h2>${renderStateGraph(JSON.parse(m.definition))}</section>`;
  return renderPage({ title: m.name, active: '/state-machines' }, body);
}
