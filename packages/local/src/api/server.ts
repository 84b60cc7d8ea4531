import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepIdleConnections } from './idle-connections';
import { seconds, systemClock, type Clock, type Duration } from '@autosave/workflow/config';
import {
  AWS_JSON_CONTENT_TYPE,
  type AwsJsonService,
  decodeJsonObject,
  parseTarget,
  type WireError,
} from './aws-json-protocol';
import { AWS_QUERY_CONTENT_TYPE, type AwsQueryService, isQueryRequestPath } from './aws-query-requests';
import { type FunctionUrlEvent, fromFunctionUrlResult, toFunctionUrlEvent } from './function-url-event';
import { NdjsonLineError, ndjsonValues } from './ndjson-lines';

/**
 * Largest request body accepted: a 1 MB definition or a 256 KiB execution input fits with room for JSON
 * escaping, so oversized *inputs* still reach the engine and get the service's own error.
 */
export const DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/** Path prefix of the virtual-clock control routes. */
export const CLOCK_ROUTE = '/_autosave/clock';
/** Path of the stack mode's routes: `GET` describes the deployed assembly, `POST .../deploy` applies one. */
export const STACK_ROUTE = '/_autosave/stack';
/** Path of the mocked-run route: `GET /_autosave/mocked-run?executionArn=<arn>` (what the console marks as mocked). */
export const MOCKED_RUN_ROUTE = '/_autosave/mocked-run';
/**
 * Path of the import route: `POST /_autosave/import`, a newline-delimited JSON body (the run's header, then
 * one history event a line) that `autosave pull` streams; `GET /_autosave/imported-run?executionArn=` says
 * where a pulled run came from.
 */
export const IMPORT_ROUTE = '/_autosave/import';
export const IMPORTED_RUN_ROUTE = '/_autosave/imported-run';
/**
 * Path of the wait for a run: `GET /_autosave/wait?executionArn=<arn>[&waitSeconds=<0..60>]` answers
 * DescribeExecution's shape the moment the run's close is committed, or after `waitSeconds` (default
 * {@link DEFAULT_WAIT_SECONDS}) with the run still RUNNING; a service error as DescribeExecution's.
 */
export const WAIT_ROUTE = '/_autosave/wait';
/** How long one wait holds when the caller does not say: SQS's longest long poll. */
export const DEFAULT_WAIT_SECONDS = 20;
/** The longest one wait holds: below the idle timeouts of common HTTP clients and proxies. */
export const MAX_WAIT_SECONDS = 60;

/** Path prefix of the approval pages (served by the `approval-endpoint` function). */
export const APPROVALS_ROUTE = '/approvals/';

/** Longest single move of the virtual clock: 10 years (the service's longest wait is a year; more is a typo or an attack). */
export const MAX_CLOCK_ADVANCE_SECONDS = 10 * 366 * 24 * 3600;

/** A clock tests can move forward (the engine's virtual clock). */
export interface ControllableClock extends Clock {
  /** Moves time forward; resolves once everything due by then has been acted on. */
  advance(by: Duration): unknown;
}

/** A plain Node request handler (the console pages). */
export type HttpRequestHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** Answers a Function URL event (the `approval-endpoint` Lambda, run in-process). */
export type FunctionUrlInvoker = (event: FunctionUrlEvent) => Promise<unknown>;

