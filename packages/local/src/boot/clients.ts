import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_REGION, LOCAL_CREDENTIALS } from '@autosave/workflow/config';
import type { LocalApiServer } from '../api/server';
import type { LocalDynamoDbDoor } from '../services/dynamodb-door';
import { lazyClient } from '../services/lazy-client';
import type { LocalS3 } from '../services/s3';
import type { Shutdown } from './shutdown';

/** The local endpoints' region and credentials, for the engine's own SDK clients. */
export const LOCAL_CLIENT_CONFIG = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };

/** The engine's own SDK clients of the local DynamoDB, SQS and S3, each made on first use. */
export interface EngineClients {
  /** The DynamoDB client, made (and the local DynamoDB started) on first use. */
  readonly dynamodbClientOf: () => Promise<DynamoDBClient>;
  readonly dynamodbClient: DynamoDBClient;
  readonly sqsClient: SQSClient;
  readonly s3Client: S3Client;
}

/** The engine's own SDK clients: once the storage listens; none is made (nor its SDK loaded) before its first call. */
export function engineClients(boot: {
  readonly api: LocalApiServer;
  readonly dynamodb: LocalDynamoDbDoor;
  readonly s3: LocalS3;
  readonly shutdown: Shutdown;
}): EngineClients {
  const { api, dynamodb, s3, shutdown } = boot;
  // The engine's own (aws-sdk:dynamodb Tasks, the recorded approval decisions, the stack's deploy), through
  // the door: made, and the local DynamoDB started, on first use.
  let ownDynamoDb: Promise<DynamoDBClient> | undefined;
  const dynamodbClientOf = () =>
    (ownDynamoDb ??= import('@aws-sdk/client-dynamodb').then(
      ({ DynamoDBClient }) => new DynamoDBClient({ ...LOCAL_CLIENT_CONFIG, endpoint: dynamodb.endpoint }),
    ));
  const dynamodbClient = lazyClient<DynamoDBClient>(dynamodbClientOf);
  // The engine's sqs:sendMessage Tasks only: made when the first one runs.
  const sqsClient = lazyClient<SQSClient>(
    async () => new (await import('@aws-sdk/client-sqs')).SQSClient({ ...LOCAL_CLIENT_CONFIG, endpoint: api.url }),
  );
  const s3Client = lazyClient<S3Client>(
    async () =>
      new (await import('@aws-sdk/client-s3')).S3Client({
        ...LOCAL_CLIENT_CONFIG,
        endpoint: s3.endpoint,
        forcePathStyle: true,
      }),
  );
  shutdown.add(
    () => sqsClient.destroy(),
    () =>
      void ownDynamoDb?.then(
        (c) => c.destroy(),
        () => undefined,
      ),
    () => s3Client.destroy(),
  );
  return { dynamodbClientOf, dynamodbClient, sqsClient, s3Client };
}
