import type { SQSClient } from '@aws-sdk/client-sqs';
import { readDeadLetters } from '../../operations';
import { html } from '../html';
import { renderPage } from '../layout';
import { runHref } from './runs-page';

/** `GET /dlq`: the dead-letter queue, one redrive button per run (POST /dlq/redrive). */
export async function deadLettersPage(sqs: SQSClient, queueUrl: string, notice?: string): Promise<string> {
  const letters = await readDeadLetters(sqs, queueUrl);
  const body = html`<h1>Dead letters</h1>
${notice ? html`<p class="notice">${notice}</p>` : ''}
<p class="muted">Runs that failed, timed out or were aborted. A redrive resumes a run at the step that failed; the steps before it keep their results.</p>
<table class="dead-letters"><thead><tr><th>Run</th><th>Workflow</th><th>Status</th><th>Failed state</th><th>Error</th><th>At</th><th></th></tr></thead><tbody>
${letters.length === 0 ? html`<tr><td colspan="7" class="muted">The queue is empty.</td></tr>` : ''}
${letters.map(
  (
    m,
  ) => html`<tr data-message="${m.messageId}"><td><a href="${runHref(m.letter.executionArn)}">${m.runName}</a></td><td>${m.letter.workflow}</td><td>${m.letter.status}</td><td>${m.letter.failedState ?? ''}</td><td><strong>${m.letter.error ?? ''}</strong> ${m.letter.cause ?? ''}</td><td>${m.letter.at}</td>
<td><form method="post" action="/dlq/redrive"><input type="hidden" name="messageId" value="${m.messageId}"><button type="submit">Redrive</button></form></td></tr>`,
)}
</tbody></table>
${letters.length > 1 ? html`<form method="post" action="/dlq/redrive"><input type="hidden" name="all" value="1"><p><button type="submit">Redrive all</button></p></form>` : ''}`;
  return renderPage({ title: 'Dead letters', active: '/dlq' }, body);
}
