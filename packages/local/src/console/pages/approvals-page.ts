import type { SFNClient } from '@aws-sdk/client-sfn';
import { listPendingApprovals, formatElapsed } from '../../operations';
import { html } from '../html';
import { approvalActions } from './approval-actions';
import { renderPage } from '../layout';
import { runHref } from './runs-page';

/**
 * `GET /approvals`: every run waiting on a human, linking to the same approval page the Lambda serves.
 * `now` is the engine's (waiting times are left blank without it).
 */
export async function approvalsPage(sfn: SFNClient, now?: number): Promise<string> {
  const approvals = await listPendingApprovals(sfn);
  const body = html`<h1>Pending approvals</h1>
<table class="approvals"><thead><tr><th>Run</th><th>Workflow</th><th>Step</th><th>Waiting</th><th>Expires</th><th></th></tr></thead><tbody>
${approvals.length === 0 ? html`<tr><td colspan="6" class="muted">Nobody is being waited on.</td></tr>` : ''}
${approvals.map(
  (a) =>
    html`<tr data-approval="${a.approvalId ?? ''}"><td><a href="${runHref(a.executionArn)}">${a.runName}</a></td><td>${a.workflow}</td><td>${a.step}</td><td>${formatElapsed(a.since, now, '')}</td><td>${a.expiresAt ?? ''}</td><td>${approvalActions(a.url)}</td></tr>`,
)}
</tbody></table>`;
  return renderPage({ title: 'Approvals', active: '/approvals' }, body);
}
