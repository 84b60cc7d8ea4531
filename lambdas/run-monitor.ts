import { deadLetterFor, sendDeadLetter, type ExecutionStatusChangeEvent } from '../lib/dead-letters';
import { MetricName } from '../lib/metrics';
import { lambdaHandler } from './runtime';

/** run-monitor: a failed, timed-out or aborted run becomes one message on the dead-letter queue. */
export const handler = lambdaHandler(async (event: ExecutionStatusChangeEvent, rt) => {
  const letter = await deadLetterFor(rt.sfn, event);
  if (!letter) return { deadLettered: false };
  await sendDeadLetter(rt.sqs, rt.config.dlqUrl, letter);
  rt.metrics.add(MetricName.DeadLettered);
  return { deadLettered: true, executionArn: letter.executionArn, failedState: letter.failedState };
});
