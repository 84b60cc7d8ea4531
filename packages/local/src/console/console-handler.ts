import type { IncomingMessage, ServerResponse } from 'node:http';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_REGION, LOCAL_CREDENTIALS } from '@autosave/workflow/config';
import { loadRuntimeConfig } from '@autosave/runtime/endpoints';
import {
  describeOperationError,
  engineClock,
  deadLetterMatches,
  redriveDeadLetters,
  resolveDeadLetterQueueUrl,
  InvalidRunFilterError,
  InvalidRunInputError,
  mockedRunOf,
  runOrigin,
  startRun,
  startTargetOf,
  expressRunSummary,
  loadRunDetails,
  runDetailsOf,
} from '../operations';
import { RedriveExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { html } from './html';
import { renderPage } from './layout';
import { approvalsPage } from './pages/approvals-page';
import { deadLettersPage } from './pages/dead-letters-page';
import { outboxPage } from './pages/outbox-page';
import { eventsPage } from './pages/events-page';
import { runPage } from './pages/run-page';
import { stepPage } from './pages/step-page';
import { runsPage } from './pages/runs-page';
import { expressResultPage, stateMachinePage, stateMachinesPage } from './pages/state-machines-page';
import { type ConsoleServices, servicesPage } from './pages/services-page';

/** Options of {@link createConsoleHandler}. */
export interface ConsoleOptions {
  /**
   * The engine's own URL (the mount hook's option, local/api/console-mount.ts): the console reads runs
   * through the Step Functions and SQS APIs there, like any
   * client. A function when the port is known only once the server listens (port 0).
   */
  readonly sfnEndpoint: string | (() => string);
  /** The outbox provider's directory. @default `AUTOSAVE_OUTBOX_DIR` (as the runtime reads it) */
  readonly outboxDir?: string;
  /** The dead-letter queue's URL. @default `AUTOSAVE_DLQ_URL`, else the queue `autosave-dlq` at the endpoint */
  readonly dlqUrl?: string | (() => string);
  /** What the engine runs (the registry path, or which stack and assembly), shown in every page's header. */
  readonly engineLabel?: () => string;
  /** The engine's emulated services (SNS, EventBridge, CloudWatch metrics), for `/services`. @default none: the page lists nothing */
  readonly services?: ConsoleServices;
  /** Clients to use instead of ones made for `endpoint` (tests). */
  readonly clients?: { readonly sfn: SFNClient; readonly sqs: SQSClient };
}

/** Largest form body the console reads (a redrive button posts a few dozen bytes). */
const MAX_FORM_BYTES = 16 * 1024;

const HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // Inline styles only; no script, no request to anywhere but this origin.
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'",
};

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = HTML_HEADERS): void {
  if (res.headersSent) return;
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** A form body over {@link MAX_FORM_BYTES}: answered 413. */
class FormTooLargeError extends Error {
  override readonly name = 'FormTooLargeError';
}

/** A request the console cannot read (a path that does not decode): answered 400. */
class BadConsoleRequestError extends Error {
  override readonly name = 'BadConsoleRequestError';
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_FORM_BYTES) {
    req.resume();
    throw new FormTooLargeError(`A console form is at most ${MAX_FORM_BYTES} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) {
      req.resume();
      throw new FormTooLargeError(`A console form is at most ${MAX_FORM_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** A path segment decoded, or 400 when it is not valid percent-encoded UTF-8 (`%`, `%ED%A0%80`). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadConsoleRequestError(`The path segment ${JSON.stringify(segment)} is not valid percent-encoding`);
  }
}

/**
 * A POST from a page of another site (a form a malicious page submits to 127.0.0.1) must not redrive
 * runs: browsers send `Origin` (and `Sec-Fetch-Site`) on cross-site posts.
 */
function isSameOrigin(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  if (!origin || origin === 'null') return !origin;
  // An Origin that is not a URL (`garbage`) is no origin of ours.
  return URL.canParse(origin) && new URL(origin).host === req.headers.host;
}

/** The service refused a request for what it asked (a name already used, a bad name): the user's to fix, a 400. */
function isServiceRefusal(err: unknown): boolean {
  const e = err as { $fault?: string; $metadata?: { httpStatusCode?: number } };
  return e?.$fault === 'client' && (e.$metadata?.httpStatusCode ?? 500) < 500;
}

const errorPage = (status: number, title: string, message: string) =>
  renderPage(
    { title, active: '' },
    html`<h1>${title}</h1><p class="callout error">${message}</p><p><a href="/">Back to the runs</a></p>`,
  );

/**
 * The local console as a Node request handler, for the engine's port (`GET /`, `/runs/<arn>`,
 * `/state-machines`, `/state-machines/<arn>`, `/services`, `/approvals`, `/dlq`, `POST /dlq/redrive`, `/outbox`). Server-rendered HTML, every value escaped, no
 * script and no build step. It answers every request it is given (unknown paths get a 404 page) and
 * resolves to `true`, so it can be mounted as the server's last handler.
 */
export function createConsoleHandler(
  options: ConsoleOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  let clients = options.clients;
  const endpoint = () => (typeof options.sfnEndpoint === 'function' ? options.sfnEndpoint() : options.sfnEndpoint);
  // The engine's now (its virtual clock under --virtual-clock) for durations of runs still open.
  const engineNow = engineClock(endpoint);
  const outboxDir = () => options.outboxDir ?? loadRuntimeConfig().outboxDir;
  const getClients = () =>
    (clients ??= {
      // Start on an EXPRESS machine is StartSyncExecution, whose `sync-` host prefix a local endpoint does not answer.
      sfn: new SFNClient({
        endpoint: endpoint(),
        region: LOCAL_REGION,
        credentials: LOCAL_CREDENTIALS,
        disableHostPrefix: true,
      }),
      sqs: new SQSClient({ endpoint: endpoint(), region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
    });
  let dlqUrl: Promise<string> | undefined;
  const queueUrl = () =>
    (dlqUrl ??= options.dlqUrl
      ? Promise.resolve(typeof options.dlqUrl === 'function' ? options.dlqUrl() : options.dlqUrl)
      : resolveDeadLetterQueueUrl(getClients().sqs)).catch((err) => {
      dlqUrl = undefined; // the queue may be created later: ask again next time
      throw err;
    });

  // Which assembly (or the registry) the engine runs, in the header of every page.
  const withEngineLabel = (page: string): string =>
    options.engineLabel
      ? page.replace(
          '</header>',
          html`<span class="engine" style="margin-left:auto;opacity:.8">${options.engineLabel()}</span></header>`.toString(),
        )
      : page;

  return async (req, res) => {
    const method = req.method ?? 'GET';
    if (!URL.canParse(req.url ?? '/', 'http://localhost')) {
      req.resume();
      send(res, 400, errorPage(400, 'Bad request', 'The request target is not a URL.'));
      return true;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    try {
      const { sfn, sqs } = getClients();
      if (method === 'POST' && path === '/dlq/redrive') {
        if (!isSameOrigin(req))
          return (send(res, 403, errorPage(403, 'Refused', 'A redrive must come from the console itself.')), true);
        const form = await readForm(req);
        const all = form.get('all') === '1';
        const id = form.get('messageId') ?? '';
        const outcomes = await redriveDeadLetters(sfn, sqs, await queueUrl(), (m) => all || deadLetterMatches(m, id));
        const notice =
          outcomes.length === 0
            ? 'Nothing to redrive (already done?)'
            : outcomes
                .map((o) => (o.redriven ? `Redriven ${o.runName}` : `Dropped ${o.runName}: ${o.reason}`))
                .join('. ');
        res.writeHead(303, { location: `/dlq?notice=${encodeURIComponent(notice)}`, 'content-length': 0 });
        res.end();
        return true;
      }
      const runAction = method === 'POST' ? /^\/runs\/([^/]+)\/(redrive|stop)$/.exec(path) : null;
      if (runAction) {
        const [, encodedArn, action] = runAction;
        if (!isSameOrigin(req))
          return (send(res, 403, errorPage(403, 'Refused', `A ${action} must come from the console itself.`)), true);
        req.resume();
        const arn = decodeSegment(encodedArn);
        try {
          if (action === 'redrive') await sfn.send(new RedriveExecutionCommand({ executionArn: arn }));
          else
            await sfn.send(
              new StopExecutionCommand({
                executionArn: arn,
                error: 'Stopped',
                cause: 'Stopped from the local console',
              }),
            );
        } catch (err) {
          // The service's refusal (not redrivable: succeeded, running, closed more than 14 days ago; already closed) is the page's answer.
          const e = err as Error & { $metadata?: { httpStatusCode?: number } };
          if ((e.$metadata?.httpStatusCode ?? 500) < 500)
            return (
              send(
                res,
                409,
                errorPage(409, action === 'stop' ? 'Not stopped' : 'Not redriven', `${e.name}: ${e.message}`),
              ),
              true
            );
          throw err;
        }
        res.writeHead(303, { location: `/runs/${encodeURIComponent(arn)}`, 'content-length': 0 });
        res.end();
        return true;
      }
      const start = method === 'POST' ? /^\/state-machines\/([^/]+)\/start$/.exec(path) : null;
      if (start) {
        if (!isSameOrigin(req))
          return (send(res, 403, errorPage(403, 'Refused', 'A start must come from the console itself.')), true);
        const form = await readForm(req);
        const machineArn = decodeSegment(start[1]);
        const started = await startRun(
          sfn,
          await startTargetOf(sfn, machineArn),
          form.get('input') ?? '{}',
          form.get('name')?.trim() || undefined,
        );
        if (started.kind === 'express')
          return (send(res, 200, withEngineLabel(expressResultPage(machineArn, started.result))), true);
        res.writeHead(303, { location: `/runs/${encodeURIComponent(started.executionArn)}`, 'content-length': 0 });
        res.end();
        return true;
      }
      if (method !== 'GET' && method !== 'HEAD') {
        send(res, 405, errorPage(405, 'Method not allowed', `${method} ${path}`), { ...HTML_HEADERS, allow: 'GET' });
        return true;
      }
      let page: string;
      if (path === '/' || path === '/runs')
        page = await runsPage(
          sfn,
          url.searchParams,
          await engineNow(),
          (options.services?.expressRuns?.list() ?? []).map((r) => expressRunSummary(r)),
        );
      else if (path.startsWith('/runs/')) {
        // /runs/<arn>, /runs/<arn>/steps/<n>, /runs/<arn>/events (an encoded ARN holds no '/').
        const [encodedArn, view, n] = path.slice('/runs/'.length).split('/');
        const arn = decodeSegment(encodedArn);
        const known =
          view === undefined ||
          (view === 'events' && n === undefined) ||
          (view === 'steps' && /^[1-9]\d{0,6}$/.test(n ?? ''));
        if (!known) return (send(res, 404, errorPage(404, 'Not found', `Nothing at ${path}.`)), true);
        // An EXPRESS run is read from what the console kept of it as it closed (the service keeps none).
        const express = options.services?.expressRuns?.get(arn);
        const details = express ? runDetailsOf(express.execution, express.events) : await loadRunDetails(sfn, arn);
        if (view === undefined)
          page = await runPage(
            sfn,
            details,
            arn,
            await engineNow(),
            (a) => mockedRunOf(endpoint(), a),
            (a) => runOrigin(endpoint(), a),
          );
        else if (view === 'events') page = eventsPage(details, arn, url.searchParams.get('type') ?? undefined);
        else {
          const step = stepPage(details, arn, Number(n));
          if (step === undefined)
            return (send(res, 404, errorPage(404, 'No such step', `The run has no step ${n}.`)), true);
          page = step;
        }
      } else if (path === '/state-machines') page = await stateMachinesPage(sfn);
      else if (path.startsWith('/state-machines/'))
        page = await stateMachinePage(sfn, decodeSegment(path.slice('/state-machines/'.length)));
      else if (path === '/services') page = servicesPage(options.services ?? {});
      else if (path === '/approvals') page = await approvalsPage(sfn, await engineNow());
      else if (path === '/dlq')
        page = await deadLettersPage(sqs, await queueUrl(), url.searchParams.get('notice') ?? undefined);
      else if (path === '/outbox') page = await outboxPage(sfn, outboxDir());
      else {
        send(res, 404, errorPage(404, 'Not found', `Nothing at ${path}.`));
        return true;
      }
      send(res, 200, method === 'HEAD' ? '' : withEngineLabel(page));
    } catch (err) {
      const name = (err as Error)?.name;
      const notFound =
        name === 'RunNotFoundError' ||
        name === 'ExecutionDoesNotExist' ||
        name === 'StateMachineDoesNotExist' ||
        name === 'InvalidArn';
      const status = notFound
        ? 404
        : err instanceof FormTooLargeError
          ? 413
          : err instanceof InvalidRunFilterError ||
              err instanceof InvalidRunInputError ||
              err instanceof BadConsoleRequestError ||
              isServiceRefusal(err)
            ? 400
            : 500;
      if (status === 500) console.error(`autosave console: ${method} ${path} failed:`, err);
      const title = notFound
        ? name === 'StateMachineDoesNotExist'
          ? 'No such state machine'
          : 'No such run'
        : status === 400
          ? 'Bad request'
          : status === 413
            ? 'Too large'
            : 'Console error';
      send(res, status, errorPage(status, title, describeOperationError(err)));
    }
    return true;
  };
}
