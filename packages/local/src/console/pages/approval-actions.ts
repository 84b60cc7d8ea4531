import { html, linkable, type SafeHtml } from '../html';

/**
 * Approve and Reject where the user looks: two small forms that post to the approval link itself, as its page's
 * own buttons do (the link is the credential; the endpoint records the decision once and refuses a second). The
 * console and the links share the engine's port, so the endpoint sees a same-origin form.
 */
export function approvalActions(url: string | undefined): SafeHtml {
  const link = linkable(url);
  if (!link) return html`<span class="muted">no link recorded</span>`;
  const button = (decision: 'approve' | 'reject', label: string) =>
    html`<form method="post" action="${link}" class="inline"><input type="hidden" name="decision" value="${decision}"><input type="hidden" name="by" value="the local console"><button type="submit" class="${decision}">${label}</button></form>`;
  return html`<span class="approval-actions">${button('approve', 'Approve')} ${button('reject', 'Reject')} <a class="approval-link" href="${link}">Open the approval page</a></span>`;
}
