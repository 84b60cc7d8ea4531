import { formatTime, type ExpressRunReader } from '../../operations';
import { html } from '../html';
import { renderPage } from '../layout';

/**
 * What the console reads of the engine's emulated services (services/sns, services/eventbridge,
 * services/cloudwatch), in the same process: their resources and the newest messages, events and metric
 * data they recorded. Structural, so the console needs none of their code.
 */
export interface ConsoleServices {
  readonly sns?: {
    list(): readonly {
      readonly topic: { readonly arn: string; readonly name: string };
      readonly subscriptions: readonly {
        readonly arn: string;
        readonly protocol: string;
        readonly endpoint: string;
        readonly attributes: Readonly<Record<string, string>>;
      }[];
    }[];
    recentMessages(): readonly {
      readonly messageId: string;
      readonly topicArn: string;
      readonly subject?: string;
      readonly message: string;
      readonly timestamp: string;
      readonly deliveries: number;
      readonly executionArn?: string;
      readonly viaRule?: { readonly rule: string; readonly bus: string };
    }[];
  };
  readonly eventbridge?: {
    list(): readonly {
      readonly bus: string;
      readonly rules: readonly {
        readonly name: string;
        readonly pattern?: string;
        readonly state: string;
        readonly scheduleExpression?: string;
        readonly targets: readonly { readonly Id: string; readonly Arn: string }[];
      }[];
    }[];
    recentEvents(): readonly {
      readonly bus: string;
      readonly event: Readonly<Record<string, unknown>>;
      readonly rules: readonly string[];
      readonly executionArn?: string;
    }[];
  };
  readonly cloudwatch?: {
    recent(): readonly {
      readonly namespace: string;
      readonly metricName: string;
      readonly dimensions: readonly { readonly Name: string; readonly Value: string }[];
      readonly value?: number;
      readonly values?: readonly number[];
      readonly statisticValues?: Readonly<Record<string, number>>;
      readonly unit?: string;
      readonly timestamp: string;
      readonly executionArn?: string;
    }[];
  };
  /** The EXPRESS runs kept as they closed (operations' ExpressRunLog): the runs list and run pages show them. */
  readonly expressRuns?: ExpressRunReader;
}

/** Rows each list shows (the services keep a few hundred). */
export const SERVICES_PAGE_ROWS = 100;

const none = (columns: number, what: string) => html`<tr><td colspan="${columns}" class="muted">${what}</td></tr>`;
const runLink = (executionArn: string | undefined) =>
  executionArn
    ? html`<a href="/runs/${encodeURIComponent(executionArn)}">${executionArn.split(':').pop()}</a>`
    : html`<span class="muted">not from a run</span>`;
/** Where an SNS message came from: its run, or the EventBridge rule that delivered it and the run that put the event. */
const messageOrigin = (m: {
  readonly executionArn?: string;
  readonly viaRule?: { readonly rule: string; readonly bus: string };
}) =>
  m.viaRule
    ? html`delivered by rule <code>${m.viaRule.rule}</code>${m.viaRule.bus === 'default' ? '' : html` on bus <code>${m.viaRule.bus}</code>`} ${m.executionArn ? html`from the event of run ${runLink(m.executionArn)}` : html`<span class="muted">from an event put outside a run</span>`}`
    : runLink(m.executionArn);
// The console's one time format (the runs' pages use it), whatever ISO-8601 form the service recorded.
const at = (time: unknown) => {
  const date = typeof time === 'string' ? new Date(time) : undefined;
  return html`<td class="at">${date && !Number.isNaN(date.getTime()) ? formatTime(date) : String(time ?? '')}</td>`;
};
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * `GET /services`: what the workflows did on the emulated services — SNS topics with their subscriptions
 * and the messages published, EventBridge buses with their rules and the events put (with the rules they
 * matched), and the CloudWatch metric data put by `putMetricData` (with the run that put them).
 */
