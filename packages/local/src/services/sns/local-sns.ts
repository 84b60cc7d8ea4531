/**
 * The emulated SNS: topics (standard and FIFO), subscriptions (SQS, Lambda, email and email-json to the
 * local outbox, HTTP/HTTPS) with filter policies, and Publish/PublishBatch delivering to every matching
 * subscription, as SNS does (SNS Developer Guide: message formats, filter policies, raw delivery). Served
 * to Tasks through the engine's {@link ServiceApi} port (`sns:publish`, `aws-sdk:sns:<action>`); errors are
 * {@link ServiceFault}s in SNS's words. Topics and subscriptions persist in a JSON file; the newest
 * published messages are kept in memory for the console.
 */
import { createHash, randomUUID } from 'node:crypto';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, systemClock, type Clock } from '@autosave/workflow/config';
import { EMULATED_API_ACTIONS, ServiceFault, type ServiceApi, type TaskCallContext } from '@autosave/engine';
import type { DeliveryTargets } from '../delivery';
import { JsonStateFile } from '../json-state-file';
import { matchesEventPattern, type EventPattern } from '../eventbridge';

/** Options of {@link LocalSns}. */
export interface LocalSnsOptions {
  /** Where deliveries go. */
  readonly targets: DeliveryTargets;
  /** The JSON file topics and subscriptions persist in. @default in memory only */
  readonly file?: string;
  /** Time of the notifications' `Timestamp`. @default systemClock */
  readonly clock?: Clock;
  /** @default LOCAL_REGION */
  readonly region?: string;
  /** @default LOCAL_ACCOUNT_ID */
  readonly accountId?: string;
  /** How many published messages the console can show. @default 200 */
  readonly keepMessages?: number;
}

/** A topic. */
export interface SnsTopic {
  readonly arn: string;
  readonly name: string;
  readonly attributes: Record<string, string>;
  /** The FIFO topic's last sequence number. */
  sequence: number;
}

/** A subscription (confirmed at once: there is no one to confirm locally). */
export interface SnsSubscription {
  readonly arn: string;
  readonly topicArn: string;
  readonly protocol: string;
  readonly endpoint: string;
  readonly attributes: Record<string, string>;
}

/** A published message as the console lists it. */
export interface PublishedMessage {
  readonly messageId: string;
  readonly topicArn: string;
  readonly subject?: string;
  readonly message: string;
  readonly timestamp: string;
  /** How many subscriptions it went to. */
  readonly deliveries: number;
  /** The run whose Task published it, or whose event the rule delivered (absent for a publish from outside a run). */
  readonly executionArn?: string;
  /** The EventBridge rule that delivered it (its topic a target of the rule), absent for a direct publish. */
  readonly viaRule?: RuleDelivery;
}

/** Which EventBridge rule delivered a message, and the run (if any) that put the event it matched. */
export interface RuleDelivery {
  readonly rule: string;
  readonly bus: string;
  readonly executionArn?: string;
}

type Input = Record<string, unknown>;
type MessageAttribute = { DataType?: string; StringValue?: string; BinaryValue?: unknown };

const PROTOCOLS = new Set(['sqs', 'lambda', 'email', 'email-json', 'http', 'https']);
const TOPIC_NAME = /^[A-Za-z0-9_-]{1,256}$/;

const invalid = (message: string) => new ServiceFault('InvalidParameter', `Invalid parameter: ${message}`, 400);

/** The most a message may hold, its attributes included (SNS API reference, Publish: 256 KB). */
export const SNS_MESSAGE_LIMIT_BYTES = 262_144;

/** A message's size as SNS counts it: the text, and each attribute's name, type and value. */
function publishedBytes(message: string, attributes: unknown): number {
  let bytes = Buffer.byteLength(message);
  if (attributes !== null && typeof attributes === 'object') {
    for (const [name, attribute] of Object.entries(attributes as Record<string, Record<string, unknown>>)) {
      bytes += Buffer.byteLength(name);
      for (const part of ['DataType', 'StringValue', 'BinaryValue'] as const) {
        const value = attribute?.[part];
        if (typeof value === 'string') bytes += Buffer.byteLength(value);
        else if (value instanceof Uint8Array) bytes += value.byteLength;
      }
    }
  }
  return bytes;
}
const notFound = (message: string) => new ServiceFault('NotFound', message, 404);

