/** An email to send. */
export interface EmailMessage {
  readonly to: readonly string[];
  readonly subject: string;
  /** Plain-text body. */
  readonly body: string;
  /** @default the configured sender */
  readonly from?: string;
}

/** What a provider says about a sent email. */
export interface SentEmail {
  readonly messageId: string;
  readonly provider: string;
  readonly to: readonly string[];
  readonly subject: string;
}

/** Something that delivers email, given an idempotency key it must pass on or honour. */
export interface EmailProvider {
  readonly name: string;
  send(message: EmailMessage, idempotencyKey: string): Promise<SentEmail>;
  /** The email sent under this key, if the provider can tell. Absent when it cannot (then at-least-once). */
  find?(idempotencyKey: string): Promise<SentEmail | undefined>;
}
