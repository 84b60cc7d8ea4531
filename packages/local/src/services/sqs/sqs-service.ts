import type { AwsJsonService } from '../../api/aws-json-protocol';
import type { LocalSqs } from './local-sqs';
import { SqsServiceError } from './sqs-errors';
import { validateSqsInput } from './sqs-input';

/** Serves `AmazonSQS.*` targets (AWS JSON 1.0, as `@aws-sdk/client-sqs` speaks it) from a {@link LocalSqs}. */
export function sqsService(sqs: LocalSqs): AwsJsonService {
  return {
    targetPrefix: 'AmazonSQS',
    handle: async (operation, input) => {
      validateSqsInput(operation, input);
      return sqs.handle(operation, input);
    },
    describeError: (err) =>
      err instanceof SqsServiceError
        ? {
            type: `com.amazonaws.sqs#${err.name}`,
            message: err.message,
            headers: { 'x-amzn-query-error': `${err.queryCode};Sender` },
          }
        : undefined,
    serializationError: (message) => ({
      type: 'com.amazonaws.sqs#InvalidParameterValue',
      message,
      headers: { 'x-amzn-query-error': 'InvalidParameterValue;Sender' },
    }),
  };
}