export class LocalSns implements ServiceApi {
  private readonly topics = new Map<string, SnsTopic>();
  private readonly subscriptions = new Map<string, SnsSubscription>();
  private readonly messages: PublishedMessage[] = [];
  private readonly clock: Clock;
  private readonly region: string;
  private readonly accountId: string;
  private readonly state?: JsonStateFile<{ topics: SnsTopic[]; subscriptions: SnsSubscription[] }>;

  constructor(private readonly options: LocalSnsOptions) {
    this.clock = options.clock ?? systemClock;
    this.region = options.region ?? LOCAL_REGION;
    this.accountId = options.accountId ?? LOCAL_ACCOUNT_ID;
    if (options.file) {
      this.state = new JsonStateFile(options.file);
      const saved = this.state.read();
      for (const t of saved?.topics ?? []) this.topics.set(t.arn, t);
      for (const s of saved?.subscriptions ?? []) this.subscriptions.set(s.arn, s);
    }
  }

  /** A topic's ARN by name. */
  topicArn(name: string): string {
    return `arn:aws:sns:${this.region}:${this.accountId}:${name}`;
  }

  /** Every topic, with its subscriptions (the console). */
  list(): { topic: SnsTopic; subscriptions: SnsSubscription[] }[] {
    return [...this.topics.values()].map((topic) => ({
      topic,
      subscriptions: [...this.subscriptions.values()].filter((s) => s.topicArn === topic.arn),
    }));
  }

  /** The newest published messages, newest first (the console). */
  recentMessages(): readonly PublishedMessage[] {
    return [...this.messages].reverse();
  }

  async call(action: string, input: Input, context?: TaskCallContext): Promise<Record<string, unknown>> {
    switch (action as (typeof EMULATED_API_ACTIONS.sns)[number]) {
      case 'CreateTopic':
        return this.createTopic(input);
      case 'DeleteTopic':
        return this.deleteTopic(input);
      case 'ListTopics':
        return { Topics: [...this.topics.keys()].map((TopicArn) => ({ TopicArn })) };
      case 'GetTopicAttributes':
        return this.getTopicAttributes(input);
      case 'SetTopicAttributes': {
        const topic = this.topic(input.TopicArn);
        topic.attributes[String(input.AttributeName)] = String(input.AttributeValue ?? '');
        this.save();
        return {};
      }
      case 'Subscribe':
        return this.subscribe(input);
      case 'Unsubscribe':
        if (!this.subscriptions.delete(String(input.SubscriptionArn))) throw notFound('Subscription does not exist');
        this.save();
        return {};
      case 'ListSubscriptions':
        return { Subscriptions: [...this.subscriptions.values()].map((s) => this.describeSubscription(s)) };
      case 'ListSubscriptionsByTopic': {
        const topic = this.topic(input.TopicArn);
        return {
          Subscriptions: [...this.subscriptions.values()]
            .filter((s) => s.topicArn === topic.arn)
            .map((s) => this.describeSubscription(s)),
        };
      }
      case 'Publish':
        return this.publish(input, context);
      case 'PublishBatch':
        return this.publishBatch(input, context);
      default:
        throw new ServiceFault('InvalidAction', `The action ${action} is not valid for this endpoint.`, 400);
    }
  }

  // --- topics and subscriptions --------------------------------------------------------------------