export function servicesPage(services: ConsoleServices): string {
  const topics = services.sns?.list() ?? [];
  const messages = (services.sns?.recentMessages() ?? []).slice(0, SERVICES_PAGE_ROWS);
  const buses = services.eventbridge?.list() ?? [];
  const events = (services.eventbridge?.recentEvents() ?? []).slice(0, SERVICES_PAGE_ROWS);
  const metrics = (services.cloudwatch?.recent() ?? []).slice(0, SERVICES_PAGE_ROWS);
  const body = html`<h1>Services</h1>
<p class="muted">What workflows did on the engine's emulated services (docs/integrations.md). Newest first.</p>
<section class="panel" id="sns"><h2>SNS topics</h2>
<table class="sns-topics"><thead><tr><th>Topic</th><th>Subscriptions</th></tr></thead><tbody>
${topics.length === 0 ? none(2, 'No topic yet.') : ''}
${topics.map(
  ({ topic, subscriptions }) =>
    html`<tr data-topic="${topic.name}"><td><code>${topic.arn}</code></td><td>${
      subscriptions.length === 0
        ? html`<span class="muted">none</span>`
        : subscriptions.map(
            (s, i) =>
              html`${i > 0 ? html`<br>` : ''}<span data-subscription="${s.protocol}">${s.protocol} → <code>${s.endpoint}</code>${s.attributes.FilterPolicy ? html` <span class="muted">filtered</span>` : ''}</span>`,
          )
    }</td></tr>`,
)}
</tbody></table>
<h2>SNS messages</h2>
<table class="sns-messages"><thead><tr><th>At</th><th>Topic</th><th>Subject</th><th>Message</th><th>Delivered to</th><th>Run</th></tr></thead><tbody>
${messages.length === 0 ? none(6, 'No message published yet.') : ''}
${messages.map(
  (m) =>
    html`<tr data-message="${m.messageId}">${at(m.timestamp)}<td>${m.topicArn.split(':').pop()}</td><td>${m.subject ?? ''}</td><td><code class="payload">${m.message}</code></td><td class="deliveries">${m.deliveries === 0 ? html`<span class="muted">no subscription</span>` : plural(m.deliveries, 'subscription')}</td><td class="run">${messageOrigin(m)}</td></tr>`,
)}
</tbody></table></section>
<section class="panel" id="eventbridge"><h2>EventBridge buses and rules</h2>
<table class="event-rules"><thead><tr><th>Bus</th><th>Rule</th><th>State</th><th>Pattern</th><th>Targets</th></tr></thead><tbody>
${buses.length === 0 ? none(5, 'No bus yet.') : ''}
${buses.map((b) =>
  b.rules.length === 0
    ? html`<tr data-bus="${b.bus}"><td>${b.bus}</td><td colspan="4" class="muted">no rule</td></tr>`
    : b.rules.map(
        (r) =>
          html`<tr data-bus="${b.bus}" data-rule="${r.name}"><td>${b.bus}</td><td>${r.name}</td><td>${r.state}</td><td><code class="payload">${r.pattern ?? r.scheduleExpression ?? ''}</code></td><td>${r.targets.map((t, i) => html`${i > 0 ? html`<br>` : ''}<code>${t.Arn}</code>`)}</td></tr>`,
      ),
)}
</tbody></table>
<h2>Events</h2>
<table class="events"><thead><tr><th>At</th><th>Bus</th><th>Source</th><th>Detail type</th><th>Detail</th><th>Matched rules</th><th>Run</th></tr></thead><tbody>
${events.length === 0 ? none(7, 'No event put yet.') : ''}
${events.map(
  (e) =>
    html`<tr data-event-source="${String(e.event.source ?? '')}">${at(e.event.time)}<td>${e.bus}</td><td>${String(e.event.source ?? '')}</td><td>${String(e.event['detail-type'] ?? '')}</td><td><code class="payload">${JSON.stringify(e.event.detail ?? null)}</code></td><td class="matched-rules">${e.rules.length === 0 ? html`<span class="muted">no rule matched</span>` : e.rules.join(', ')}</td><td class="run">${runLink(e.executionArn)}</td></tr>`,
)}
</tbody></table></section>
<section class="panel" id="metrics"><h2>CloudWatch metrics</h2>
<table class="metrics"><thead><tr><th>At</th><th>Namespace</th><th>Metric</th><th>Dimensions</th><th>Value</th><th>Unit</th><th>Run</th></tr></thead><tbody>
${metrics.length === 0 ? none(7, 'No metric put yet.') : ''}
${metrics.map(
  (d) =>
    html`<tr data-metric="${d.metricName}">${at(d.timestamp)}<td>${d.namespace}</td><td>${d.metricName}</td><td>${d.dimensions.map((x) => `${x.Name}=${x.Value}`).join(', ')}</td><td>${d.value ?? (d.values ? d.values.join(', ') : d.statisticValues ? JSON.stringify(d.statisticValues) : '')}</td><td>${d.unit ?? ''}</td><td class="run">${runLink(d.executionArn)}</td></tr>`,
)}
</tbody></table></section>`;
  return renderPage({ title: 'Services', active: '/services' }, body);
}
