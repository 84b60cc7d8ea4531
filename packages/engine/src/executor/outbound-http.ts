/**
 * The HTTP requests a definition makes (`http:invoke`), bounded as the HTTP Task is on AWS and kept from
 * being turned on the machine that runs the engine:
 *
 * - only `http:` and `https:` URLs;
 * - by default no loopback, link-local (169.254.169.254 answers a cloud machine's role keys), private or
 *   unspecified address, checked on the addresses the name resolves to when the socket connects (so a name
 *   that resolves to 127.0.0.1, or changes what it resolves to, is caught), and none of the engine's own
 *   ports; {@link OutboundHttpOptions.allowedTargets} lets through the local targets a user means to call;
 * - at most 60 seconds per call (Step Functions service quotas, "Quotas related to HTTP Task"), and a
 *   response read no further than 256 KB (the payload limit its result must fit in), the socket closed there.
 */
import type { LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { STATES_PAYLOAD_LIMIT_BYTES } from '@autosave/workflow/config';
import { lazyRequire } from '../lazy-require';

// TLS and the resolver load at the first HTTP Task that needs them: a restart answers before any runs one.
const https = lazyRequire<typeof import('node:https')>('node:https');
const dns = lazyRequire<typeof import('node:dns')>('node:dns');

/** How long an HTTP Task's call may take on AWS. */
export const HTTP_TASK_TIMEOUT_MILLIS = 60_000;

/** Options of {@link outboundHttp}. */
export interface OutboundHttpOptions {
  /**
   * Local targets a definition may call: `host` (any port) or `host:port`, as the URL writes them
   * (`127.0.0.1:8080`, `localhost:3000`, `[::1]:9000`). The engine's own ports stay refused unless named
   * with their port. `autosave local --allow-outbound` and `integrations.json`'s `outbound.allow` set it.
   * @default none: loopback, link-local and private addresses are refused
   */
  readonly allowedTargets?: readonly string[];
  /** The engine's own ports (its API, DynamoDB, S3), refused on a local address unless named with their port. @default none */
  readonly ownPorts?: () => Iterable<number>;
  /** @default HTTP_TASK_TIMEOUT_MILLIS (60 s) */
  readonly timeoutMillis?: number;
  /** A longer response body fails the call. @default STATES_PAYLOAD_LIMIT_BYTES (256 KB) */
  readonly maxResponseBytes?: number;
}

/** One request of an HTTP Task. */
export interface OutboundRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** Its answer, read whole (it is at most {@link OutboundHttpOptions.maxResponseBytes}). */
export interface OutboundResponse {
  readonly status: number;
  readonly statusText: string;
  /** Header values by lower-case name, as lists (`set-cookie` may have several). */
  readonly headers: Readonly<Record<string, string[]>>;
  readonly body: string;
}

/** Why a request was not made or not finished: the Task fails with `error` (an ASL error name) and this message. */
export class OutboundRequestError extends Error {
  override readonly name = 'OutboundRequestError';

  constructor(
    message: string,
    /** @default 'States.Http.Socket', the HTTP Task's error for a call that got no usable answer */
    readonly error = 'States.Http.Socket',
  ) {
    super(message);
  }
}

/** Loopback, link-local, private, shared and unspecified ranges (IPv4-mapped IPv6 addresses included: BlockList maps them). */
const LOCAL_ADDRESSES = (() => {
  const list = new BlockList();
  for (const [net, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
  ] as const)
    list.addSubnet(net, prefix, 'ipv4');
  for (const [net, prefix] of [
    ['::', 128],
    ['::1', 128],
    ['fc00::', 7],
    ['fe80::', 10],
  ] as const)
    list.addSubnet(net, prefix, 'ipv6');
  return list;
})();

/** Whether `address` (an IP) is one a definition may not reach by default. */
export function isLocalAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && LOCAL_ADDRESSES.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

const defaultPort = (url: URL): number => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

/** A function making {@link OutboundRequest}s under `options`. */
export function outboundHttp(
  options: OutboundHttpOptions = {},
): (request: OutboundRequest) => Promise<OutboundResponse> {
  const allowed = new Set((options.allowedTargets ?? []).map((t) => t.toLowerCase()));
  const timeoutMillis = options.timeoutMillis ?? HTTP_TASK_TIMEOUT_MILLIS;
  const maxBytes = options.maxResponseBytes ?? STATES_PAYLOAD_LIMIT_BYTES;
  return async ({ url, method, headers, body }) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new OutboundRequestError(
        `The ApiEndpoint '${url.href}' has the scheme '${url.protocol.slice(0, -1)}': an HTTP Task calls only http and https endpoints`,
        'States.Runtime',
      );
    }
    const host = url.hostname.toLowerCase();
    const port = defaultPort(url);
    const namedWithPort = allowed.has(`${host}:${port}`);
    const hostAllowed = namedWithPort || allowed.has(host);
    const ownPort = !namedWithPort && new Set(options.ownPorts?.() ?? []).has(port);
    const refused = (address: string): boolean => isLocalAddress(address) && (!hostAllowed || ownPort);
    const refusal = (address: string) =>
      new OutboundRequestError(
        `The request to ${url.origin}${address === host ? '' : ` (${address})`} is refused: a definition may not reach loopback, link-local or private addresses, nor the engine's own ports, unless the target is allowed (autosave local --allow-outbound ${url.host})`,
      );
    const literal = host.replace(/^\[|\]$/g, '');
    if (isIP(literal) !== 0 && refused(literal)) throw refusal(literal);
    // A name is checked on what it resolves to, when the socket connects: nothing can change in between.
    const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
      dns().lookup(hostname, { ...lookupOptions, all: true }, (err, addresses: LookupAddress[]) => {
        if (err) return callback(err, '', 0);
        const local = addresses.find((a) => refused(a.address));
        if (local) return callback(refusal(local.address), '', 0);
        if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      });
    };
    return send(url, { method, headers, ...(body !== undefined ? { body } : {}) }, { lookup, timeoutMillis, maxBytes });
  };
}

