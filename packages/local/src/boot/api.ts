import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { DEFAULT_LOCAL_PORT, type Clock } from '@autosave/workflow/config';
import { DEFAULT_DLQ_NAME } from '@autosave/runtime/endpoints';
import { startLocalApiServer, type HttpRequestHandler, type LocalApiServer } from '../api/server';
import { CPU_ACCOUNTING_ENV, withCpuAccounting } from '../api/cpu-accounting';
import { LocalSqs } from '../services/sqs/local-sqs';
import { DATA_LAYOUT } from './data-directory';
import type { StartLocalOptions } from './options';
import type { Shutdown } from './shutdown';

/** The API server's handler, bound once the engine is ready; {@link lateBoundHandler}. */
export interface LateBoundHandler {
  readonly handler: HttpRequestHandler;
  readonly unavailable: HttpRequestHandler;
  readonly hold: HttpRequestHandler;
  bind(h: HttpRequestHandler | undefined): void;
}

/**
 * A handler that answers 503 until the engine is ready (and once it stops), so the port is known before the
 * engine starts. A request put on hold meanwhile goes to the next handler bound (503 if that is none: a stop).
 */
function lateBoundHandler(): LateBoundHandler {
  let target: HttpRequestHandler | undefined;
  let held: [IncomingMessage, ServerResponse][] = [];
  const unavailable: HttpRequestHandler = (req, res) => {
    req.resume();
    res.writeHead(503, { 'content-type': 'application/x-amz-json-1.0', 'retry-after': '1' });
    res.end(JSON.stringify({ __type: 'ServiceUnavailable', message: 'The local engine is starting or stopping' }));
  };
  return {
    handler: (req, res) => (target ? target(req, res) : unavailable(req, res)),
    unavailable,
    hold: (req, res) => void held.push([req, res]),
    bind: (h) => {
      target = h;
      const waiting = held;
      held = [];
      for (const [req, res] of waiting) void (h ?? unavailable)(req, res);
    },
  };
}

/** The API server, its late-bound handler, and the local SQS it serves. */
export interface LocalApi {
  readonly sqs: LocalSqs;
  readonly late: LateBoundHandler;
  readonly api: LocalApiServer;
}

/**
 * Opens the local SQS and starts the API server with a late-bound handler (503 until the engine is ready), then
 * creates the dead-letter queue at the server's URL: before the engine, whose options (and the endpoints the
 * functions read) need the port. `commitStats` is read per request, once the engine exists.
 */
export async function startApi(
  options: StartLocalOptions,
  dataDir: string,
  clock: Clock,
  shutdown: Shutdown,
  commitStats: NonNullable<Parameters<typeof withCpuAccounting>[1]>,
): Promise<LocalApi> {
  const sqs = new LocalSqs({ file: join(dataDir, DATA_LAYOUT.sqs), clock });
  shutdown.add(() => sqs.close());
  const late = lateBoundHandler();
  // The benchmark's CPU figures per API call (bench/api-engine.ts): off unless asked for.
  const handler = process.env[CPU_ACCOUNTING_ENV] === '1' ? withCpuAccounting(late.handler, commitStats) : late.handler;
  const api = await startLocalApiServer(handler, options.port ?? DEFAULT_LOCAL_PORT);
  shutdown.add(() => api.close());
  sqs.setBaseUrl(api.url);
  await sqs.handle('CreateQueue', { QueueName: DEFAULT_DLQ_NAME });
  return { sqs, late, api };
}
