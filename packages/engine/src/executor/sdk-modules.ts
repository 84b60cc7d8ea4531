import type * as DynamoDb from '@aws-sdk/client-dynamodb';
import type * as Sqs from '@aws-sdk/client-sqs';
import { lazyRequire } from '../lazy-require';

/*
 * The AWS SDK client packages the engine calls DynamoDB and SQS Tasks with, loaded on the first Task or
 * definition that names them, not with the engine: each is a good part of a second and megabytes to load,
 * and a restarted engine answers before it needs them. The same module instances as any `import` of the
 * packages (CommonJS: an import reads the same require cache).
 */

/** `@aws-sdk/client-dynamodb`. */
export const dynamoDbSdk = lazyRequire<typeof DynamoDb>('@aws-sdk/client-dynamodb');
/** `@aws-sdk/client-sqs`. */
export const sqsSdk = lazyRequire<typeof Sqs>('@aws-sdk/client-sqs');
