import { DEFAULT_DLQ_NAME } from '@autosave/runtime/endpoints';
import type { LocalApiServer } from '../api/server';
import type { LocalDynamoDbDoor } from '../services/dynamodb-door';
import type { LocalS3 } from '../services/s3';
import type { LocalSqs } from '../services/sqs/local-sqs';
import {
  localEnvironment,
  localEndpoints,
  writeEndpointsFile,
  type LocalEndpoints,
} from '../services/local-environment';

/** The local endpoints, and the environment of the in-process functions. */
export interface LocalFunctionEnvironment {
  readonly endpoints: LocalEndpoints;
  readonly environment: NodeJS.ProcessEnv;
}

/**
 * Writes the endpoints file and makes the functions' environment: once every server listens (their URLs are in
 * both), before the functions are built with it.
 */
export async function writeEndpoints(boot: {
  readonly api: LocalApiServer;
  readonly dynamodb: LocalDynamoDbDoor;
  readonly s3: LocalS3;
  readonly sqs: LocalSqs;
  readonly dataDir: string;
  readonly variables: Readonly<Record<string, string>> | undefined;
}): Promise<LocalFunctionEnvironment> {
  const { api, dynamodb, s3, sqs, dataDir, variables } = boot;
  const endpoints = localEndpoints({
    url: api.url,
    dynamodb: dynamodb.endpoint,
    s3: s3.endpoint,
    dlqUrl: sqs.queueUrl(DEFAULT_DLQ_NAME),
  });
  // What every in-process handler reads its configuration from, as a Lambda function reads its variables.
  const environment = localEnvironment({ endpoints, dataDir, variables });
  await writeEndpointsFile(dataDir, endpoints);
  return { endpoints, environment };
}
