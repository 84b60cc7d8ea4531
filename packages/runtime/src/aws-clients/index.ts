/**
 * AWS SDK client factories for the runtime (handlers/runtime.ts). Each reads the runtime's environment
 * (`runtimeEnvironment()`: `process.env` on AWS, the function's own environment under the local engine):
 * its region, its `AWS_ENDPOINT_URL_<SERVICE>` / `AWS_ENDPOINT_URL` override and, when the environment is
 * not the process's own, its credentials — the SDK itself would read only `process.env`. S3 gets path-style
 * addressing when it points at a local server (s3rver has no virtual-host buckets). Apart from endpoints/
 * so that reading the configuration loads none of the six clients.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SFNClient } from '@aws-sdk/client-sfn';
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { awsRegion, runtimeEnvironment } from '../endpoints';

/** What a client takes from an environment: region, endpoint override, and credentials when they are not the process's. */
export function clientConfig(service: string, env: NodeJS.ProcessEnv = runtimeEnvironment()) {
  const endpoint = env[`AWS_ENDPOINT_URL_${service}`] || env.AWS_ENDPOINT_URL;
  // From process.env the SDK's own provider chain reads them (and refreshes them where it can).
  const credentials =
    env !== process.env && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? {
          accessKeyId: env.AWS_ACCESS_KEY_ID,
          secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
          ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
        }
      : undefined;
  return { region: awsRegion(env), ...(endpoint ? { endpoint } : {}), ...(credentials ? { credentials } : {}) };
}

/** A DynamoDB client. */
export const createDynamoDbClient = (env: NodeJS.ProcessEnv = runtimeEnvironment()): DynamoDBClient =>
  new DynamoDBClient(clientConfig('DYNAMODB', env));

/** An S3 client; path-style addressing whenever an endpoint override is set (s3rver, LocalStack). */
export function createS3Client(env: NodeJS.ProcessEnv = runtimeEnvironment()): S3Client {
  const config = clientConfig('S3', env);
  return new S3Client({ ...config, forcePathStyle: 'endpoint' in config });
}

/** An SQS client. */
export const createSqsClient = (env: NodeJS.ProcessEnv = runtimeEnvironment()): SQSClient =>
  new SQSClient(clientConfig('SQS', env));
/** A Step Functions client. */
export const createSfnClient = (env: NodeJS.ProcessEnv = runtimeEnvironment()): SFNClient =>
  new SFNClient(clientConfig('SFN', env));
/** A Bedrock Runtime client (Converse). */
export const createBedrockClient = (env: NodeJS.ProcessEnv = runtimeEnvironment()): BedrockRuntimeClient =>
  new BedrockRuntimeClient(clientConfig('BEDROCK_RUNTIME', env));
/** An SES v2 client. */
export const createSesClient = (env: NodeJS.ProcessEnv = runtimeEnvironment()): SESv2Client =>
  new SESv2Client(clientConfig('SESV2', env));
