import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SFNClient } from '@aws-sdk/client-sfn';
import { DEFAULT_DLQ_NAME } from '@autosave/runtime/endpoints';
import { DeadLetterQueueNotFoundError } from './errors';
import {
  parseDeadLetter,
  redriveDeadLetter,
  type DeadLetterMessage,
  type RedriveOutcome,
} from '@autosave/runtime/dead-letters';

/** How long messages stay hidden while the CLI pages through the queue. @default 30 s */
export const DEFAULT_PEEK_VISIBILITY_SECONDS = 30;

/** A dead letter as read from the queue. */
export interface QueuedDeadLetter {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly letter: DeadLetterMessage;
  /** Short id people type: the run's name (last part of its ARN). */
  readonly runName: string;
}

/** The DLQ URL: `AUTOSAVE_DLQ_URL`, else the queue named {@link DEFAULT_DLQ_NAME} on the SQS endpoint. */
export async function resolveDeadLetterQueueUrl(sqs: SQSClient, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.AUTOSAVE_DLQ_URL) return env.AUTOSAVE_DLQ_URL;
  try {
    return (await sqs.send(new GetQueueUrlCommand({ QueueName: DEFAULT_DLQ_NAME }))).QueueUrl!;
  } catch (err) {
    if (!/NonExistentQueue|QueueDoesNotExist/.test(`${(err as Error).name} ${(err as { Code?: string }).Code ?? ''}`))
      throw err;
    throw new DeadLetterQueueNotFoundError(
      `no queue named '${DEFAULT_DLQ_NAME}' here: set AUTOSAVE_DLQ_URL to the dead-letter queue's URL`,
      { cause: err },
    );
  }
}

/**
 * Reads every message on the queue without consuming it: SQS has no "peek", so messages are received
 * with a visibility timeout (so each appears once while paging) and then made visible again at once,
 * unless `keep` says the caller is about to act on (and delete) them.
 */
export async function readDeadLetters(
  sqs: SQSClient,
  queueUrl: string,
  keep: (m: QueuedDeadLetter) => boolean = () => false,
): Promise<QueuedDeadLetter[]> {
  const seen = new Map<string, QueuedDeadLetter>();
  for (;;) {
    const page = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: DEFAULT_PEEK_VISIBILITY_SECONDS,
        WaitTimeSeconds: 0,
      }),
    );
    const messages = (page.Messages ?? []).filter((m) => m.MessageId && !seen.has(m.MessageId));
    if (messages.length === 0) break;
    for (const m of messages) {
      let letter: DeadLetterMessage;
      try {
        letter = parseDeadLetter(m.Body ?? '');
      } catch {
        letter = {
          executionArn: '(not a dead letter)',
          stateMachineArn: '',
          workflow: '',
          status: '',
          error: 'unreadable message',
          cause: m.Body ?? '',
          failedState: null,
          redriveCount: 0,
          at: '',
        };
      }
      seen.set(m.MessageId!, {
        messageId: m.MessageId!,
        receiptHandle: m.ReceiptHandle!,
        letter,
        runName: letter.executionArn.split(':').pop() ?? '',
      });
    }
  }
  const all = [...seen.values()];
  await Promise.all(
    all
      .filter((m) => !keep(m))
      .map((m) =>
        sqs.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: queueUrl,
            ReceiptHandle: m.receiptHandle,
            VisibilityTimeout: 0,
          }),
        ),
      ),
  );
  return all.sort((a, b) => a.letter.at.localeCompare(b.letter.at));
}

/** Whether a dead letter is the one a user named: message id, execution ARN or run name. */
export const deadLetterMatches = (m: QueuedDeadLetter, ref: string): boolean =>
  m.messageId === ref || m.letter.executionArn === ref || m.runName === ref;

/** The result of redriving one queued dead letter. */
export type QueuedRedriveOutcome = RedriveOutcome & { readonly messageId: string; readonly runName: string };

/**
 * Redrives the dead letters `select` picks (the run resumes at its failed step, through
 * RedriveExecution with a clientToken, as the `redrive` Lambda does) and deletes each message once its
 * run is redriven or can no longer be (settled). Other messages stay on the queue, visible.
 */
export async function redriveDeadLetters(
  sfn: SFNClient,
  sqs: SQSClient,
  queueUrl: string,
  select: (m: QueuedDeadLetter) => boolean,
): Promise<QueuedRedriveOutcome[]> {
  const chosen = (await readDeadLetters(sqs, queueUrl, select)).filter(select);
  const outcomes: QueuedRedriveOutcome[] = [];
  for (const m of chosen) {
    try {
      const outcome = await redriveDeadLetter(sfn, m.letter);
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.receiptHandle }));
      outcomes.push({ ...outcome, messageId: m.messageId, runName: m.runName });
    } catch (err) {
      // Leave the message for another try, visible again now.
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: m.receiptHandle,
          VisibilityTimeout: 0,
        }),
      );
      throw err;
    }
  }
  return outcomes;
}
