import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  type DescribeExecutionCommandOutput,
  type HistoryEvent,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sha256Hex, TTL_ATTRIBUTE, type RecordTable } from '../records';
import { CLOSED_RUN_STATUSES, DEAD_LETTER_STATUSES } from './run-statuses';

/** The detail-type of the EventBridge events run-monitor receives. */
export const EXECUTION_STATUS_CHANGE = 'Step Functions Execution Status Change';
/** History events read (newest first) to find the state a run failed in. */
export const FAILED_STATE_SEARCH_EVENTS = 50;

/** An EventBridge "Step Functions Execution Status Change" event (the fields we read). */
export interface ExecutionStatusChangeEvent {
  readonly source?: string;
  readonly 'detail-type'?: string;
  readonly time?: string;
  readonly detail: {
    readonly executionArn: string;
    readonly stateMachineArn?: string;
    readonly status: string;
    readonly error?: string | null;
    readonly cause?: string | null;
    readonly redriveCount?: number;
  };
}

/** The DLQ message (docs/architecture.md §4): what an operator needs to understand and redrive a run. */
export interface DeadLetterMessage {
  readonly executionArn: string;
  readonly stateMachineArn: string;
  readonly workflow: string;
  readonly status: string;
  readonly error: string | null;
  readonly cause: string | null;
  /** The state the run failed in (the one a redrive reschedules); null if the history does not say. */
  readonly failedState: string | null;
  readonly redriveCount: number;
  /** ISO-8601 time the run closed. */
  readonly at: string;
}

/** The workflow name in a state machine ARN (`...:stateMachine:<name>[:<version or alias>]`). */
export function workflowOf(stateMachineArn: string): string {
  return stateMachineArn.split(':stateMachine:')[1]?.split(':')[0] ?? stateMachineArn;
}

/** The deduplication id of a run's dead letter: one per run and redrive generation. */
export const deadLetterId = (m: Pick<DeadLetterMessage, 'executionArn' | 'redriveCount'>): string =>
  sha256Hex(`${m.executionArn}#${m.redriveCount}`);

/** What run-monitor learns about one closed run from a single history read. */
export interface ClosedRunReport {
  /** The id of the run's last history event: its history size in events (absent if the history is empty). */
  readonly historyEvents?: number;
  /** The run's dead letter: only for FAILED, TIMED_OUT and ABORTED runs. */
  readonly deadLetter?: DeadLetterMessage;
}

/**
 * Reports a closed run (docs/architecture.md §4): its history size for every closed status, and its dead
 * letter when it failed, timed out or was aborted. Reads the history once, newest first: the newest event's
 * id is the size, and a dead letter searches the same page for the failed state. Returns undefined for a
 * status change that does not close the run (RUNNING, PENDING_REDRIVE), without calling Step Functions.
 */
export async function closedRunReport(
  sfn: SFNClient,
  event: ExecutionStatusChangeEvent,
): Promise<ClosedRunReport | undefined> {
  const status = event?.detail?.status;
  if (!(CLOSED_RUN_STATUSES as readonly string[]).includes(status)) return undefined;
  const executionArn = event.detail.executionArn;
  const failed = (DEAD_LETTER_STATUSES as readonly string[]).includes(status);
  const [history, execution] = await Promise.all([
    sfn.send(
      new GetExecutionHistoryCommand({
        executionArn,
        reverseOrder: true,
        maxResults: failed ? FAILED_STATE_SEARCH_EVENTS : 1,
      }),
    ),
    failed ? sfn.send(new DescribeExecutionCommand({ executionArn })) : undefined,
  ]);
  const historyEvents = history.events?.[0]?.id;
  return {
    ...(historyEvents !== undefined && { historyEvents }),
    ...(execution && { deadLetter: deadLetterOf(event, execution, history.events) }),
  };
}

