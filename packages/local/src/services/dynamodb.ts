import {
  CreateTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';

/** A running local DynamoDB. */
export interface LocalDynamoDb {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  close(): Promise<void>;
}

/** dynalite running on its own port. */
export interface Dynalite extends LocalDynamoDb {
  /** Its request handler, for a server in front of it to answer with in-process (dynamodb-door.ts). */
  readonly listener: (req: IncomingMessage, res: ServerResponse) => void;
}

/** Options of {@link startLocalDynamoDb}. */
export interface LocalDynamoDbOptions {
  /** LevelDB directory that keeps the tables across restarts. */
  readonly directory: string;
  /** Tables to create (pk `id`, a string) when missing. */
  readonly tables: readonly string[];
  /** @default 0 (a free port) */
  readonly port?: number;
}

/** How long a created table may stay CREATING before the start fails. */
const TABLE_ACTIVE_WAIT_SECONDS = 30;

/** Starts dynalite on a loopback port, persisted under `directory`, with the tables created and ACTIVE. */
export async function startLocalDynamoDb(options: LocalDynamoDbOptions): Promise<Dynalite> {
  // Tables become ACTIVE at once: nothing waits on CREATING.
  const server = dynalite({ path: options.directory, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await createRecordTables(endpoint, options.tables);
  return {
    endpoint,
    listener: server.listeners('request')[0] as Dynalite['listener'],
    close: () => new Promise<void>((resolve, reject) => server.close((err?: Error) => (err ? reject(err) : resolve()))),
  };
}

/**
 * Creates the runtime's tables (pk `id`, a string, on demand) on the DynamoDB at `endpoint` where missing.
 * Shared by the engine's dynalite and the tests' DynamoDB Local, so both serve the same schema.
 */
export async function createRecordTables(endpoint: string, tables: readonly string[]): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    for (const table of tables) {
      try {
        await client.send(
          new CreateTableCommand({
            TableName: table,
            AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
            KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
            BillingMode: 'PAY_PER_REQUEST',
          }),
        );
      } catch (err) {
        if (!(err instanceof ResourceInUseException)) throw err;
      }
    }
    // CreateTable answers while the table is CREATING (dynalite makes it ACTIVE after a write of its own,
    // even with createTableMs 0): a call before then finds no table.
    for (const table of tables)
      await waitUntilTableExists(
        { client, maxWaitTime: TABLE_ACTIVE_WAIT_SECONDS, minDelay: 0.05, maxDelay: 0.5 },
        { TableName: table },
      );
  } finally {
    client.destroy();
  }
}
