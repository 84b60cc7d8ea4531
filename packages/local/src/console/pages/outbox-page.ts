import type { SFNClient } from '@aws-sdk/client-sfn';
import { OutboxEmailProvider } from '@autosave/runtime/tools';
import { formatTime, runsOfIdempotencyKeys } from '../../operations';
import { html } from '../html';
import { renderPage } from '../layout';
import { runHref } from './runs-page';

/** `GET /outbox`: every email the local outbox provider "sent": its body, its idempotency key and the run that sent it. */
export async function outboxPage(sfn: SFNClient, outboxDir: string): Promise<string> {
  const emails = (await new OutboxEmailProvider(outboxDir).list()).reverse();
  const runs = await runsOfIdempotencyKeys(
    sfn,
    emails.map((m) => ({ idempotencyKey: m.idempotencyKey, at: new Date(m.sentAt) })),
  );
  const body = html`<h1>Outbox</h1>
<p class="muted">Emails sent by the local <code>outbox</code> provider (${outboxDir}), newest first. One idempotency key sends at most one email.</p>
<table class="outbox"><thead><tr><th>Sent</th><th>To</th><th>Subject and body</th><th>Run</th><th>Idempotency key</th><th>Message id</th></tr></thead><tbody>
${emails.length === 0 ? html`<tr><td colspan="6" class="muted">No email sent yet.</td></tr>` : ''}
${emails.map((m) => {
  const run = runs.get(m.idempotencyKey);
  return html`<tr data-key="${m.idempotencyKey}"><td class="at">${formatTime(new Date(m.sentAt))}</td><td>${m.to.join(', ')}</td><td class="body"><strong>${m.subject}</strong><pre class="email-body">${m.body}</pre></td><td class="run">${
    run
      ? html`<a href="${runHref(run.executionArn)}">${run.name}</a>`
      : html`<span class="muted">no run open then used this key</span>`
  }</td><td><code>${m.idempotencyKey}</code></td><td><code>${m.messageId}</code></td></tr>`;
})}
</tbody></table>`;
  return renderPage({ title: 'Outbox', active: '/outbox' }, body);
}
