import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { LOCAL_ACCOUNT_ID } from '@autosave/workflow/config';

/** A Lambda Function URL request event (payload format 2.0). */
export interface FunctionUrlEvent {
  readonly version: '2.0';
  readonly routeKey: '$default';
  readonly rawPath: string;
  readonly rawQueryString: string;
  readonly cookies?: string[];
  readonly headers: Record<string, string>;
  readonly queryStringParameters?: Record<string, string>;
  readonly requestContext: {
    readonly accountId: string;
    readonly apiId: string;
    readonly domainName: string;
    readonly domainPrefix: string;
    readonly http: { method: string; path: string; protocol: string; sourceIp: string; userAgent: string };
    readonly requestId: string;
    readonly routeKey: '$default';
    readonly stage: '$default';
    readonly time: string;
    readonly timeEpoch: number;
  };
  readonly body?: string;
  readonly isBase64Encoded: boolean;
}

/** A Function URL response: the structured form, or any other value (sent as a JSON body with status 200). */
export interface FunctionUrlResult {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly cookies: string[];
  readonly body: Buffer;
}

const TEXT_CONTENT_TYPE = /^(text\/|application\/(json|x-www-form-urlencoded|xml|javascript))/i;

/** Builds the event Lambda gives a Function URL handler for this HTTP request. */
export function toFunctionUrlEvent(req: IncomingMessage, body: Buffer, now: Date = new Date()): FunctionUrlEvent {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'cookie') continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const cookies = req.headers.cookie
    ?.split(';')
    .map((c) => c.trim())
    .filter(Boolean);
  const contentType = String(req.headers['content-type'] ?? '');
  const isText = body.length === 0 || TEXT_CONTENT_TYPE.test(contentType);
  const host = String(req.headers.host ?? 'localhost');
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies && cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: 'local',
      domainName: host,
      domainPrefix: host.split('.')[0],
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: String(req.headers['user-agent'] ?? ''),
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 ? { body: isText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

/**
 * Interprets a handler's return value as Lambda does for Function URLs: an object with `statusCode` is the
 * structured response; anything else is serialized as a JSON body with status 200.
 */
export function fromFunctionUrlResult(value: unknown): FunctionUrlResult {
  if (value !== null && typeof value === 'object' && 'statusCode' in value) {
    const r = value as {
      statusCode: number;
      headers?: Record<string, unknown>;
      cookies?: string[];
      body?: unknown;
      isBase64Encoded?: boolean;
    };
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.headers ?? {})) headers[k.toLowerCase()] = String(v);
    const text =
      r.body === undefined || r.body === null ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
    return {
      statusCode: r.statusCode,
      headers,
      cookies: r.cookies ?? [],
      body: Buffer.from(text, r.isBase64Encoded ? 'base64' : 'utf8'),
    };
  }
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    cookies: [],
    body: Buffer.from(value === undefined ? '' : JSON.stringify(value), 'utf8'),
  };
}