/** What the one local port serves. */
export interface LocalApiOptions {
  /** Services on `POST /` by `X-Amz-Target` prefix (Step Functions, SQS). */
  readonly services: readonly AwsJsonService[];
  /**
   * The service of form-encoded `POST`s without `X-Amz-Target` to `/` or a queue path (SQS's query
   * protocol, which older AWS CLIs speak). @default none: such requests get a JSON error
   */
  readonly queryService?: AwsQueryService;
  /** When set, `GET /_autosave/clock` and `POST /_autosave/clock/advance` control it. @default no clock routes */
  readonly virtualClock?: ControllableClock;
  /** Serves `/approvals/*`. @default 404 */
  readonly approvals?: FunctionUrlInvoker;
  /** The console: every other GET (`/`, `/runs...`, `/static...`). @default a plain text index */
  readonly console?: HttpRequestHandler;
  /** The stack mode: `GET /_autosave/stack` and `POST /_autosave/stack/deploy {"assemblyDir"}`. @default 404 */
  readonly stack?: {
    describe(): unknown;
    deploy(input: Record<string, unknown>): Promise<unknown>;
  };
  /** The engine's clock: approval requests carry its time (links expire by it). @default the system clock */
  readonly clock?: Clock;
  /** Serves `GET /_autosave/mocked-run?executionArn=`: the run's mock test case, or undefined (404). @default 404 */
  readonly mockedRun?: (executionArn: string) => unknown;
  /**
   * Serves `POST /_autosave/import`: the body's first line and the lines after it (see {@link IMPORT_ROUTE});
   * a refusal is thrown as an error whose `name` the answer carries (400). @default 404
   */
  readonly importRun?: (
    header: Record<string, unknown>,
    events: AsyncIterable<Record<string, unknown>>,
  ) => Promise<unknown>;
  /** Serves `GET /_autosave/imported-run?executionArn=`: where the run was pulled from, or undefined (404). @default 404 */
  readonly importedRun?: (executionArn: string) => unknown;
  /**
   * Serves `GET /_autosave/wait` ({@link WAIT_ROUTE}): DescribeExecution of the run once closed, or after
   * `waitMillis`; errors are the Step Functions service's. @default 404
   */
  readonly waitForExecution?: (executionArn: string, waitMillis: number) => Promise<unknown>;
  /** Request bodies larger than this are refused with 413. @default {@link DEFAULT_MAX_REQUEST_BYTES} */
  readonly maxRequestBytes?: number;
}

