/**
 * What the crash tests and `npm run chaos` share: an engine process on a fixed port that can be SIGKILLed
 * and restarted at once (as a supervisor would), clients that ride through the restarts, and the counts
 * taken from outside the engine (approval records in its DynamoDB, emails in the outbox).
 */
import { createServer } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DEFAULT_TABLE_NAME } from '@autosave/runtime/endpoints';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { OutboxEmailProvider, type OutboxEmail } from '@autosave/runtime/tools';
import { ENDPOINTS_FILE, type LocalEndpoints } from '../../packages/local/src/services/local-environment';
import { startEngineProcess, type EngineProcess } from '../integration/crash/support/engine-process';

/** A port free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

/** Options of {@link EngineSupervisor}. */
export interface EngineSupervisorOptions {
  readonly dataDir: string;
  readonly port: number;
  /** @default false */
  readonly virtualClock?: boolean;
}

/**
 * Keeps one `autosave local` process running on a fixed port: `killAndRestart()` SIGKILLs it and spawns the
 * next at once. Records how long each start took until the API first answered.
 */
export class EngineSupervisor {
  readonly url: string;
  /** Milliseconds from spawn to the first answered request, per start. */
  readonly bootMillis: number[] = [];
  /** Milliseconds from the kill to the next spawn, per restart. */
  readonly restartDelayMillis: number[] = [];
  private current?: Promise<EngineProcess>;
  private kills = 0;

  constructor(private readonly options: EngineSupervisorOptions) {
    this.url = `http://127.0.0.1:${options.port}`;
  }

  get killCount(): number {
    return this.kills;
  }

  /** Spawns the engine; resolves once it listens (clients need not wait: they retry). */
  start(): Promise<EngineProcess> {
    const spawnedAt = Date.now();
    const started = startEngineProcess({
      dataDir: this.options.dataDir,
      port: this.options.port,
      virtualClock: this.options.virtualClock,
      startTimeoutMillis: 120_000,
    });
    this.current = started;
    void started
      .then(() => this.firstAnswer())
      .then(
        () => this.bootMillis.push(Date.now() - spawnedAt),
        () => undefined,
      );
    return started;
  }

  /** SIGKILL, then the next start at once. */
  async killAndRestart(): Promise<EngineProcess> {
    const engine = await this.current!;
    await engine.kill();
    const killedAt = Date.now();
    this.kills += 1;
    const next = this.start();
    this.restartDelayMillis.push(Date.now() - killedAt);
    return next;
  }

  /** The running engine (once it listens). */
  ready(): Promise<EngineProcess> {
    return this.current!;
  }

  async stop(): Promise<void> {
    const engine = await this.current?.catch(() => undefined);
    await engine?.stop();
  }

  private async firstAnswer(): Promise<void> {
    for (;;) {
      try {
        const res = await fetch(this.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-amz-json-1.0',
            'x-amz-target': 'AWSStepFunctions.ListStateMachines',
          },
          body: '{}',
        });
        await res.body?.cancel();
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      await sleep(5);
    }
  }
}

/** A Step Functions client that rides through engine restarts (connection refused, 503) by retrying. */
export function restartProofSfn(url: string): SFNClient {
  return new SFNClient({ endpoint: url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
}

/** Retries `call` while the engine is down or restarting (connection errors, 5xx), up to `deadlineMillis`. */
export async function throughRestarts<T>(call: () => Promise<T>, deadlineMillis = 180_000): Promise<T> {
  const deadline = Date.now() + deadlineMillis;
  for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
    try {
      return await call();
    } catch (err) {
      const e = err as { $metadata?: { httpStatusCode?: number }; name?: string; cause?: unknown };
      const status = e.$metadata?.httpStatusCode;
      const transient = status === undefined || status >= 500 || e.name === 'TypeError' || e.name === 'TimeoutError';
      if (!transient || Date.now() > deadline) throw err;
    }
    await sleep(delay);
  }
}

/** An approval record as the approval service stores it (read from outside, through the engine's DynamoDB). */
export interface StoredApproval {
  readonly id: string;
  readonly executionArn: string;
  readonly status: string;
  readonly decision?: { readonly approved: boolean; readonly by: string };
  readonly delivered?: boolean;
}

/** Every approval record in the engine's table (the engine must be running: its DynamoDB lives in it). */
export async function storedApprovals(dataDir: string): Promise<StoredApproval[]> {
  const endpoints = JSON.parse(await readFile(join(dataDir, ENDPOINTS_FILE), 'utf8')) as LocalEndpoints;
  const client = new DynamoDBClient({
    endpoint: endpoints.dynamodb,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    const doc = DynamoDBDocumentClient.from(client);
    const items: StoredApproval[] = [];
    for await (const page of paginateScan(
      { client: doc },
      {
        TableName: DEFAULT_TABLE_NAME,
        ConsistentRead: true,
        FilterExpression: 'begins_with(id, :p)',
        ExpressionAttributeValues: { ':p': 'approval#' },
      },
    )) {
      items.push(...((page.Items ?? []) as StoredApproval[]));
    }
    return items;
  } finally {
    client.destroy();
  }
}

/** Every email in the engine's outbox (a directory: readable with the engine down too). */
export function outboxOf(dataDir: string): Promise<OutboxEmail[]> {
  return new OutboxEmailProvider(join(dataDir, 'outbox')).list();
}

/** Median and maximum of some figures. */
export function spread(values: readonly number[]): { median: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? NaN, max: sorted.at(-1) ?? NaN };
}