  private createTopic(input: Input): Record<string, unknown> {
    const name = String(input.Name ?? '');
    const attributes = Object.fromEntries(
      Object.entries((input.Attributes ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
    );
    const fifo = attributes.FifoTopic === 'true';
    const base = fifo ? name.replace(/\.fifo$/, '') : name;
    if (!TOPIC_NAME.test(base) || fifo !== name.endsWith('.fifo')) {
      throw invalid(
        fifo || name.endsWith('.fifo')
          ? 'Topic Name: Fifo Topic names must end with .fifo and must be made up of only uppercase and lowercase ASCII letters, numbers, underscores, and hyphens, and must be between 1 and 256 characters long.'
          : 'Topic Name',
      );
    }
    const arn = this.topicArn(name);
    // CreateTopic is idempotent: the same name answers the same ARN.
    if (!this.topics.has(arn)) {
      this.topics.set(arn, { arn, name, attributes, sequence: 0 });
      this.save();
    }
    return { TopicArn: arn };
  }

  private deleteTopic(input: Input): Record<string, unknown> {
    const arn = String(input.TopicArn ?? '');
    // Deleting a topic that does not exist succeeds, as SNS answers.
    if (this.topics.delete(arn)) {
      for (const [subArn, s] of this.subscriptions) if (s.topicArn === arn) this.subscriptions.delete(subArn);
      this.save();
    }
    return {};
  }

  private getTopicAttributes(input: Input): Record<string, unknown> {
    const topic = this.topic(input.TopicArn);
    const subscriptions = [...this.subscriptions.values()].filter((s) => s.topicArn === topic.arn).length;
    return {
      Attributes: {
        TopicArn: topic.arn,
        Owner: this.accountId,
        SubscriptionsConfirmed: String(subscriptions),
        SubscriptionsPending: '0',
        SubscriptionsDeleted: '0',
        ...topic.attributes,
      },
    };
  }

  private subscribe(input: Input): Record<string, unknown> {
    const topic = this.topic(input.TopicArn);
    const protocol = String(input.Protocol ?? '');
    const endpoint = String(input.Endpoint ?? '');
    if (!PROTOCOLS.has(protocol)) throw invalid(`Invalid protocol type: ${protocol}`);
    if (!endpoint) throw invalid('Endpoint');
    const attributes = Object.fromEntries(
      Object.entries((input.Attributes ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
    );
    if (attributes.FilterPolicy !== undefined) {
      try {
        JSON.parse(attributes.FilterPolicy);
      } catch {
        throw invalid('FilterPolicy: failed to parse JSON.');
      }
    }
    // Subscribing the same endpoint again answers the existing subscription.
    const existing = [...this.subscriptions.values()].find(
      (s) => s.topicArn === topic.arn && s.protocol === protocol && s.endpoint === endpoint,
    );
    if (existing) return { SubscriptionArn: existing.arn };
    const arn = `${topic.arn}:${randomUUID()}`;
    this.subscriptions.set(arn, { arn, topicArn: topic.arn, protocol, endpoint, attributes });
    this.save();
    return { SubscriptionArn: arn };
  }

  private describeSubscription(s: SnsSubscription): Record<string, unknown> {
    return {
      SubscriptionArn: s.arn,
      Owner: this.accountId,
      Protocol: s.protocol,
      Endpoint: s.endpoint,
      TopicArn: s.topicArn,
    };
  }

  private topic(arn: unknown): SnsTopic {
    const topic = typeof arn === 'string' ? this.topics.get(arn) : undefined;
    if (!topic) throw notFound('Topic does not exist');
    return topic;
  }

  // --- publishing ----------------------------------------------------------------------------------

  /** Publishes what an EventBridge rule delivers to a topic target, recording the rule and the event's run. */
  publishFromRule(topicArn: string, message: string, delivery: RuleDelivery): Record<string, unknown> {
    return this.publish({ TopicArn: topicArn, Message: message }, undefined, delivery);
  }

  private publish(input: Input, context?: TaskCallContext, delivery?: RuleDelivery): Record<string, unknown> {
    const target = input.TopicArn ?? input.TargetArn;
    if (target === undefined && input.PhoneNumber !== undefined)
      throw invalid('PhoneNumber Reason: SMS is not delivered by the local engine');
    if (target === undefined) throw invalid('TopicArn or TargetArn Reason: no value for required parameter');
    const topic = this.topic(target);
    const message = input.Message;
    if (typeof message !== 'string' || message === '') throw invalid('Empty message');
    if (publishedBytes(message, input.MessageAttributes) > SNS_MESSAGE_LIMIT_BYTES) throw invalid('Message too long');
    const fifo = topic.attributes.FifoTopic === 'true';
    if (fifo && input.MessageGroupId === undefined)
      throw invalid('The MessageGroupId parameter is required for FIFO topics');
    if (fifo && input.MessageDeduplicationId === undefined && topic.attributes.ContentBasedDeduplication !== 'true') {
      throw invalid(
        'The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
      );
    }
    if (!fifo && input.MessageDeduplicationId !== undefined)
      throw invalid(
        'MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type',
      );
    let perProtocol: Record<string, unknown> | undefined;
    if (input.MessageStructure === 'json') {
      try {
        perProtocol = JSON.parse(message) as Record<string, unknown>;
      } catch {
        perProtocol = undefined;
      }
      if (!perProtocol || typeof perProtocol.default !== 'string')
        throw invalid('Message Structure - No default entry in JSON message body');
    }
    const messageId = randomUUID();
    const sequenceNumber = fifo ? String(++topic.sequence).padStart(20, '0') : undefined;
    if (fifo) this.save();
    const attributes = (input.MessageAttributes ?? {}) as Record<string, MessageAttribute>;
    const timestamp = new Date(this.clock.now()).toISOString();
    let deliveries = 0;
    for (const subscription of this.subscriptions.values()) {
      if (subscription.topicArn !== topic.arn || !this.accepts(subscription, message, attributes)) continue;
      const text = perProtocol ? String(perProtocol[subscription.protocol] ?? perProtocol.default) : message;
      this.deliver(subscription, {
        messageId,
        sequenceNumber,
        topic,
        text,
        subject: input.Subject as string | undefined,
        attributes,
        timestamp,
        input,
      });
      deliveries++;
    }
    this.messages.push({
      messageId,
      topicArn: topic.arn,
      ...(typeof input.Subject === 'string' ? { subject: input.Subject } : {}),
      message,
      timestamp,
      deliveries,
      ...(context ? { executionArn: context.executionArn } : {}),
      ...(delivery
        ? { viaRule: delivery, ...(delivery.executionArn ? { executionArn: delivery.executionArn } : {}) }
        : {}),
    });
    if (this.messages.length > (this.options.keepMessages ?? 200)) this.messages.shift();
    return { MessageId: messageId, ...(sequenceNumber !== undefined ? { SequenceNumber: sequenceNumber } : {}) };
  }

  private publishBatch(input: Input, context?: TaskCallContext): Record<string, unknown> {
    const entries = Array.isArray(input.PublishBatchRequestEntries)
      ? (input.PublishBatchRequestEntries as Input[])
      : [];
    if (entries.length === 0)
      throw new ServiceFault('EmptyBatchRequest', "The batch request doesn't contain any entries.", 400);
    if (entries.length > 10)
      throw new ServiceFault(
        'TooManyEntriesInBatchRequest',
        'The batch request contains more entries than permissible.',
        400,
      );
    const Successful: Record<string, unknown>[] = [];
    const Failed: Record<string, unknown>[] = [];
    for (const { Id, ...entry } of entries) {
      try {
        Successful.push({ Id, ...this.publish({ ...entry, TopicArn: input.TopicArn }, context) });
      } catch (err) {
        if (!(err instanceof ServiceFault)) throw err;
        Failed.push({ Id, Code: err.code, Message: err.message, SenderFault: err.status < 500 });
      }
    }
    return { Successful, Failed };
  }

  /** Whether a subscription's filter policy lets a message through (SNS filter policies: the event-pattern rules). */
  private accepts(
    subscription: SnsSubscription,
    message: string,
    attributes: Record<string, MessageAttribute>,
  ): boolean {
    const policy = subscription.attributes.FilterPolicy;
    if (policy === undefined) return true;
    const pattern = JSON.parse(policy) as EventPattern;
    if (subscription.attributes.FilterPolicyScope === 'MessageBody') {
      try {
        return matchesEventPattern(pattern, JSON.parse(message));
      } catch {
        return false;
      }
    }
    const values = Object.fromEntries(
      Object.entries(attributes).map(([name, a]) => {
        if (a.DataType?.startsWith('Number')) return [name, Number(a.StringValue)];
        if (a.DataType === 'String.Array') {
          try {
            return [name, JSON.parse(String(a.StringValue))];
          } catch {
            return [name, a.StringValue];
          }
        }
        return [name, a.StringValue];
      }),
    );
    return matchesEventPattern(pattern, values);
  }

  private deliver(
    subscription: SnsSubscription,
    m: {
      messageId: string;
      sequenceNumber?: string;
      topic: SnsTopic;
      text: string;
      subject?: string;
      attributes: Record<string, MessageAttribute>;
      timestamp: string;
      input: Input;
    },
  ): void {
    const attributes = Object.fromEntries(
      Object.entries(m.attributes).map(([name, a]) => [
        name,
        { Type: a.DataType ?? 'String', Value: a.StringValue ?? a.BinaryValue },
      ]),
    );
    const signature = createHash('sha256').update(`${m.messageId}${m.text}`).digest('base64');
    const unsubscribe = `https://sns.${this.region}.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${subscription.arn}`;
    const certificate = `https://sns.${this.region}.amazonaws.com/SimpleNotificationService-local.pem`;
    // The JSON document SQS, HTTP and email-json subscribers receive (SNS Developer Guide, "Amazon SNS message formats").
    const envelope = {
      Type: 'Notification',
      MessageId: m.messageId,
      ...(m.sequenceNumber !== undefined ? { SequenceNumber: m.sequenceNumber } : {}),
      TopicArn: m.topic.arn,
      ...(m.subject !== undefined ? { Subject: m.subject } : {}),
      Message: m.text,
      Timestamp: m.timestamp,
      SignatureVersion: '1',
      Signature: signature,
      SigningCertURL: certificate,
      UnsubscribeURL: unsubscribe,
      ...(Object.keys(attributes).length > 0 ? { MessageAttributes: attributes } : {}),
    };
    const raw = subscription.attributes.RawMessageDelivery === 'true';
    const targets = this.options.targets;
    switch (subscription.protocol) {
      case 'sqs':
        targets.deliver({
          kind: 'sqs',
          arn: subscription.endpoint,
          body: raw ? m.text : JSON.stringify(envelope),
          ...(typeof m.input.MessageGroupId === 'string' ? { messageGroupId: m.input.MessageGroupId } : {}),
          ...(typeof m.input.MessageDeduplicationId === 'string'
            ? { messageDeduplicationId: m.input.MessageDeduplicationId }
            : {}),
        });
        return;
      case 'lambda':
        // The event a subscribed function receives (Lambda Developer Guide, "Using Lambda with Amazon SNS").
        targets.deliver({
          kind: 'lambda',
          arn: subscription.endpoint,
          event: {
            Records: [
              {
                EventSource: 'aws:sns',
                EventVersion: '1.0',
                EventSubscriptionArn: subscription.arn,
                Sns: {
                  Type: 'Notification',
                  MessageId: m.messageId,
                  TopicArn: m.topic.arn,
                  Subject: m.subject ?? null,
                  Message: m.text,
                  Timestamp: m.timestamp,
                  SignatureVersion: '1',
                  Signature: signature,
                  SigningCertUrl: certificate,
                  UnsubscribeUrl: unsubscribe,
                  MessageAttributes: attributes,
                },
              },
            ],
          },
        });
        return;
      case 'email':
      case 'email-json':
        targets.deliver({
          kind: 'email',
          to: subscription.endpoint,
          subject: m.subject ?? 'AWS Notification Message',
          body: subscription.protocol === 'email-json' ? JSON.stringify(envelope) : m.text,
          idempotencyKey: `sns:${m.messageId}:${subscription.arn}`,
        });
        return;
      default:
        targets.deliver({
          kind: 'http',
          url: subscription.endpoint,
          body: raw ? m.text : JSON.stringify(envelope),
          headers: {
            'content-type': 'text/plain; charset=UTF-8',
            'x-amz-sns-message-type': 'Notification',
            'x-amz-sns-message-id': m.messageId,
            'x-amz-sns-topic-arn': m.topic.arn,
            'x-amz-sns-subscription-arn': subscription.arn,
          },
        });
    }
  }

  private save(): void {
    this.state?.write({ topics: [...this.topics.values()], subscriptions: [...this.subscriptions.values()] });
  }
}
