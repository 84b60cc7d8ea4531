import { OutboxEmailProvider } from '@autosave/runtime/tools';
import { html } from '../html';
import { renderPage } from '../layout';

/** `GET /outbox`: every email the local outbox provider "sent", with its idempotency key. */
export async function outboxPage(outboxDir: string): Promise<string> {
  const emails = await new OutboxEmailProvider(outboxDir).list();
  const body = html`<h1>Outbox</h1>
<p class="muted">Emails sent by the local <code>outbox</code> provider (${outboxDir}). One idempotency key sends at most one email.</p>
<table class="outbox"><thead><tr><th>Sent</th><th>Idempotency key</th><th>To</th><th>Subject</th><th>Message id</th></tr></thead><tbody>
${emails.length === 0 ? html`<tr><td colspan="5" class="muted">No email sent yet.</td></tr>` : ''}
${emails.map(
  (m) => html`<tr data-key="${m.idempotencyKey}"><td>${m.sentAt}</td><td><code>${m.idempotencyKey}</code></td><td>${m.to.join(', ')}</td><td>${m.subject}</td><td><code>${m.messageId}</code></td></tr>`,
)}
</tbody></table>`;
  return renderPage({ title: 'Outbox', active: '/outbox' }, body);
}
