import { RedriveExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { InvalidStepInputError } from '@autosave/workflow/errors';
import { deadLetterId, type DeadLetterMessage } from './dead-letter';

/** Redrive errors after which the message is done with (dropping it is right, retrying cannot help). */
export const REDRIVE_SETTLED_ERRORS = ['ExecutionNotRedrivable', 'ExecutionDoesNotExist'] as const;

/** What happened to one dead letter. */
export type RedriveOutcome =
  | { readonly redriven: true; readonly executionArn: string; readonly redriveDate?: Date }
  | { readonly redriven: false; readonly executionArn: string; readonly reason: string };

/** Parses a DLQ message body. @throws InvalidStepInputError when it is not a dead letter. */
export function parseDeadLetter(body: string): DeadLetterMessage {
  let message: Partial<DeadLetterMessage>;
  try {
    message = JSON.parse(body) as Partial<DeadLetterMessage>;
  } catch (error) {
    throw new InvalidStepInputError('A dead letter must be JSON', { cause: error });
  }
  if (typeof message?.executionArn !== 'string') throw new InvalidStepInputError('A dead letter needs executionArn');
  return { redriveCount: 0, ...message } as DeadLetterMessage;
}

/**
 * Redrives the run of a dead letter: the run resumes at its failed step. The clientToken is derived from
 * the run and its redrive count, so redriving the same letter twice (a redelivered SQS message, a second
 * click) is one redrive. A run that is no longer redrivable (already running again, succeeded, too old)
 * or no longer exists settles the letter without error.
 */
export async function redriveDeadLetter(sfn: SFNClient, message: DeadLetterMessage): Promise<RedriveOutcome> {
  try {
    const out = await sfn.send(
      new RedriveExecutionCommand({ executionArn: message.executionArn, clientToken: deadLetterId(message) }),
    );
    return { redriven: true, executionArn: message.executionArn, redriveDate: out.redriveDate };
  } catch (error) {
    const name = (error as Error).name;
    if ((REDRIVE_SETTLED_ERRORS as readonly string[]).includes(name)) {
      return { redriven: false, executionArn: message.executionArn, reason: `${name}: ${(error as Error).message}` };
    }
    throw error;
  }
}
