import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import { sha256Hex } from '../../records';
import type { EmailMessage, EmailProvider, SentEmail } from './email-provider';

/** Header carrying the idempotency key on every email the SES provider sends. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** SES message tag carrying a hash of the key (tag values allow only `[A-Za-z0-9_.@-]`), for event lookups. */
export const IDEMPOTENCY_KEY_TAG = 'autosave-idempotency-key';

/**
 * Amazon SES v2. SES has no idempotency keys and no lookup by key, so this provider has no `find`: the
 * ledger protects it against retries and concurrency, but a crash between SES accepting the message and
 * the COMPLETED write can send a second copy (at-least-once). The key still travels as a header and a
 * message tag so duplicates can be traced in SES event destinations.
 */
export class SesEmailProvider implements EmailProvider {
  readonly name = 'ses';

  constructor(
    private readonly client: SESv2Client,
    private readonly defaultFrom: string,
  ) {}

  async send(message: EmailMessage, idempotencyKey: string): Promise<SentEmail> {
    const out = await this.client.send(
      new SendEmailCommand({
        FromEmailAddress: message.from ?? this.defaultFrom,
        Destination: { ToAddresses: [...message.to] },
        Content: {
          Simple: {
            Subject: { Data: message.subject, Charset: 'UTF-8' },
            Body: { Text: { Data: message.body, Charset: 'UTF-8' } },
            Headers: [{ Name: IDEMPOTENCY_KEY_HEADER, Value: idempotencyKey }],
          },
        },
        EmailTags: [{ Name: IDEMPOTENCY_KEY_TAG, Value: sha256Hex(idempotencyKey) }],
      }),
    );
    return { messageId: out.MessageId ?? '', provider: this.name, to: message.to, subject: message.subject };
  }
}