function send(
  url: URL,
  request: { method: string; headers: Readonly<Record<string, string>>; body?: string },
  limits: { lookup: LookupFunction; timeoutMillis: number; maxBytes: number },
): Promise<OutboundResponse> {
  return new Promise((resolve, reject) => {
    const signal = AbortSignal.timeout(limits.timeoutMillis);
    const make = url.protocol === 'https:' ? https().request : httpRequest;
    const headers = {
      ...request.headers,
      ...(request.body !== undefined ? { 'content-length': String(Buffer.byteLength(request.body)) } : {}),
    };
    const req = make(
      url,
      { method: request.method, headers, lookup: limits.lookup, signal },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limits.maxBytes) {
            // As the Task fails when a result exceeds the payload limit (task.ts), with the read stopped here.
            req.destroy(
              new OutboundRequestError(
                "The state/task 'http' returned a result with a size exceeding the maximum number of bytes service limit.",
                'States.DataLimitExceeded',
              ),
            );
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const headers: Record<string, string[]> = {};
          for (const [name, value] of Object.entries(res.headers))
            if (value !== undefined) headers[name] = Array.isArray(value) ? value : [value];
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', (err) => reject(reason(err, url, limits.timeoutMillis)));
      },
    );
    req.on('error', (err) => reject(reason(err, url, limits.timeoutMillis)));
    if (request.body !== undefined) req.write(request.body);
    req.end();
  });
}

/** The error a failed request fails the Task with, saying which bound ended it. */
function reason(err: Error, url: URL, timeoutMillis: number): OutboundRequestError {
  if (err instanceof OutboundRequestError) return err;
  if (err.name === 'AbortError' || err.name === 'TimeoutError')
    return new OutboundRequestError(
      `The HTTP request to ${url.origin} got no answer within ${timeoutMillis / 1000} seconds, the HTTP Task's limit`,
    );
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof OutboundRequestError) return cause;
  return new OutboundRequestError(`The HTTP request to ${url.origin} got no answer: ${err.message}`);
}
