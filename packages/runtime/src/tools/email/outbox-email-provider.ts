import { sha256Hex } from '../../records';
import { KeyedFileLog } from '../keyed-file-log';
import type { EmailMessage, EmailProvider, SentEmail } from './email-provider';

/** An email as the outbox records it. */
export interface OutboxEmail extends EmailMessage, SentEmail {
  readonly idempotencyKey: string;
  readonly sentAt: string;
}

/**
 * The local email provider: "sends" by recording the message in a directory, one file per idempotency
 * key, and honours keys like a real idempotent email API (a second send under a key returns the first
 * message). Tests and the demo count emails with {@link OutboxEmailProvider.list}.
 */
export class OutboxEmailProvider implements EmailProvider {
  readonly name = 'outbox';
  private readonly log: KeyedFileLog<OutboxEmail>;

  constructor(readonly dir: string) {
    this.log = new KeyedFileLog(dir);
  }

  async send(message: EmailMessage, idempotencyKey: string): Promise<SentEmail> {
    const sentAt = new Date();
    const email: OutboxEmail = {
      ...message,
      to: [...message.to],
      idempotencyKey,
      messageId: `outbox-${sha256Hex(idempotencyKey).slice(0, 24)}`,
      provider: this.name,
      sentAt: sentAt.toISOString(),
    };
    const { entry } = await this.log.putOnce(idempotencyKey, email, sentAt);
    return summary(entry.value);
  }

  async find(idempotencyKey: string): Promise<SentEmail | undefined> {
    const entry = await this.log.get(idempotencyKey);
    return entry && summary(entry.value);
  }

  /** The whole email sent under `idempotencyKey` (body included), or undefined. */
  async read(idempotencyKey: string): Promise<OutboxEmail | undefined> {
    return (await this.log.get(idempotencyKey))?.value;
  }

  /** Every email in the outbox, oldest first. */
  async list(): Promise<OutboxEmail[]> {
    return (await this.log.list()).map((e) => e.value);
  }
}

const summary = (e: OutboxEmail): SentEmail => ({
  messageId: e.messageId,
  provider: e.provider,
  to: e.to,
  subject: e.subject,
});
