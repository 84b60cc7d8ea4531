import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepIdleConnections } from '../api/idle-connections';
import type { LocalDynamoDb, LocalDynamoDbOptions } from './dynamodb';

/** Options of {@link startLocalDynamoDbDoor}. */
export interface LocalDynamoDbDoorOptions extends LocalDynamoDbOptions {
  /**
   * Runs once dynalite is up with its tables, on dynalite's own endpoint, before the door lets any request
   * through: the boot's scan that ends the idempotency leases of attempts cut off by the last stop.
   * @default nothing
   */
  readonly prepare?: (upstreamEndpoint: string) => Promise<void>;
}

/** The local DynamoDB behind its door. */
export interface LocalDynamoDbDoor extends LocalDynamoDb {
  /** Starts dynalite (and {@link LocalDynamoDbDoorOptions.prepare}) if nothing has yet; resolves once the door lets requests through. */
  open(): Promise<void>;
}

/**
 * The local DynamoDB as the functions reach it: a loopback port at once, behind which dynalite starts (its
 * tables created, then `prepare` run) on the first request or {@link LocalDynamoDbDoor.open}. A request that
 * arrives meanwhile waits and is answered by dynalite, in this process (no second hop): the port is known
 * before dynalite and the DynamoDB client are loaded (the heaviest part of a boot), so after a restart the
 * runs caught in flight resume without them, and a function that does call DynamoDB gets its answer only
 * once the leases of the attempts the last stop cut off are ended.
 */
export async function startLocalDynamoDbDoor(options: LocalDynamoDbDoorOptions): Promise<LocalDynamoDbDoor> {
  let upstream:
    Promise<{ listener: (req: IncomingMessage, res: ServerResponse) => void; close(): Promise<void> }> | undefined;
  const startUpstream = () =>
    (upstream ??= (async () => {
      const { startLocalDynamoDb } = await import('./dynamodb');
      const dynalite = await startLocalDynamoDb({ directory: options.directory, tables: options.tables });
      try {
        await options.prepare?.(dynalite.endpoint);
      } catch (err) {
        await dynalite.close();
        throw err;
      }
      return dynalite;
    })());
  // Set once the door starts closing: a request let in just before is handed over a tick later, and dynalite
  // turns an operation that reaches its closed database into an unhandled rejection ('Database is closed').
  let closing = false;
  // The requests dynalite is working on: closing waits for their answers, so that no operation of theirs runs
  // while dynalite's database closes.
  const working = new Set<Promise<void>>();
  const door = keepIdleConnections(
    createServer((req, res) => {
      startUpstream().then(
        (dynalite) => {
          if (closing) return answerStopping(req, res);
          const answered = dynaliteAnswer(req, res);
          working.add(answered);
          void answered.then(() => working.delete(answered));
          dynalite.listener(req, res);
        },
        (err: unknown) => {
          req.resume();
          res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
          res.end(
            JSON.stringify({
              __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
              message: `The local DynamoDB did not start: ${(err as Error)?.message ?? String(err)}`,
            }),
          );
        },
      );
    }),
  );
  await new Promise<void>((resolve, reject) => {
    door.once('error', reject);
    door.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = door.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    // Not once closing: a background open that comes late must not start dynalite behind a closed door.
    open: async () => void (closing ? undefined : await startUpstream()),
    close: async () => {
      closing = true;
      const closed = new Promise<void>((resolve) => door.close(() => resolve()));
      door.closeIdleConnections();
      let waited: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(working),
        new Promise((resolve) => (waited = setTimeout(resolve, CLOSE_WAIT_MILLIS))),
      ]);
      clearTimeout(waited);
      door.closeAllConnections();
      await closed;
      if (upstream) await (await upstream.catch(() => undefined))?.close();
    },
  };
}

/** How long closing waits for the answers dynalite is working on; a stop is never held longer. */
const CLOSE_WAIT_MILLIS = 5_000;

/** Answers a request that arrived while the door closes, in DynamoDB's words (the SDK retries it elsewhere or reports it). */
function answerStopping(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  res.writeHead(503, { 'content-type': 'application/x-amz-json-1.0' });
  res.end(
    JSON.stringify({
      __type: 'com.amazonaws.dynamodb.v20120810#ServiceUnavailableException',
      message: 'The local DynamoDB is stopping',
    }),
  );
}

/**
 * Settles once dynalite has answered `res` (it ends the response after its last database operation), or once the
 * request closed before its body was whole (dynalite then never starts an operation).
 */
function dynaliteAnswer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.end = ((...args: unknown[]) => {
      resolve();
      return end(...args);
    }) as ServerResponse['end'];
    req.once('close', () => {
      if (!req.complete) resolve();
    });
  });
}
