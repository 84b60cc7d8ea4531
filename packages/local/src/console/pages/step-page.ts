import {
  describeFailure,
  describeStepOutcome,
  formatDuration,
  formatTime,
  stepKind,
  type RunDetails,
  type StepAttempt,
  type StepEntry,
} from '../../operations';
import { html, type SafeHtml } from '../html';
import { renderPage } from '../layout';
import { runHref } from './runs-page';

/** The console's address of one entry of a run's timeline (1-based, in the order the run entered its states). */
export const stepHref = (executionArn: string, entry: number): string => `${runHref(executionArn)}/steps/${entry}`;

/** JSON (a value, or JSON text) laid out for reading; anything else as it is. */
export function prettyJson(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2);
}

/** A payload kept by reference (over the inline limit): the console says where it is instead of its bytes. */
const isPayloadRef = (value: unknown): value is { $ref: string } =>
  value !== null && typeof value === 'object' && typeof (value as { $ref?: unknown }).$ref === 'string';

const block = (title: string, value: unknown): SafeHtml =>
  value === undefined ? html`` : html`<h2>${title}</h2><pre>${prettyJson(value)}</pre>`;

/** An error for people first: what went wrong in the user's words (operations' describeFailure), the raw cause one click away. */
export function errorBlock(error: string | undefined, cause: string | undefined): SafeHtml {
  if (!error && !cause) return html``;
  const { headline } = describeFailure(error, cause);
  return html`<div class="callout error" data-error="${error ?? ''}"><strong class="headline">${headline}</strong>${
    cause
      ? html`<details><summary>${error ?? 'Error'} · raw cause</summary><pre>${prettyJson(cause)}</pre></details>`
      : ''
  }</div>`;
}

interface ModelInput {
  readonly prompt?: string;
  readonly system?: string;
  readonly modelId?: string;
  readonly turn?: number;
  readonly conversation?: unknown;
  readonly toolResults?: unknown;
}
interface ModelOutput {
  readonly text?: string;
  readonly final?: boolean;
  readonly toolCalls?: readonly { readonly id?: string; readonly name?: string; readonly input?: unknown }[];
  readonly usage?: { readonly inputTokens?: number; readonly outputTokens?: number };
  readonly replayed?: boolean;
}

