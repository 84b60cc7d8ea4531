import { createRequire } from 'node:module';
import type * as DynamoDb from '@aws-sdk/client-dynamodb';
import type * as Sqs from '@aws-sdk/client-sqs';

/**
 * The AWS SDK client packages the engine calls DynamoDB and SQS Tasks with, loaded on the first Task or
 * definition that names them, not with the engine: each is a good part of a second and megabytes to load,
 * and a restarted engine answers before it needs them. Synchronous (a definition is checked against the
 * package's commands when it is created); the same module instances as any `import` of the packages.
 */
const require = createRequire(import.meta.url);
let dynamoDb: typeof DynamoDb | undefined;
let sqs: typeof Sqs | undefined;

/** `@aws-sdk/client-dynamodb`. */
export const dynamoDbSdk = (): typeof DynamoDb => (dynamoDb ??= require('@aws-sdk/client-dynamodb') as typeof DynamoDb);
/** `@aws-sdk/client-sqs`. */
export const sqsSdk = (): typeof Sqs => (sqs ??= require('@aws-sdk/client-sqs') as typeof Sqs);
