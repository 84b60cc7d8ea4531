import { parseDeadLetter, redriveDeadLetter } from '../dead-letters';
import { MetricName } from '../metrics';
import { lambdaHandler, sfnClient } from '../lambda';

/** The fields of an SQS event the redrive handler reads. */
export interface SqsEvent {
  readonly Records: readonly { readonly messageId: string; readonly body: string }[];
}

/** redrive: each DLQ message resumes its run at the failed step; failed messages are reported, not thrown. */
export const handler = lambdaHandler(async (event: SqsEvent, rt) => {
  const batchItemFailures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    try {
      const outcome = await redriveDeadLetter(sfnClient(rt), parseDeadLetter(record.body));
      if (outcome.redriven) rt.metrics.add(MetricName.Redrives);
      else console.log(JSON.stringify({ message: 'dead letter settled without redrive', ...outcome }));
    } catch (error) {
      console.error(
        JSON.stringify({ message: 'redrive failed', messageId: record.messageId, error: (error as Error).name }),
      );
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
});
