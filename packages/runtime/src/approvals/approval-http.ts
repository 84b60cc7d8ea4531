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
  /** Request headers, names in lower case (`host`, `origin`, `sec-fetch-site` are read). @default none */
  readonly headers?: Readonly<Record<string, string | undefined>>;
  /**
   * When the request arrived on the engine's clock (a Function URL's `requestContext.timeEpoch`; the local
   * engine sets it from its clock, virtual or not): links expire by it. @default the service's clock
   */
  readonly receivedAtMillis?: number;
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
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};

const PATH = /^\/approvals\/([A-Za-z0-9_-]{1,64})\/?$/;

/** GET shows the page; POST decides; anything else is refused. */
export async function handleApprovalHttp(
  service: ApprovalService,
  request: ApprovalHttpRequest,
): Promise<ApprovalHttpResponse> {
  const match = PATH.exec(request.path);
  const method = request.method.toUpperCase();
  let page: ApprovalPage;
  if (!match) page = refusalPage('not-found');
  else if (method === 'GET' || method === 'HEAD')
    page = await service.view(match[1], request.query.sig, request.receivedAtMillis);
  else if (method === 'POST' && isCrossSite(request.headers ?? {})) page = refusalPage('cross-site');
  else if (method === 'POST')
    page = await service.decide(match[1], request.query.sig, parseForm(request), request.receivedAtMillis);
  else return { statusCode: 405, headers: { ...APPROVAL_PAGE_HEADERS, allow: 'GET, POST' }, body: '' };
  return {
    statusCode: page.statusCode,
    headers: { ...APPROVAL_PAGE_HEADERS },
    body: method === 'HEAD' ? '' : page.html,
  };
}

/**
 * A POST a browser sent from another site (a forged cross-site form): the link is the credential, this is
 * defence in depth. Browsers say where a request comes from in `Sec-Fetch-Site` (all current ones); else
 * in `Origin`, compared with `Host`. `Origin: null` is what a same-origin form sends from a page with
 * `Referrer-Policy: no-referrer` (ours) in browsers without `Sec-Fetch-Site`. Clients that are no browser
 * (the CLI, curl) send neither and are let through.
 */
export function isCrossSite(headers: Readonly<Record<string, string | undefined>>): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin';
  const origin = headers.origin;
  if (origin === undefined || origin === 'null') return false;
  try {
    return new URL(origin).host !== headers.host;
  } catch {
    return true;
  }
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
  return {
    decision: form.get('decision') ?? undefined,
    by: form.get('by') ?? undefined,
    comment: form.get('comment') ?? undefined,
  };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