/** A model turn: what it was asked, what it said, the tools it called, its tokens, and whether it was replayed. */
function modelTurn(attempt: StepAttempt): SafeHtml {
  const input = (attempt.input ?? {}) as ModelInput;
  const output = attempt.output as ModelOutput | undefined;
  const facts: [string, SafeHtml | string][] = [
    ['turn', String(input.turn ?? 0)],
    ['model', input.modelId ?? 'the default model'],
    ...(output?.usage
      ? [['tokens', `${output.usage.inputTokens ?? 0} in, ${output.usage.outputTokens ?? 0} out`] as [string, string]]
      : []),
    ...(output
      ? ([
          [
            'answer',
            output.replayed
              ? html`<span class="badge mocked">replayed</span> from the record: the model was not called again`
              : 'made by the model',
          ],
        ] as [string, SafeHtml | string][])
      : []),
  ];
  return html`<section class="panel model-turn" data-turn="${String(input.turn ?? 0)}"><h2>Model turn ${String(input.turn ?? 0)}</h2>
<table class="facts"><tbody>${facts.map(([k, v]) => html`<tr><td>${k}</td><td>${v}</td></tr>`)}</tbody></table>
${input.system ? html`<h2>System</h2><pre>${input.system}</pre>` : ''}
${input.prompt ? html`<h2>Prompt</h2><pre class="prompt">${input.prompt}</pre>` : ''}
${isPayloadRef(input.conversation) ? html`<p class="muted">The conversation so far is kept by reference: <code>${input.conversation.$ref}</code></p>` : ''}
${input.toolResults !== undefined && !(Array.isArray(input.toolResults) && input.toolResults.length === 0) ? (isPayloadRef(input.toolResults) ? html`<p class="muted">The previous turn's tool results are kept by reference: <code>${input.toolResults.$ref}</code></p>` : block('Tool results it was given', input.toolResults)) : ''}
${output?.text !== undefined ? html`<h2>Text</h2><pre class="model-text">${output.text}</pre>` : ''}
${output?.toolCalls?.length ? html`<h2>Tool calls</h2><table class="tool-calls"><thead><tr><th>Tool</th><th>Input</th></tr></thead><tbody>${output.toolCalls.map((c) => html`<tr><td><code>${c.name ?? ''}</code></td><td><code class="payload">${JSON.stringify(c.input ?? {})}</code></td></tr>`)}</tbody></table>` : ''}
</section>`;
}

/** A tool step's calls: each key, and whether the ledger answered or the tool ran. */
function toolCalls(entry: StepEntry): SafeHtml {
  const sourceWords = {
    executed: 'the tool ran',
    replayed: 'the ledger answered: the tool did not run again',
    reconciled: 'reconciled with the ledger',
  } as const;
  if (entry.calls?.length) {
    return html`<h2>Calls</h2><table class="tool-calls"><thead><tr><th>Call</th><th>Tool</th><th>Result</th></tr></thead><tbody>${entry.calls.map((c) => html`<tr><td><code>${c.id}</code></td><td>${c.name}</td><td>${sourceWords[c.source] ?? c.source}</td></tr>`)}</tbody></table>`;
  }
  return entry.source
    ? html`<p class="ledger" data-source="${entry.source}">${sourceWords[entry.source] ?? entry.source}</p>`
    : html``;
}

/**
 * `GET /runs/<arn>/steps/<n>`: one entry of a run's timeline inspected: its input and output, its error, every
 * attempt with its time and outcome, a model step's turn (prompt, text, tool calls, tokens, replayed or not), a
 * tool step's idempotency key and whether the ledger answered.
 */
export function stepPage(details: RunDetails, executionArn: string, entryNumber: number): string | undefined {
  const { execution: e, analysis } = details;
  const entry = analysis.entries[entryNumber - 1];
  if (!entry) return undefined;
  const arn = e.executionArn ?? executionArn;
  const origin = analysis.startedAt?.getTime() ?? e.startDate?.getTime() ?? 0;
  const kind = stepKind(entry);
  const attempts = entry.attemptLog;
  const neighbours = html`<p class="step-nav">${entryNumber > 1 ? html`<a href="${stepHref(arn, entryNumber - 1)}">← previous step</a> · ` : ''}<a href="${runHref(arn)}">the run</a>${entryNumber < analysis.entries.length ? html` · <a href="${stepHref(arn, entryNumber + 1)}">next step →</a>` : ''}</p>`;
  const body = html`<h1>${entry.name} <span class="muted">step ${String(entryNumber)} of <a href="${runHref(arn)}">${e.name}</a></span></h1>
${neighbours}
${entry.outcome === 'failed' || attempts.some((a) => a.outcome === 'failed') ? errorBlock(entry.error, entry.cause) : ''}
<table class="facts panel"><tbody>
<tr><td>state</td><td>${entry.type}${kind !== entry.type ? ` (${kind} step)` : ''}${entry.parent ? html` inside <code>${entry.parent.name}</code>` : ''}</td></tr>
<tr><td>outcome</td><td data-outcome="${entry.outcome}">${describeStepOutcome(entry)}</td></tr>
<tr><td>entered</td><td>${formatTime(entry.enteredAt)} (+${formatDuration(entry.enteredAt.getTime() - origin)})${entry.exitedAt ? ` · took ${formatDuration(entry.exitedAt.getTime() - entry.enteredAt.getTime())}` : ''}</td></tr>
${entry.idempotencyKey ? html`<tr><td>idempotency key</td><td><code>${entry.idempotencyKey}</code></td></tr>` : ''}
${entry.functionName ? html`<tr><td>function</td><td><code>${entry.functionName}</code></td></tr>` : ''}
</tbody></table>
${kind === 'tool' ? toolCalls(entry) : ''}
${
  attempts.length > 0
    ? html`<h2>Attempts</h2><table class="attempts"><thead><tr><th>#</th><th>At</th><th>Took</th><th>Outcome</th></tr></thead><tbody>${attempts.map(
        (a, i) =>
          html`<tr data-attempt="${String(i + 1)}" data-outcome="${a.outcome}"><td>${String(i + 1)}</td><td class="at">+${formatDuration(a.startedAt.getTime() - origin)}</td><td>${a.endedAt ? formatDuration(a.endedAt.getTime() - a.startedAt.getTime()) : '…'}</td><td>${a.outcome === 'failed' ? html`<strong>${a.error ?? 'failed'}</strong>${a.cause ? html` <span class="muted">${a.cause.split('\n')[0].slice(0, 160)}</span>` : ''}` : a.outcome}${a.reinvocation ? ' (invoked again after an engine restart)' : ''}</td></tr>`,
      )}</tbody></table>`
    : ''
}
${kind === 'model' ? attempts.map(modelTurn) : ''}
${block('Input', entry.input)}
${block('Output', entry.output)}
${kind !== 'model' && attempts.at(-1)?.input !== undefined ? html`<details><summary>What the last attempt was called with</summary><pre>${prettyJson(attempts.at(-1)!.input)}</pre></details>` : ''}`;
  return renderPage({ title: `${entry.name} · ${e.name ?? 'run'}`, active: '/' }, body);
}
