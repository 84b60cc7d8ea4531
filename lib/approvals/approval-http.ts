import { refusalPage, type ApprovalPage } from './approval-page';
import type { ApprovalService, DecisionForm } from './approval-service';

/** The parts of an HTTP request the approval endpoint reads (from a Function URL event or the local server). */
export interface ApprovalHttpRequest {
  readonly method: string;
  /** e.g. `/approvals/<id>` */
  readonly path: string;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly contentType?: string;
  /** The decoded body. */
  readonly body?: string;
}

/** An HTTP response in the shape a Function URL returns. */
export interface ApprovalHttpResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Headers of every approval page: never cached, never framed, and the signed URL never leaks in a Referer. */
export const APPROVAL_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};

const PATH = /^\/approvals\/([A-Za-z0-9_-]{1,64})\/?$/;

/** GET shows the page; POST decides; anything else is refused. */
export async function handleApprovalHttp(service: ApprovalService, request: ApprovalHttpRequest): Promise<ApprovalHttpResponse> {
  const match = PATH.exec(request.path);
  const method = request.method.toUpperCase();
  let page: ApprovalPage;
  if (!match) page = refusalPage('not-found');
  else if (method === 'GET' || method === 'HEAD') page = await service.view(match[1], request.query.sig);
  else if (method === 'POST') page = await service.decide(match[1], request.query.sig, parseForm(request));
  else return { statusCode: 405, headers: { ...APPROVAL_PAGE_HEADERS, allow: 'GET, POST' }, body: '' };
  return { statusCode: page.statusCode, headers: { ...APPROVAL_PAGE_HEADERS }, body: method === 'HEAD' ? '' : page.html };
}

function parseForm(request: ApprovalHttpRequest): DecisionForm {
  const body = request.body ?? '';
  if (request.contentType?.includes('application/json')) {
    try {
      const json = JSON.parse(body) as Record<string, unknown>;
      return { decision: str(json.decision), by: str(json.by), comment: str(json.comment) };
    } catch {
      return {};
    }
  }
  const form = new URLSearchParams(body);
  return { decision: form.get('decision') ?? undefined, by: form.get('by') ?? undefined, comment: form.get('comment') ?? undefined };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
