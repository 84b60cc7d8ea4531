import type { ApprovalRecord } from './approval-record';

/** The outcomes the approval endpoint can show, each with its own page and status code. */
export type ApprovalPageKind =
  | 'pending'
  | 'decided'
  | 'delivered'
  | 'forged'
  | 'cross-site'
  | 'expired'
  | 'already-decided'
  | 'unknown'
  | 'run-closed'
  | 'not-found'
  | 'unavailable';

/** Status code of each page. */
export const APPROVAL_PAGE_STATUS: Record<ApprovalPageKind, number> = {
  pending: 200,
  decided: 200,
  delivered: 200,
  forged: 403,
  'cross-site': 403,
  expired: 410,
  'already-decided': 409,
  unknown: 404,
  'run-closed': 410,
  'not-found': 404,
  unavailable: 503,
};

/** An HTTP answer of the approval endpoint. */
export interface ApprovalPage {
  readonly kind: ApprovalPageKind;
  readonly statusCode: number;
  readonly html: string;
}

const escape = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const when = (millis: number): string =>
  new Date(millis)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escape(title)} · Autosave</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.4rem}pre{background:#f4f4f6;padding:1rem;overflow:auto;border-radius:6px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{color:#666}
textarea,input[type=text]{width:100%;box-sizing:border-box;font:inherit;padding:.4rem}
button{font:inherit;padding:.5rem 1.4rem;margin-right:.5rem;border-radius:6px;border:1px solid #888;cursor:pointer}
.approve{background:#1a7f37;color:#fff;border-color:#1a7f37}.reject{background:#cf222e;color:#fff;border-color:#cf222e}</style>
</head><body>${body}</body></html>`;
}

function summary(record: ApprovalRecord): string {
  return `<dl><dt>Workflow</dt><dd>${escape(record.workflow)}</dd><dt>Step</dt><dd>${escape(record.step)}</dd>
<dt>Execution</dt><dd><code>${escape(record.executionArn)}</code></dd>
<dt>Requested</dt><dd>${when(record.requestedAtMillis)}</dd><dt>Link expires</dt><dd>${when(record.expiresAtSeconds * 1000)}</dd></dl>
<h2>Details</h2><pre>${escape(JSON.stringify(record.details, null, 2) ?? 'null')}</pre>`;
}

/** The page a GET shows for a pending approval: what is asked, and a form that POSTs the decision. */
export function pendingPage(record: ApprovalRecord, formAction: string): ApprovalPage {
  const body = `<h1>${escape(record.title)}</h1>${summary(record)}
<form method="post" action="${escape(formAction)}">
<p><label>Your name or email<br><input type="text" name="by" value="${escape(record.approvers[0] ?? '')}" maxlength="200" required></label></p>
<p><label>Comment (optional)<br><textarea name="comment" rows="3" maxlength="2000"></textarea></label></p>
<p><button class="approve" type="submit" name="decision" value="approve">Approve</button>
<button class="reject" type="submit" name="decision" value="reject">Reject</button></p></form>`;
  return page('pending', record.title, body);
}

/** The page after a decision was delivered to the run. */
export function decidedPage(record: ApprovalRecord): ApprovalPage {
  const d = record.decision!;
  return page(
    'decided',
    d.approved ? 'Approved' : 'Rejected',
    `<h1>${d.approved ? 'Approved' : 'Rejected'}: ${escape(record.title)}</h1><p>Recorded for ${escape(d.by)} at ${escape(d.at)}. The workflow continues.</p>`,
  );
}

/** The page when a decision recorded earlier, whose delivery was cut off, has now reached the run. */
export function deliveredPage(record: ApprovalRecord): ApprovalPage {
  const d = record.decision!;
  const verdict = d.approved ? 'Approved' : 'Rejected';
  return page(
    'delivered',
    verdict,
    `<h1>${verdict}: ${escape(record.title)}</h1><p>${verdict} by ${escape(d.by)} at ${escape(d.at)}. That decision had been recorded but had not reached the workflow yet; it has now been delivered, and the workflow continues.</p>${summary(record)}`,
  );
}

/** One of the pages that refuse: forged, cross-site, expired, already decided, unknown, run closed, not found, unavailable. */
export function refusalPage(
  kind: Exclude<ApprovalPageKind, 'pending' | 'decided' | 'delivered'>,
  record?: ApprovalRecord,
): ApprovalPage {
  const text: Record<typeof kind, [string, string]> = {
    forged: ['This link is not valid', 'The link was altered or was not issued by Autosave. Nothing was decided.'],
    'cross-site': [
      'Decide on the approval page',
      'This decision was sent from another site, not from the approval page. Nothing was decided: open the link and decide there.',
    ],
    expired: ['This link has expired', 'The approval window for this request has closed. Nothing was decided.'],
    'already-decided': [
      'Already decided',
      record?.decision
        ? `This request was already ${record.decision.approved ? 'approved' : 'rejected'} by ${escape(record.decision.by)} at ${escape(record.decision.at)}. A link can be used once.`
        : 'This request was already decided. A link can be used once.',
    ],
    unknown: ['Unknown approval', 'There is no approval request behind this link (it may have been cleaned up).'],
    'run-closed': [
      'The run is no longer waiting',
      'The workflow run timed out or ended before this decision arrived, so it was not applied. If the run is redriven, a new approval link will be sent.',
    ],
    'not-found': ['Not found', 'Approval links look like /approvals/&lt;id&gt;?sig=…'],
    unavailable: [
      'Please try again',
      'The decision could not be delivered just now and was not recorded. Try again in a moment.',
    ],
  };
  const [title, message] = text[kind];
  return page(kind, title, `<h1>${title}</h1><p>${message}</p>${record && kind !== 'unknown' ? summary(record) : ''}`);
}

function page(kind: ApprovalPageKind, title: string, body: string): ApprovalPage {
  return { kind, statusCode: APPROVAL_PAGE_STATUS[kind], html: layout(title, body) };
}
