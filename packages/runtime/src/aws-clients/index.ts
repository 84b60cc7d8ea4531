/**
 * AWS SDK client factories for the runtime (lambdas/runtime.ts). The SDK itself honours `AWS_ENDPOINT_URL`
 * and `AWS_ENDPOINT_URL_<SERVICE>`, so the factories only add what the SDK cannot guess: a region when none
 * is set, and path-style S3 addressing when S3 points at a local server (s3rver has no virtual-host
 * buckets). Apart from lib/endpoints so that reading the configuration loads none of the six clients.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SFNClient } from '@aws-sdk/client-sfn';
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { awsRegion } from '../endpoints';

/** A DynamoDB client; `AWS_ENDPOINT_URL_DYNAMODB` is honoured by the SDK. */
export const createDynamoDbClient = (): DynamoDBClient => new DynamoDBClient({ region: awsRegion() });

/** An S3 client; path-style addressing whenever an endpoint override is set (s3rver, LocalStack). */
export function createS3Client(env: NodeJS.ProcessEnv = process.env): S3Client {
  const local = Boolean(env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL);
  return new S3Client({ region: awsRegion(env), forcePathStyle: local });
}

/** An SQS client; `AWS_ENDPOINT_URL_SQS` is honoured by the SDK. */
export const createSqsClient = (): SQSClient => new SQSClient({ region: awsRegion() });
/** A Step Functions client; `AWS_ENDPOINT_URL_SFN` is honoured by the SDK. */
export const createSfnClient = (): SFNClient => new SFNClient({ region: awsRegion() });
/** A Bedrock Runtime client (Converse). */
export const createBedrockClient = (): BedrockRuntimeClient => new BedrockRuntimeClient({ region: awsRegion() });
/** An SES v2 client. */
export const createSesClient = (): SESv2Client => new SESv2Client({ region: awsRegion() });
