import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { RuntimeConfig } from '@autosave/runtime/endpoints';
import type { LocalApiServer } from '../api/server';
import type { LocalDynamoDbDoor } from '../services/dynamodb-door';
import type { LocalS3 } from '../services/s3';
import { LOCAL_CLIENT_CONFIG } from './clients';
import { DATA_LAYOUT } from './data-directory';
import type { Outbound } from './services';
import type { Shutdown } from './shutdown';

/** Runs `use` with a DynamoDB client of its own on `endpoint`, destroyed after. */
async function withDynamoDbClient<T>(endpoint: string, use: (client: DynamoDBClient) => Promise<T>): Promise<T> {
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const client = new DynamoDBClient({ ...LOCAL_CLIENT_CONFIG, endpoint });
  try {
    return await use(client);
  } finally {
    client.destroy();
  }
}

/**
 * Attempts cut off by the last stop or crash still hold idempotency leases: ended before any function's
 * DynamoDB call gets through the door (in stack mode the stack's tables come with its deploy: see `deploy`).
 */
export async function expireOrphanedLeases(
  client: DynamoDBClient,
  tableName: string,
  log: (line: string) => void,
): Promise<void> {
  const ended = await (await import('../services/orphaned-leases')).expireOrphanedLeases(client, tableName);
  if (ended > 0) log(`  ended ${ended} idempotency lease(s) of step attempts cut off by the last stop`);
}

/** The runtime's configuration and the local DynamoDB (behind its door) and S3. */
export interface LocalStorage {
  readonly runtimeConfig: RuntimeConfig;
  readonly dynamodb: LocalDynamoDbDoor;
  readonly s3: LocalS3;
}

/**
 * Starts the local DynamoDB's door and S3, with the registry path's table and bucket: once the project is loaded
 * (its environment names them), before the endpoints file the functions read.
 */
export async function startStorage(boot: {
  readonly dataDir: string;
  readonly registryPath: boolean;
  readonly variables: Readonly<Record<string, string>> | undefined;
  readonly api: LocalApiServer;
  readonly outbound: Outbound;
  readonly shutdown: Shutdown;
  readonly log: (line: string) => void;
}): Promise<LocalStorage> {
  const { dataDir, registryPath, variables, api, outbound, shutdown, log } = boot;
  const [{ loadRuntimeConfig }, { startLocalDynamoDbDoor }, { startLocalS3 }] = await Promise.all([
    import('@autosave/runtime/endpoints'),
    import('../services/dynamodb-door'),
    import('../services/s3'),
  ]);
  // The table and bucket the handlers will use: the runtime's own reading of AUTOSAVE_TABLE / AUTOSAVE_BUCKET.
  // In stack mode the stack's own tables and buckets are created by its deploy instead.
  const runtimeConfig = loadRuntimeConfig({ ...process.env, ...variables });
  const { table, bucket } = runtimeConfig;
  const [dynamodb, s3] = await Promise.all([
    startLocalDynamoDbDoor({
      directory: join(dataDir, DATA_LAYOUT.dynamodb),
      tables: registryPath ? [table] : [],
      ...(registryPath
        ? {
            prepare: async (endpoint: string) =>
              withDynamoDbClient(endpoint, (client) => expireOrphanedLeases(client, table, log)),
          }
        : {}),
    }),
    startLocalS3({ directory: join(dataDir, DATA_LAYOUT.s3), buckets: registryPath ? [bucket] : [] }),
  ]);
  shutdown.add(
    () => dynamodb.close(),
    () => s3.close(),
  );
  outbound.ownPorts = [api.port, ...[dynamodb.endpoint, s3.endpoint].map((endpoint) => Number(new URL(endpoint).port))];
  return { runtimeConfig, dynamodb, s3 };
}

/**
 * Loads the local DynamoDB behind its door, in the background, once `when` resolves true (its first request opens
 * it sooner): a failure to start is said here.
 */
export function openDynamoDb(dynamodb: LocalDynamoDbDoor, when: Promise<boolean>): void {
  void when
    .then((go) => (go ? dynamodb.open() : undefined))
    .catch((err: unknown) => console.error('autosave local: the local DynamoDB did not start:', err));
}
