import { formatTime, type RunDetails } from '../../operations';
import { html } from '../html';
import { renderPage } from '../layout';
import { runHref } from './runs-page';
import { prettyJson } from './step-page';

/** The console's address of a run's event history, filtered by event type when `type` is given. */
export const eventsHref = (executionArn: string, type?: string): string =>
  `${runHref(executionArn)}/events${type ? `?type=${encodeURIComponent(type)}` : ''}`;

/** The details of an event (the one `...EventDetails` member it carries), for its row. */
function detailsOf(event: Record<string, unknown>): unknown {
  const key = Object.keys(event).find((k) => k.endsWith('EventDetails'));
  return key ? event[key] : undefined;
}

/**
 * `GET /runs/<arn>/events[?type=Failed]`: the run's event history as Step Functions records it, each event with the
 * state it belongs to and its details one click away; filtered by a text its type contains (case-insensitive).
 */
export function eventsPage(details: RunDetails, executionArn: string, type: string | undefined): string {
  const arn = details.execution.executionArn ?? executionArn;
  const wanted = type?.trim().toLowerCase();
  const events = wanted ? details.events.filter((e) => e.type?.toLowerCase().includes(wanted)) : details.events;
  const types = [...new Set(details.events.map((e) => e.type ?? ''))].sort();
  const body = html`<h1>Events of <a href="${runHref(arn)}">${details.execution.name}</a></h1>
<form class="filters" method="get" action="${eventsHref(arn)}"><label>Type contains <input name="type" value="${type ?? ''}" list="event-types"></label> <button>Filter</button>${wanted ? html` <a href="${eventsHref(arn)}">all ${String(details.events.length)} events</a>` : ''}
<datalist id="event-types">${types.map((t) => html`<option value="${t}">`)}</datalist></form>
<p class="muted">${String(events.length)} of ${String(details.events.length)} events</p>
<table class="events"><thead><tr><th>ID</th><th>Time</th><th>Type</th><th>State</th><th>Details</th></tr></thead><tbody>
${events.map((event) => {
  const state = event.id !== undefined ? details.analysis.stateOfEvent.get(event.id) : undefined;
  const detail = detailsOf(event as unknown as Record<string, unknown>);
  return html`<tr data-event="${String(event.id)}" data-type="${event.type ?? ''}"><td>${String(event.id)}</td><td class="at">${formatTime(event.timestamp)}</td><td>${event.type ?? ''}</td><td>${state ?? ''}</td><td>${detail === undefined ? '' : html`<details><summary>details</summary><pre>${prettyJson(detail)}</pre></details>`}</td></tr>`;
})}
</tbody></table>`;
  return renderPage({ title: `Events · ${details.execution.name ?? 'run'}`, active: '/' }, body);
}