/** The dead letter of a failed run from its status-change event, DescribeExecution and newest history events. */
function deadLetterOf(
  event: ExecutionStatusChangeEvent,
  execution: DescribeExecutionCommandOutput,
  events: HistoryEvent[] | undefined,
): DeadLetterMessage {
  const stateMachineArn = execution.stateMachineArn ?? event.detail.stateMachineArn ?? '';
  return {
    executionArn: event.detail.executionArn,
    stateMachineArn,
    workflow: workflowOf(stateMachineArn),
    status: execution.status ?? event.detail.status,
    error: execution.error ?? event.detail.error ?? failureOf(events)?.error ?? null,
    cause: execution.cause ?? event.detail.cause ?? failureOf(events)?.cause ?? null,
    failedState: lastEnteredState(events),
    redriveCount: execution.redriveCount ?? event.detail.redriveCount ?? 0,
    at: (execution.stopDate ?? (event.time ? new Date(event.time) : new Date())).toISOString(),
  };
}

/** The newest state the run entered (history read newest first): the state it failed in. */
function lastEnteredState(events: HistoryEvent[] | undefined): string | null {
  return events?.find((e) => e.stateEnteredEventDetails?.name)?.stateEnteredEventDetails?.name ?? null;
}

function failureOf(events: HistoryEvent[] | undefined): { error?: string; cause?: string } | undefined {
  for (const e of events ?? []) {
    const d =
      e.executionFailedEventDetails ??
      e.taskFailedEventDetails ??
      e.lambdaFunctionFailedEventDetails ??
      e.executionTimedOutEventDetails ??
      e.executionAbortedEventDetails;
    if (d) return d;
  }
  return undefined;
}

/**
 * Sends the dead letter to the DLQ. On a FIFO queue the deduplication id is {@link deadLetterId}; on a
 * standard queue it travels as the `deadLetterId` attribute so consumers can drop repeats.
 */
export async function sendDeadLetter(sqs: SQSClient, queueUrl: string, message: DeadLetterMessage): Promise<void> {
  const id = deadLetterId(message);
  const fifo = queueUrl.endsWith('.fifo');
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: JSON.stringify(message),
      MessageAttributes: { deadLetterId: { DataType: 'String', StringValue: id } },
      ...(fifo ? { MessageGroupId: message.executionArn.slice(-128), MessageDeduplicationId: id } : {}),
    }),
  );
}

/** Prefix of the table items that record a dead letter as sent. */
export const DEAD_LETTER_ID_PREFIX = 'deadletter#';
/** How long the sent-marker of a dead letter is kept: longer than Lambda's async retries (6 h) and EventBridge's (24 h). */
export const DEAD_LETTER_MARKER_TTL_SECONDS = 14 * 86_400;

/**
 * Sends a run's dead letter at most once per {@link deadLetterId}, however often run-monitor is invoked
 * for the same closed run (EventBridge delivers at least once; Lambda retries an async invoke twice).
 * The send is recorded in the table after SQS accepted it; a crash between the two can still send a
 * second copy, which carries the same `deadLetterId` attribute.
 * @returns whether a message was sent now (false: it had been sent before)
 */
export async function sendDeadLetterOnce(
  table: RecordTable,
  sqs: SQSClient,
  queueUrl: string,
  message: DeadLetterMessage,
  nowMillis: number = Date.now(),
): Promise<boolean> {
  const id = DEAD_LETTER_ID_PREFIX + deadLetterId(message);
  if ((await table.get(id))?.sent === true) return false;
  await sendDeadLetter(sqs, queueUrl, message);
  await table.putIf(
    {
      id,
      sent: true,
      executionArn: message.executionArn,
      [TTL_ATTRIBUTE]: Math.floor(nowMillis / 1000) + DEAD_LETTER_MARKER_TTL_SECONDS,
    },
    { expression: 'attribute_not_exists(id) OR sent <> :sent', values: { ':sent': true } },
  );
  return true;
}
