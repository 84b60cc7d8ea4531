import { closedRunReport, sendDeadLetter, type ExecutionStatusChangeEvent } from '../lib/dead-letters';
import { MetricName } from '../lib/metrics';
import { lambdaHandler } from './runtime';

/**
 * run-monitor: every closed run reports its history size (`HistoryEvents`); a failed, timed-out or aborted
 * run also becomes one message on the dead-letter queue.
 */
export const handler = lambdaHandler(async (event: ExecutionStatusChangeEvent, rt) => {
  const report = await closedRunReport(rt.sfn, event);
  const historyEvents = report?.historyEvents;
  if (historyEvents !== undefined) rt.metrics.add(MetricName.HistoryEvents, historyEvents);
  const size = historyEvents === undefined ? {} : { historyEvents };
  const letter = report?.deadLetter;
  if (!letter) return { deadLettered: false, ...size };
  await sendDeadLetter(rt.sqs, rt.config.dlqUrl, letter);
  rt.metrics.add(MetricName.DeadLettered);
  return { deadLettered: true, executionArn: letter.executionArn, failedState: letter.failedState, ...size };
});
