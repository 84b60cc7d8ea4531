import { DescribeExecutionCommand, GetExecutionHistoryCommand, type HistoryEvent, type SFNClient } from '@aws-sdk/client-sfn';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sha256Hex } from '../payloads/hashing';

/** The detail-type of the EventBridge events run-monitor receives. */
export const EXECUTION_STATUS_CHANGE = 'Step Functions Execution Status Change';
/** Closed statuses that dead-letter a run. */
export const DEAD_LETTER_STATUSES = ['FAILED', 'TIMED_OUT', 'ABORTED'] as const;
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

/**
 * Builds the dead letter of a closed run from DescribeExecution and the newest history events, or
 * returns undefined when the event is not a FAILED/TIMED_OUT/ABORTED status change.
 */
export async function deadLetterFor(sfn: SFNClient, event: ExecutionStatusChangeEvent): Promise<DeadLetterMessage | undefined> {
  const status = event?.detail?.status;
  if (!(DEAD_LETTER_STATUSES as readonly string[]).includes(status)) return undefined;
  const executionArn = event.detail.executionArn;
  const execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
  const history = await sfn.send(
    new GetExecutionHistoryCommand({ executionArn, reverseOrder: true, maxResults: FAILED_STATE_SEARCH_EVENTS }),
  );
  const stateMachineArn = execution.stateMachineArn ?? event.detail.stateMachineArn ?? '';
  return {
    executionArn,
    stateMachineArn,
    workflow: workflowOf(stateMachineArn),
    status: execution.status ?? status,
    error: execution.error ?? event.detail.error ?? failureOf(history.events)?.error ?? null,
    cause: execution.cause ?? event.detail.cause ?? failureOf(history.events)?.cause ?? null,
    failedState: lastEnteredState(history.events),
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
    const d = e.executionFailedEventDetails ?? e.taskFailedEventDetails ?? e.lambdaFunctionFailedEventDetails ?? e.executionTimedOutEventDetails ?? e.executionAbortedEventDetails;
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
