/**
 * Where the emulated SNS and EventBridge deliver: an SQS queue, a Lambda function (invoked asynchronously,
 * retried as Lambda retries an asynchronous invocation), a state machine (StartExecution), an email
 * address (the local outbox, which the console shows) or an HTTP(S) endpoint. Every target is named by its
 * ARN (an address or URL for email and HTTP), as subscriptions and rule targets name them.
 */
import type { LambdaInvoker } from '@autosave/engine';
import type { LocalSqs } from '../sqs/local-sqs';
import { invokeAsynchronously } from './async-invoke';

/** What a delivery needs from the local services. */
export interface DeliveryServices {
  /** Sends a message to a local queue, named by its ARN. */
  readonly sendToQueue?: (
    queueArn: string,
    body: string,
    options: { readonly messageGroupId?: string; readonly messageDeduplicationId?: string },
  ) => Promise<void>;
  readonly invokeLambda?: LambdaInvoker;
  /** Starts an execution (the engine's StartExecution). */
  readonly startExecution?: (stateMachineArn: string, input: string) => Promise<void>;
  /** The outbox email notifications go to (the console's Outbox page reads it). */
  readonly outboxDir?: string;
  /** Where failed deliveries are reported. @default console.error */
  readonly logError?: (message: string) => void;
}

/** One delivery: where to, and what. */
export type Delivery =
  | {
      readonly kind: 'sqs';
      readonly arn: string;
      readonly body: string;
      readonly messageGroupId?: string;
      readonly messageDeduplicationId?: string;
    }
  | { readonly kind: 'lambda'; readonly arn: string; readonly event: unknown }
  | { readonly kind: 'states'; readonly arn: string; readonly input: string }
  | {
      readonly kind: 'email';
      readonly to: string;
      readonly subject: string;
      readonly body: string;
      readonly idempotencyKey: string;
    }
  | {
      readonly kind: 'http';
      readonly url: string;
      readonly body: string;
      readonly headers: Readonly<Record<string, string>>;
    };

/** The kind of target an ARN names (`sqs`, `lambda`, `states`, `sns`, `events`), or undefined. */
export function targetKind(arn: string): string | undefined {
  return /^arn:aws[a-z-]*:([a-z0-9-]+):/.exec(arn)?.[1];
}

/**
 * Delivers and reports: a delivery never throws to its caller (SNS and EventBridge answered the publisher
 * already); a failure is logged with the target named.
 */
export class DeliveryTargets {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly services: DeliveryServices) {}

  /** Starts a delivery in the background. */
  deliver(delivery: Delivery): void {
    const p = this.run(delivery)
      .catch((err: unknown) =>
        this.error(
          `delivery to ${'arn' in delivery ? delivery.arn : 'url' in delivery ? delivery.url : delivery.to} failed: ${(err as Error)?.message ?? String(err)}`,
        ),
      )
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** Resolves once every delivery started so far has ended (tests, and a stop). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private async run(delivery: Delivery): Promise<void> {
    const s = this.services;
    switch (delivery.kind) {
      case 'sqs':
        if (!s.sendToQueue) throw new Error('no local SQS');
        return s.sendToQueue(delivery.arn, delivery.body, {
          ...(delivery.messageGroupId !== undefined ? { messageGroupId: delivery.messageGroupId } : {}),
          ...(delivery.messageDeduplicationId !== undefined
            ? { messageDeduplicationId: delivery.messageDeduplicationId }
            : {}),
        });
      case 'lambda':
        return this.invokeAsync(delivery.arn, delivery.event);
      case 'states':
        if (!s.startExecution) throw new Error('no local Step Functions');
        return s.startExecution(delivery.arn, delivery.input);
      case 'email': {
        if (!s.outboxDir) throw new Error('no outbox directory');
        // Loaded at the first email: the runtime's tools bring the SES client and Powertools, which the
        // services would otherwise load at every start, before the runs caught in flight resume.
        const { OutboxEmailProvider } = await import('@autosave/runtime/tools');
        await new OutboxEmailProvider(s.outboxDir).send(
          { to: [delivery.to], subject: delivery.subject, body: delivery.body },
          delivery.idempotencyKey,
        );
        return;
      }
      case 'http': {
        const response = await fetch(delivery.url, { method: 'POST', headers: delivery.headers, body: delivery.body });
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return;
      }
    }
  }

  private async invokeAsync(functionArn: string, event: unknown): Promise<void> {
    if (!this.services.invokeLambda) throw new Error('no local Lambda');
    const outcome = await invokeAsynchronously(this.services.invokeLambda, functionArn, event);
    if (!outcome.delivered)
      throw new Error(
        `${functionArn} failed ${outcome.attempts} times; the event is dropped, as Lambda drops it without an on-failure destination`,
      );
  }

  private error(message: string): void {
    (this.services.logError ?? ((m: string) => console.error(`autosave local: ${m}`)))(message);
  }
}

/** `sendToQueue` over the local SQS: the queue named by the ARN's last part. */
export function localQueueSender(
  sqs: Pick<LocalSqs, 'handle' | 'queueUrl'>,
): NonNullable<DeliveryServices['sendToQueue']> {
  return async (queueArn, body, options) => {
    await sqs.handle('SendMessage', {
      QueueUrl: sqs.queueUrl(queueArn.slice(queueArn.lastIndexOf(':') + 1)),
      MessageBody: body,
      ...(options.messageGroupId !== undefined ? { MessageGroupId: options.messageGroupId } : {}),
      ...(options.messageDeduplicationId !== undefined
        ? { MessageDeduplicationId: options.messageDeduplicationId }
        : {}),
    });
  };
}
