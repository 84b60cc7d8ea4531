/**
 * `autosave pull`: reads a closed run where it ran (AWS, or any Step Functions endpoint) and streams it into
 * the local engine (`POST /_autosave/import`, a route of the local engine only): DescribeExecution,
 * DescribeStateMachineForExecution, then every page of GetExecutionHistory, one event a line, as the pages
 * come. Neither side holds the whole history: a page at a time here, a segment at a time in the engine.
 */
import {
  DescribeExecutionCommand,
  DescribeStateMachineForExecutionCommand,
  paginateGetExecutionHistory,
  paginateListExecutions,
  type ExecutionListItem,
  type HistoryEvent,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { AutosaveError } from '@autosave/workflow/errors';
import type { RunImportAnswer } from '@autosave/engine';
import type { ImportedRunRow } from '@autosave/engine/store';

/** The local engine's import route (local/api/server.ts `IMPORT_ROUTE`; operations does not import the server). */
const IMPORT_PATH = '/_autosave/import';
/** Its companion: where a pulled run came from. */
const IMPORTED_RUN_PATH = '/_autosave/imported-run';

/** A run that cannot be pulled (still running, an express run), or an engine that refused it; the message says why and what to do. */
export class PullRefusedError extends AutosaveError {
  override readonly name = 'PullRefusedError';
}

/** What the engine did with a pulled run, and the payloads the pull copied. */
export type PulledRun = RunImportAnswer & {
  /** The payloads its data names by S3 reference: how many were copied to the local S3, and which could not be (they stay references). */
  readonly payloads: {
    readonly copied: number;
    readonly missing: readonly { readonly ref: string; readonly reason: string }[];
  };
};

/** Where a pulled run came from, as the engine keeps it. */
export type RunOrigin = Omit<ImportedRunRow, 'execution_arn'>;

/** Options of {@link pullRun}. */
export interface PullOptions {
  /** Where the source client points, when not AWS's own endpoint (kept as the run's origin). @default AWS */
  readonly sourceEndpoint?: string;
  /** GetExecutionHistory's page size. @default 1000 (the most the service gives) */
  readonly pageSize?: number;
  /**
   * The source's S3, to copy the payloads the run's data names by reference (`s3://bucket/key`) into the
   * local S3. @default none: references stay references (a step that reads one fails with NoSuchKey)
   */
  readonly payloads?: S3Client;
}

/** Largest payload copied (its line, base64, must fit the engine's request line limit of 4 MiB). */
export const MAX_PULLED_PAYLOAD_BYTES = 2.5 * 1024 * 1024;

/** An S3 reference in an event's text (inside JSON text, its quotes may be escaped). */
const S3_REF = /s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/([^"\\\s]+)/g;

/** A history event on the import's wire: the SDK's shape, its date as epoch milliseconds. */
const wireEvent = (e: HistoryEvent): Record<string, unknown> => ({
  ...e,
  timestamp: e.timestamp instanceof Date ? e.timestamp.getTime() : Number(e.timestamp) * 1000,
});

/** Pulls one run from `source` into the engine at `engineEndpoint`; see the module comment. */
export async function pullRun(
  source: SFNClient,
  engineEndpoint: string,
  executionArn: string,
  options: PullOptions = {},
): Promise<PulledRun> {
  if (/:express:/.test(executionArn)) {
    throw new PullRefusedError(
      `${executionArn} is an EXPRESS run: the service keeps no history of it (only its CloudWatch Logs do, with execution data when logging includes it), so it cannot be pulled`,
    );
  }
  const execution = await source.send(new DescribeExecutionCommand({ executionArn }));
  if (execution.status === 'RUNNING' || execution.status === 'PENDING_REDRIVE') {
    throw new PullRefusedError(
      `${executionArn} is still ${execution.status}: stop it first (aws stepfunctions stop-execution --execution-arn ${executionArn}), then pull it, or read it where it runs with autosave history`,
    );
  }
  const machine = await source.send(new DescribeStateMachineForExecutionCommand({ executionArn }));
  const header = {
    execution: {
      executionArn,
      name: execution.name,
      status: execution.status,
      startDate: execution.startDate?.getTime() ?? 0,
      ...(execution.stopDate ? { stopDate: execution.stopDate.getTime() } : {}),
      ...(execution.input !== undefined ? { input: execution.input } : {}),
      ...(execution.error !== undefined ? { error: execution.error } : {}),
      ...(execution.cause !== undefined ? { cause: execution.cause } : {}),
      redriveCount: execution.redriveCount ?? 0,
    },
    stateMachine: { name: machine.name, definition: machine.definition, roleArn: machine.roleArn },
    ...(options.sourceEndpoint ? { sourceEndpoint: options.sourceEndpoint } : {}),
  };
  const pages = paginateGetExecutionHistory(
    { client: source, pageSize: options.pageSize ?? 1000 },
    { executionArn, includeExecutionData: true },
  );
  const seen = new Set<string>();
  const payloads = { copied: 0, missing: [] as { ref: string; reason: string }[] };
  const lines = async function* (): AsyncGenerator<string> {
    yield `${JSON.stringify(header)}\n`;
    for await (const page of pages) {
      for (const e of page.events ?? []) {
        const line = JSON.stringify(wireEvent(e));
        yield `${line}\n`;
        if (!options.payloads) continue;
        for (const [ref, bucket, key] of line.matchAll(S3_REF)) {
          if (seen.has(ref)) continue;
          seen.add(ref);
          const copied = await readPayload(options.payloads, bucket, key);
          if (typeof copied === 'string') payloads.missing.push({ ref, reason: copied });
          else {
            payloads.copied += 1;
            yield `${JSON.stringify({ $payload: { bucket, key, base64: Buffer.from(copied).toString('base64') } })}\n`;
          }
        }
      }
    }
  };
  const res = await fetch(new URL(IMPORT_PATH, engineEndpoint), {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: pulledStream(lines()),
    duplex: 'half',
  } as RequestInit);
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (res.status === 404)
    throw new PullRefusedError(
      `${engineEndpoint} takes no pulled runs: pull into a local engine (npx autosave local), not into AWS`,
    );
  if (!res.ok) {
    const type = typeof body.__type === 'string' ? body.__type : `HTTP ${res.status}`;
    throw Object.assign(
      new PullRefusedError(`the local engine refused the run: ${type}: ${String(body.message ?? '')}`),
      { engineError: type },
    );
  }
  return { ...(body as unknown as RunImportAnswer), payloads };
}

/**
 * The lines as a request body that asks for the next line only when the connection has taken the last
 * (Readable.toWeb reads its source ahead without bound: the whole history would wait in memory).
 */
function pulledStream(lines: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await lines.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await lines.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
}

/** A payload's bytes from the source's S3, or why not (the reference then stays a reference). */
async function readPayload(s3: S3Client, bucket: string, key: string): Promise<Uint8Array | string> {
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    if ((out.ContentLength ?? 0) > MAX_PULLED_PAYLOAD_BYTES) {
      (out.Body as { destroy?: () => void } | undefined)?.destroy?.();
      return `over ${MAX_PULLED_PAYLOAD_BYTES} bytes`;
    }
    return (await out.Body?.transformToByteArray()) ?? new Uint8Array();
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
}

/** Where a run of the engine at `endpoint` was pulled from, or undefined (started there, not that engine, no answer). */
export async function runOrigin(endpoint: string | undefined, executionArn: string): Promise<RunOrigin | undefined> {
  if (!endpoint) return undefined;
  try {
    const url = new URL(IMPORTED_RUN_PATH, endpoint);
    url.searchParams.set('executionArn', executionArn);
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    if (!res.ok) return void (await res.body?.cancel());
    const origin = (await res.json()) as Partial<RunOrigin>;
    return typeof origin.source_arn === 'string' ? (origin as RunOrigin) : undefined;
  } catch {
    return undefined;
  }
}

/** What {@link listRunsToPull} selects. */
export interface RunSelection {
  readonly stateMachineArn: string;
  readonly status: 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'SUCCEEDED';
  /** Only runs that stopped at or after this time (epoch ms). @default all */
  readonly sinceMs?: number;
}

/** The runs of a state machine with the status, newest first, stopped since `sinceMs`. */
export async function listRunsToPull(source: SFNClient, selection: RunSelection): Promise<ExecutionListItem[]> {
  const out: ExecutionListItem[] = [];
  for await (const page of paginateListExecutions(
    { client: source, pageSize: 100 },
    { stateMachineArn: selection.stateMachineArn, statusFilter: selection.status },
  )) {
    for (const e of page.executions ?? []) {
      // Newest first: once a run started before the window, every later one did too (it may still have stopped inside it, so only the start bounds the walk).
      if (selection.sinceMs !== undefined && (e.stopDate?.getTime() ?? Infinity) < selection.sinceMs) continue;
      out.push(e);
    }
    const last = page.executions?.at(-1);
    if (
      selection.sinceMs !== undefined &&
      last?.startDate &&
      last.startDate.getTime() < selection.sinceMs - MAX_RUN_MILLIS
    )
      break;
  }
  return out;
}

/** A STANDARD run lasts a year at most: a run started more than that before a time stopped before it. */
const MAX_RUN_MILLIS = 366 * 24 * 3600 * 1000;