class RequestTooLargeError extends Error {
  override readonly name = 'RequestTooLargeError';
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      req.resume();
      reject(new RequestTooLargeError(`Request body of ${declared} bytes is over the limit of ${limit} bytes`));
      return;
    }
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new RequestTooLargeError(`Request body is over the limit of ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(
  res: ServerResponse,
  statusCode: number,
  contentType: string,
  body: string | Buffer,
  headers?: Record<string, string>,
): void {
  if (res.headersSent) return;
  // A flat [name, value, ...] list: what Node writes without walking an object (every API answer comes here).
  const head = ['content-type', contentType, 'content-length', String(Buffer.byteLength(body))];
  if (headers) for (const name in headers) head.push(name, headers[name]);
  res.writeHead(statusCode, head);
  res.end(body);
}

function sendWireError(res: ServerResponse, error: WireError): void {
  send(
    res,
    error.statusCode ?? 400,
    AWS_JSON_CONTENT_TYPE,
    JSON.stringify({ __type: error.type, message: error.message }),
    {
      'x-amzn-errortype': error.type,
      ...error.headers,
    },
  );
}

function sendJson(res: ServerResponse, statusCode: number, value: unknown): void {
  send(res, statusCode, 'application/json', JSON.stringify(value));
}

/**
 * The local port's request handler: AWS JSON 1.0 services on `POST /`, the clock routes, the approval
 * pages and the console. Exported separately from {@link startLocalApiServer} so it can be mounted elsewhere.
 */
export function createLocalApiHandler(options: LocalApiOptions): HttpRequestHandler {
  const limit = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  const services = new Map(options.services.map((s) => [s.targetPrefix, s]));

  async function serveAwsJson(req: IncomingMessage, res: ServerResponse, target: string | undefined): Promise<void> {
    const parsed = parseTarget(target);
    const service = parsed && services.get(parsed.prefix);
    if (!parsed || !service) {
      sendWireError(res, { type: 'UnknownOperationException', message: `Unknown X-Amz-Target: ${target ?? '(none)'}` });
      req.resume();
      return;
    }
    const body = await readBody(req, limit);
    const decoded = decodeJsonObject(body.toString('utf8'));
    if (!decoded.ok) {
      sendWireError(res, service.serializationError(decoded.message));
      return;
    }
    try {
      const output = await service.handle(parsed.operation, decoded.value);
      send(res, 200, AWS_JSON_CONTENT_TYPE, JSON.stringify(output ?? {}));
    } catch (err) {
      const wire = service.describeError(err);
      if (wire) sendWireError(res, wire);
      else {
        console.error(`autosave local: internal error in ${target}:`, err);
        sendWireError(res, {
          type: 'InternalFailure',
          message: (err as Error)?.message ?? String(err),
          statusCode: 500,
        });
      }
    }
  }

  async function serveQuery(
    req: IncomingMessage,
    res: ServerResponse,
    service: AwsQueryService,
    path: string,
  ): Promise<void> {
    const form = new URLSearchParams((await readBody(req, limit)).toString('utf8'));
    const answer = await service.handle(form, path);
    send(res, answer.statusCode, AWS_QUERY_CONTENT_TYPE, answer.body);
  }

  async function serveClock(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const clock = options.virtualClock;
    if (!clock) return sendJson(res, 404, { message: 'The virtual clock is off: start with --virtual-clock' });
    const describe = () => ({ now: new Date(clock.now()).toISOString(), epochMillis: clock.now() });
    if (req.method === 'GET' && path === CLOCK_ROUTE) return sendJson(res, 200, describe());
    if (req.method === 'POST' && path === `${CLOCK_ROUTE}/advance`) {
      const decoded = decodeJsonObject((await readBody(req, limit)).toString('utf8'));
      const n = decoded.ok ? decoded.value.seconds : undefined;
      if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > MAX_CLOCK_ADVANCE_SECONDS) {
        return sendJson(res, 400, {
          message: `Body must be {"seconds": <a number from 0 to ${MAX_CLOCK_ADVANCE_SECONDS}>}`,
        });
      }
      await clock.advance(seconds(n));
      return sendJson(res, 200, describe());
    }
    sendJson(res, 405, { message: `${req.method} ${path} is not a clock route` });
  }

  async function serveStack(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const stack = options.stack;
    if (!stack) {
      req.resume();
      return sendJson(res, 404, {
        __type: 'ResourceNotFound',
        message: 'This engine runs the registry path: start it with autosave local --stack',
      });
    }
    if (req.method === 'GET' && path === STACK_ROUTE) return sendJson(res, 200, stack.describe());
    if (req.method === 'POST' && path === `${STACK_ROUTE}/deploy`) {
      const decoded = decodeJsonObject((await readBody(req, limit)).toString('utf8'));
      if (!decoded.ok) return sendJson(res, 400, { __type: 'SerializationException', message: decoded.message });
      try {
        return sendJson(res, 200, await stack.deploy(decoded.value));
      } catch (err) {
        const e = err as Error;
        // A deploy the template makes impossible is the caller's to fix (400), naming what failed.
        return sendJson(res, 400, { __type: e.name || 'Error', message: e.message });
      }
    }
    req.resume();
    sendJson(res, 405, { message: `${req.method} ${path} is not a stack route` });
  }

  async function serveImport(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const importRun = options.importRun;
    if (!importRun || req.method !== 'POST') {
      req.resume();
      return sendJson(res, importRun ? 405 : 404, {
        message: 'POST a run to import (autosave pull) to a local engine',
      });
    }
    const lines = ndjsonValues(req, limit);
    try {
      const first = await lines.next();
      if (first.done || first.value === null || typeof first.value !== 'object')
        throw new NdjsonLineError("the first line must be the run's header");
      const events = (async function* () {
        for await (const value of lines) yield value as Record<string, unknown>;
      })();
      return sendJson(res, 200, await importRun(first.value as Record<string, unknown>, events));
    } catch (err) {
      req.resume();
      const e = err as Error;
      const known =
        e instanceof NdjsonLineError ||
        (typeof e?.name === 'string' && e.name !== 'Error' && !(e instanceof TypeError));
      if (!known) console.error('autosave local: import failed:', err);
      return sendJson(res, known ? 400 : 500, {
        __type: known ? e.name : 'InternalFailure',
        message: e?.message ?? String(err),
      });
    }
  }

  async function serveWait(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.resume();
    const wait = options.waitForExecution;
    if (!wait || req.method !== 'GET')
      return sendJson(res, wait ? 405 : 404, {
        message: `GET ${WAIT_ROUTE}?executionArn=<arn>&waitSeconds=<0..${MAX_WAIT_SECONDS}> waits for a run`,
      });
    const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
    const waitSeconds = query.has('waitSeconds') ? Number(query.get('waitSeconds')) : DEFAULT_WAIT_SECONDS;
    if (!Number.isFinite(waitSeconds) || waitSeconds < 0 || waitSeconds > MAX_WAIT_SECONDS) {
      return sendWireError(res, {
        type: 'ValidationException',
        message: `waitSeconds must be a number from 0 to ${MAX_WAIT_SECONDS}`,
      });
    }
    const stepFunctions = services.get('AWSStepFunctions');
    try {
      send(
        res,
        200,
        AWS_JSON_CONTENT_TYPE,
        JSON.stringify(await wait(query.get('executionArn') ?? '', waitSeconds * 1000)),
      );
    } catch (err) {
      const wire = stepFunctions?.describeError(err);
      if (!wire) console.error('autosave local: wait failed:', err);
      sendWireError(
        res,
        wire ?? { type: 'InternalFailure', message: (err as Error)?.message ?? String(err), statusCode: 500 },
      );
    }
  }

  async function serveApproval(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!options.approvals) return send(res, 404, 'text/plain', 'Approvals are not served here\n');
    const event = toFunctionUrlEvent(req, await readBody(req, limit), new Date((options.clock ?? systemClock).now()));
    let result;
    try {
      result = fromFunctionUrlResult(await options.approvals(event));
    } catch (err) {
      console.error('autosave local: approval-endpoint failed:', err);
      return sendJson(res, 502, { Message: 'Internal Server Error' });
    }
    const headers: Record<string, string | string[]> = { ...result.headers };
    if (result.cookies.length > 0) headers['set-cookie'] = result.cookies;
    res.writeHead(result.statusCode, { ...headers, 'content-length': result.body.length });
    res.end(result.body);
  }

  return async (req, res) => {
    try {
      // The APIs' calls first, before the URL is parsed: every one is a `POST /` naming its operation.
      const target = req.headers['x-amz-target'];
      if (req.method === 'POST' && target !== undefined) return await serveAwsJson(req, res, String(target));
      let path: string;
      try {
        path = new URL(req.url ?? '/', 'http://localhost').pathname;
      } catch {
        req.resume();
        return send(res, 400, 'text/plain', 'Bad request target\n');
      }
      const form = String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
      if (req.method === 'POST' && form && options.queryService && isQueryRequestPath(path))
        return await serveQuery(req, res, options.queryService, path);
      // `POST /` is the APIs' address: without a target it is an API request that names no operation.
      if (req.method === 'POST' && path === '/') return await serveAwsJson(req, res, undefined);
      if (path === CLOCK_ROUTE || path.startsWith(`${CLOCK_ROUTE}/`)) return await serveClock(req, res, path);
      if (path === STACK_ROUTE || path.startsWith(`${STACK_ROUTE}/`)) return await serveStack(req, res, path);
      if (path.startsWith(APPROVALS_ROUTE)) return await serveApproval(req, res);
      if (path === MOCKED_RUN_ROUTE && req.method === 'GET') {
        const arn = new URL(req.url ?? '/', 'http://localhost').searchParams.get('executionArn') ?? '';
        const view = options.mockedRun?.(arn);
        return view === undefined
          ? sendJson(res, 404, { message: 'Not a mocked run (started without #<TestCase>), or no such run' })
          : sendJson(res, 200, view);
      }
      if (path === WAIT_ROUTE) return await serveWait(req, res);
      if (path === IMPORT_ROUTE) return await serveImport(req, res);
      if (path === IMPORTED_RUN_ROUTE && req.method === 'GET') {
        const arn = new URL(req.url ?? '/', 'http://localhost').searchParams.get('executionArn') ?? '';
        const origin = options.importedRun?.(arn);
        return origin === undefined
          ? sendJson(res, 404, { message: 'Not a pulled run, or no such run' })
          : sendJson(res, 200, origin);
      }
      if (options.console) return await options.console(req, res);
      if (req.method === 'GET' && path === '/') {
        return send(
          res,
          200,
          'text/plain; charset=utf-8',
          'Autosave local engine: Step Functions and SQS APIs on POST / (AWS JSON 1.0).\n',
        );
      }
      req.resume();
      send(res, 404, 'text/plain', 'Not found\n');
    } catch (err) {
      if (err instanceof RequestTooLargeError) {
        sendWireError(res, { type: 'RequestEntityTooLargeException', message: err.message, statusCode: 413 });
        return;
      }
      console.error('autosave local: request failed:', err);
      send(res, 500, 'text/plain', 'Internal error\n');
    }
  };
}

/** A listening local API server. */
export interface LocalApiServer {
  readonly server: Server;
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the handler on 127.0.0.1 (loopback only: signatures are not verified). `port` 0 picks a free port. */
export async function startLocalApiServer(handler: HttpRequestHandler, port: number): Promise<LocalApiServer> {
  const server = keepIdleConnections(createServer((req, res) => void handler(req, res)));
  // Long polls (ReceiveMessage WaitTimeSeconds) and slow handlers must not be cut by Node's defaults.
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actualPort = (server.address() as AddressInfo).port;
  return {
    server,
    port: actualPort,
    url: `http://127.0.0.1:${actualPort}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
