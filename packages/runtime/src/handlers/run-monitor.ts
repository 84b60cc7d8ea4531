import { closedRunReport, sendDeadLetterOnce, type ExecutionStatusChangeEvent } from '../dead-letters';
import { MetricName } from '../metrics';
import { lambdaHandler, recordTable, sfnClient, sqsClient } from '../lambda';

/**
 * run-monitor: every closed run reports its history size (`HistoryEvents`); a failed, timed-out or aborted
 * run also becomes one message on the dead-letter queue (once: a repeated event finds it sent). An
 * invocation that fails after Lambda's two async retries goes to its on-failure destination (infra).
 */
export const handler = lambdaHandler(async (event: ExecutionStatusChangeEvent, rt) => {
  const report = await closedRunReport(sfnClient(rt), event);
  const historyEvents = report?.historyEvents;
  if (historyEvents !== undefined) rt.metrics.add(MetricName.HistoryEvents, historyEvents);
  const size = historyEvents === undefined ? {} : { historyEvents };
  const letter = report?.deadLetter;
  if (!letter) return { deadLettered: false, ...size };
  // Once per run and redrive generation: the same closed run may reach us more than once.
  const sent = await sendDeadLetterOnce(recordTable(rt), sqsClient(rt), rt.config.dlqUrl, letter);
  if (sent) rt.metrics.add(MetricName.DeadLettered);
  return {
    deadLettered: true,
    alreadySent: !sent,
    executionArn: letter.executionArn,
    failedState: letter.failedState,
    ...size,
  };
});
