import { randomBytes, randomUUID } from 'node:crypto';
import {
  LOCAL_ACCOUNT_ID,
  LOCAL_REGION,
  STATES_PAYLOAD_LIMIT_BYTES,
  systemClock,
  type Clock,
} from '@autosave/workflow/config';
import {
  InvalidAttributeNameError,
  InvalidParameterValueError,
  MessageNotInflightError,
  MissingParameterError,
  QueueDoesNotExistError,
  QueueNameExistsError,
  ReceiptHandleIsInvalidError,
  SqsUnsupportedOperationError,
} from './sqs-errors';
import { md5Hex, md5OfMessageAttributes, type MessageAttributeValue } from './message-attributes-md5';
import { type MessageRow, type QueueRow, QueueStore } from '@autosave/engine/store';

/** Longest long poll SQS allows (`WaitTimeSeconds`). */
export const SQS_MAX_WAIT_SECONDS = 20;
/** Most messages one ReceiveMessage returns. */
export const SQS_MAX_RECEIVE_MESSAGES = 10;
/** Longest visibility timeout SQS allows: 12 hours. */
export const SQS_MAX_VISIBILITY_TIMEOUT_SECONDS = 43_200;

/** SQS's default queue attributes. */
export const DEFAULT_QUEUE_ATTRIBUTES: Readonly<Record<string, string>> = {
  VisibilityTimeout: '30',
  DelaySeconds: '0',
  MessageRetentionPeriod: '345600',
  MaximumMessageSize: String(STATES_PAYLOAD_LIMIT_BYTES),
  ReceiveMessageWaitTimeSeconds: '0',
};

/** Attributes a caller may set; `RedrivePolicy` moves a message to its dead-letter queue after `maxReceiveCount` receives. */
const SETTABLE_ATTRIBUTES = new Set([
  ...Object.keys(DEFAULT_QUEUE_ATTRIBUTES),
  'RedrivePolicy',
  'Policy',
  'KmsMasterKeyId',
  'SqsManagedSseEnabled',
]);
const COMPUTED_ATTRIBUTES = [
  'QueueArn',
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
  'CreatedTimestamp',
  'LastModifiedTimestamp',
];
const MESSAGE_SYSTEM_ATTRIBUTES = [
  'SenderId',
  'SentTimestamp',
  'ApproximateReceiveCount',
  'ApproximateFirstReceiveTimestamp',
];

/** Options of {@link LocalSqs}. */
export interface LocalSqsOptions {
  /** The SQLite file that holds queues and messages. */
  readonly file: string;
  /** Source of time for visibility, delays and timestamps. @default systemClock */
  readonly clock?: Clock;
  /** Account in queue URLs and ARNs. @default LOCAL_ACCOUNT_ID */
  readonly accountId?: string;
  /** Region in queue ARNs. @default LOCAL_REGION */
  readonly region?: string;
  /** Base of queue URLs (`http://127.0.0.1:<port>`); can be set later with {@link LocalSqs.setBaseUrl}. @default http://127.0.0.1 */
  readonly baseUrl?: string;
}

type Input = Record<string, unknown>;

const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;

function requireString(input: Input, field: string): string {
  const value = input[field];
  if (typeof value !== 'string' || value === '') throw new MissingParameterError(field);
  return value;
}

function optionalInteger(input: Input, field: string, min: number, max: number): number | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidParameterValueError(
      `Value ${JSON.stringify(value)} for parameter ${field} is invalid. Reason: must be an integer from ${min} to ${max}.`,
    );
  }
  return value;
}

/**
 * SQS served from a SQLite file (WAL, synchronous=FULL): every send, receive, delete and visibility change
 * is committed before it is answered, so messages — dead letters above all — survive a crash or restart.
 * Standard queues only (no FIFO ordering or deduplication). The operations the AWS JSON protocol names are
 * the methods of {@link LocalSqs.handle}.
 */
export class LocalSqs {
  private readonly store: QueueStore;
  private readonly clock: Clock;
  private readonly accountId: string;
  private readonly region: string;
  private baseUrl: string;
  /** Long polls waiting per queue; a send or visibility change wakes them. */
  private readonly waiters = new Map<string, Set<() => void>>();
  private closed = false;

  constructor(options: LocalSqsOptions) {
    this.clock = options.clock ?? systemClock;
    this.accountId = options.accountId ?? LOCAL_ACCOUNT_ID;
    this.region = options.region ?? LOCAL_REGION;
    this.baseUrl = options.baseUrl ?? 'http://127.0.0.1';
    this.store = new QueueStore(options.file);
  }

  /** Sets the base of queue URLs once the server knows its port. Queues are stored by name, so URLs follow the port. */
  setBaseUrl(url: string): void {
    this.baseUrl = url.replace(/\/$/, '');
  }

  /** The URL of a queue by name. */
  queueUrl(name: string): string {
    return `${this.baseUrl}/${this.accountId}/${name}`;
  }

  /** The ARN of a queue by name. */
  queueArn(name: string): string {
    return `arn:aws:sqs:${this.region}:${this.accountId}:${name}`;
  }

  /** Runs one SQS operation on its JSON-protocol input. */
  async handle(operation: string, input: Input): Promise<unknown> {
    switch (operation) {
      case 'CreateQueue':
        return this.createQueue(input);
      case 'GetQueueUrl':
        return this.getQueueUrl(input);
      case 'ListQueues':
        return this.listQueues(input);
      case 'DeleteQueue':
        return this.deleteQueue(input);
      case 'GetQueueAttributes':
        return this.getQueueAttributes(input);
      case 'SetQueueAttributes':
        return this.setQueueAttributes(input);
      case 'SendMessage':
        return this.sendMessage(input);
      case 'SendMessageBatch':
        return this.sendMessageBatch(input);
      case 'ReceiveMessage':
        return this.receiveMessage(input);
      case 'DeleteMessage':
        return this.deleteMessage(input);
      case 'DeleteMessageBatch':
        return this.deleteMessageBatch(input);
      case 'ChangeMessageVisibility':
        return this.changeMessageVisibility(input);
      case 'PurgeQueue':
        return this.purgeQueue(input);
      default:
        throw new SqsUnsupportedOperationError(operation);
    }
  }

  /** Wakes every long poll and closes the database. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const set of this.waiters.values()) for (const wake of set) wake();
    this.store.close();
  }

  // --- queues -------------------------------------------------------------------------------------

  private createQueue(input: Input): unknown {
    const name = requireString(input, 'QueueName');
    if (!QUEUE_NAME.test(name)) {
      throw new InvalidParameterValueError(
        'Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length',
      );
    }
    const given = this.validateAttributes((input.Attributes ?? {}) as Record<string, string>);
    const now = this.clock.now();
    const existing = this.store.getQueue(name);
    if (existing) {
      const current = JSON.parse(existing.attributes) as Record<string, string>;
      if (Object.entries(given).some(([k, v]) => current[k] !== v)) throw new QueueNameExistsError(name);
    } else {
      this.store.insertQueue(name, JSON.stringify({ ...DEFAULT_QUEUE_ATTRIBUTES, ...given }), now);
    }
    return { QueueUrl: this.queueUrl(name) };
  }

  private getQueueUrl(input: Input): unknown {
    const name = requireString(input, 'QueueName');
    this.queue(name);
    return { QueueUrl: this.queueUrl(name) };
  }

  private listQueues(input: Input): unknown {
    const prefix = typeof input.QueueNamePrefix === 'string' ? input.QueueNamePrefix : '';
    const max = optionalInteger(input, 'MaxResults', 1, 1000);
    const after = typeof input.NextToken === 'string' ? Buffer.from(input.NextToken, 'base64url').toString('utf8') : '';
    const names = this.store.queueNamesAfter(after).filter((n) => n.startsWith(prefix));
    const page = max === undefined ? names : names.slice(0, max);
    const more = max !== undefined && names.length > max;
    return {
      ...(page.length > 0 ? { QueueUrls: page.map((n) => this.queueUrl(n)) } : {}),
      ...(more ? { NextToken: Buffer.from(page[page.length - 1], 'utf8').toString('base64url') } : {}),
    };
  }

  private deleteQueue(input: Input): unknown {
    const name = this.queueFromUrl(input).name;
    this.store.deleteQueue(name);
    return {};
  }

  private getQueueAttributes(input: Input): unknown {
    const queue = this.queueFromUrl(input);
    const requested = (input.AttributeNames ?? []) as string[];
    const stored = JSON.parse(queue.attributes) as Record<string, string>;
    const now = this.clock.now();
    const count = (kind: 'visible' | 'in-flight' | 'delayed') => this.store.countMessages(queue.name, kind, now);
    const computed: Record<string, () => string> = {
      QueueArn: () => this.queueArn(queue.name),
      ApproximateNumberOfMessages: () => String(count('visible')),
      ApproximateNumberOfMessagesNotVisible: () => String(count('in-flight')),
      ApproximateNumberOfMessagesDelayed: () => String(count('delayed')),
      CreatedTimestamp: () => String(Math.floor(queue.created_at / 1000)),
      LastModifiedTimestamp: () => String(Math.floor(queue.modified_at / 1000)),
    };
    const names = requested.includes('All') ? [...Object.keys(stored), ...COMPUTED_ATTRIBUTES] : requested;
    const attributes: Record<string, string> = {};
    for (const name of names) {
      // Own properties only: `__proto__`, `constructor`, `toString` are names on every object's prototype.
      if (Object.hasOwn(computed, name)) attributes[name] = computed[name]();
      else if (Object.hasOwn(stored, name)) attributes[name] = stored[name];
      else if (!SETTABLE_ATTRIBUTES.has(name)) throw new InvalidAttributeNameError(name);
    }
    return Object.keys(attributes).length > 0 ? { Attributes: attributes } : {};
  }

  private setQueueAttributes(input: Input): unknown {
    const queue = this.queueFromUrl(input);
    const given = this.validateAttributes((input.Attributes ?? {}) as Record<string, string>);
    const merged = { ...(JSON.parse(queue.attributes) as Record<string, string>), ...given };
    this.store.setQueueAttributes(queue.name, JSON.stringify(merged), this.clock.now());
    return {};
  }

  private purgeQueue(input: Input): unknown {
    this.store.purge(this.queueFromUrl(input).name);
    return {};
  }

  // --- messages -----------------------------------------------------------------------------------

  private sendMessage(input: Input): unknown {
    const queue = this.queueFromUrl(input);
    const result = this.store.transaction(() => this.insertMessage(queue, input));
    this.wake(queue.name);
    return result;
  }

  private sendMessageBatch(input: Input): unknown {
    const queue = this.queueFromUrl(input);
    const entries = (input.Entries ?? []) as Input[];
    const successful: unknown[] = [];
    const failed: unknown[] = [];
    this.store.transaction(() => {
      for (const entry of entries) {
        try {
          successful.push({ Id: entry.Id, ...this.insertMessage(queue, entry) });
        } catch (err) {
          const e = err as InvalidParameterValueError;
          failed.push({ Id: entry.Id, SenderFault: true, Code: e.name, Message: e.message });
        }
      }
    });
    this.wake(queue.name);
    return { Successful: successful, Failed: failed };
  }

  private insertMessage(queue: QueueRow, input: Input): Record<string, string> {
    const body = input.MessageBody;
    if (typeof body !== 'string' || body === '') throw new MissingParameterError('MessageBody');
    const attrs = JSON.parse(queue.attributes) as Record<string, string>;
    const limit = Number(attrs.MaximumMessageSize);
    const messageAttributes = (input.MessageAttributes ?? undefined) as
      Record<string, MessageAttributeValue> | undefined;
    const size = Buffer.byteLength(body) + Buffer.byteLength(JSON.stringify(messageAttributes ?? {}));
    if (size > limit) {
      throw new InvalidParameterValueError(
        `One or more parameters are invalid. Reason: Message must be shorter than ${limit} bytes.`,
      );
    }
    const delay = optionalInteger(input, 'DelaySeconds', 0, 900) ?? Number(attrs.DelaySeconds);
    const now = this.clock.now();
    const messageId = randomUUID();
    this.store.insertMessage({
      queue: queue.name,
      messageId,
      body,
      messageAttributes: messageAttributes ? JSON.stringify(messageAttributes) : null,
      sentAt: now,
      visibleAt: now + delay * 1000,
    });
    return {
      MessageId: messageId,
      MD5OfMessageBody: md5Hex(body),
      ...(messageAttributes && Object.keys(messageAttributes).length > 0
        ? { MD5OfMessageAttributes: md5OfMessageAttributes(messageAttributes) }
        : {}),
    };
  }

  private async receiveMessage(input: Input): Promise<unknown> {
    const queue = this.queueFromUrl(input);
    const attrs = JSON.parse(queue.attributes) as Record<string, string>;
    const max = optionalInteger(input, 'MaxNumberOfMessages', 1, SQS_MAX_RECEIVE_MESSAGES) ?? 1;
    const visibility =
      optionalInteger(input, 'VisibilityTimeout', 0, SQS_MAX_VISIBILITY_TIMEOUT_SECONDS) ??
      Number(attrs.VisibilityTimeout);
    const wait =
      optionalInteger(input, 'WaitTimeSeconds', 0, SQS_MAX_WAIT_SECONDS) ?? Number(attrs.ReceiveMessageWaitTimeSeconds);
    const deadline = Date.now() + wait * 1000;
    for (;;) {
      const rows = this.claimMessages(queue, max, visibility);
      if (rows.length > 0 || this.closed || Date.now() >= deadline) return this.formatMessages(rows, input);
      await this.waitForMessages(queue.name, deadline - Date.now());
    }
  }

  /** Takes up to `max` visible messages and hides them for `visibility` seconds, in one commit. */
  private claimMessages(queue: QueueRow, max: number, visibility: number): MessageRow[] {
    const redrive = this.redrivePolicy(queue);
    return this.store.transaction(() => {
      const now = this.clock.now();
      const retention = Number((JSON.parse(queue.attributes) as Record<string, string>).MessageRetentionPeriod);
      this.store.deleteExpired(queue.name, now - retention * 1000);
      const claimed: MessageRow[] = [];
      while (claimed.length < max) {
        const candidates = this.store.visibleMessages(queue.name, now, max - claimed.length);
        if (candidates.length === 0) break;
        for (const row of candidates) {
          if (redrive && row.receive_count >= redrive.maxReceiveCount) {
            // The message has used up its receives: it moves to the dead-letter queue instead of being delivered.
            this.store.moveMessage(row.seq, redrive.deadLetterQueue, now);
            continue;
          }
          const handle = `${row.seq}.${randomBytes(24).toString('base64url')}`;
          const firstReceived = row.first_received_at ?? now;
          this.store.markReceived(row.seq, now + visibility * 1000, firstReceived, handle);
          claimed.push({
            ...row,
            receive_count: row.receive_count + 1,
            first_received_at: firstReceived,
            receipt_handle: handle,
          });
        }
      }
      return claimed;
    });
  }

  private formatMessages(rows: MessageRow[], input: Input): unknown {
    if (rows.length === 0) return {};
    const systemNames = [
      ...((input.MessageSystemAttributeNames ?? []) as string[]),
      ...((input.AttributeNames ?? []) as string[]),
    ];
    const wantedSystem = systemNames.includes('All')
      ? MESSAGE_SYSTEM_ATTRIBUTES
      : systemNames.filter((n) => MESSAGE_SYSTEM_ATTRIBUTES.includes(n));
    const attributeNames = (input.MessageAttributeNames ?? []) as string[];
    const wantsAttribute = (name: string) =>
      attributeNames.some(
        (n) => n === 'All' || n === '.*' || n === name || (n.endsWith('.*') && name.startsWith(n.slice(0, -1))),
      );
    return {
      Messages: rows.map((row) => {
        const system: Record<string, string> = {
          SenderId: this.accountId,
          SentTimestamp: String(row.sent_at),
          ApproximateReceiveCount: String(row.receive_count),
          ApproximateFirstReceiveTimestamp: String(row.first_received_at),
        };
        const attributes = Object.fromEntries(wantedSystem.map((n) => [n, system[n]]));
        const all = row.message_attributes
          ? (JSON.parse(row.message_attributes) as Record<string, MessageAttributeValue>)
          : {};
        const selected = Object.fromEntries(Object.entries(all).filter(([n]) => wantsAttribute(n)));
        return {
          MessageId: row.message_id,
          ReceiptHandle: row.receipt_handle,
          MD5OfBody: md5Hex(row.body),
          Body: row.body,
          ...(wantedSystem.length > 0 ? { Attributes: attributes } : {}),
          ...(Object.keys(selected).length > 0
            ? { MessageAttributes: selected, MD5OfMessageAttributes: md5OfMessageAttributes(selected) }
            : {}),
        };
      }),
    };
  }

  private deleteMessage(input: Input): unknown {
    const queue = this.queueFromUrl(input);
    this.deleteByHandle(queue, requireString(input, 'ReceiptHandle'));
    return {};
  }

  private deleteMessageBatch(input: Input): unknown {
    const queue = this.queueFromUrl(input);
    const successful: unknown[] = [];
    const failed: unknown[] = [];
    for (const entry of (input.Entries ?? []) as Input[]) {
      try {
        this.deleteByHandle(queue, String(entry.ReceiptHandle ?? ''));
        successful.push({ Id: entry.Id });
      } catch (err) {
        failed.push({ Id: entry.Id, SenderFault: true, Code: (err as Error).name, Message: (err as Error).message });
      }
    }
    return { Successful: successful, Failed: failed };
  }

  /** Deletes the message a receipt handle names. A stale handle of a message already gone succeeds, as in SQS. */
  private deleteByHandle(queue: QueueRow, handle: string): void {
    this.parseHandle(handle);
    this.store.deleteByHandle(queue.name, handle);
  }

  private changeMessageVisibility(input: Input): unknown {
    const queue = this.queueFromUrl(input);
    const handle = requireString(input, 'ReceiptHandle');
    this.parseHandle(handle);
    const timeout = optionalInteger(input, 'VisibilityTimeout', 0, SQS_MAX_VISIBILITY_TIMEOUT_SECONDS);
    if (timeout === undefined) throw new MissingParameterError('VisibilityTimeout');
    const now = this.clock.now();
    const row = this.store.messageByHandle(queue.name, handle);
    if (!row || row.visible_at <= now) throw new MessageNotInflightError();
    this.store.setVisibleAt(row.seq, now + timeout * 1000);
    if (timeout === 0) this.wake(queue.name);
    return {};
  }

  // --- helpers ------------------------------------------------------------------------------------

  private parseHandle(handle: string): number {
    const match = /^(\d+)\.[A-Za-z0-9_-]{32}$/.exec(handle);
    if (!match) throw new ReceiptHandleIsInvalidError(handle);
    return Number(match[1]);
  }

  private queue(name: string): QueueRow {
    const row = this.store.getQueue(name);
    if (!row) throw new QueueDoesNotExistError(name);
    return row;
  }

  /** The queue a `QueueUrl` names: its last path segment, whatever host and port (ports change between starts). */
  private queueFromUrl(input: Input): QueueRow {
    const url = requireString(input, 'QueueUrl');
    const name = url.split('/').filter(Boolean).pop() ?? '';
    return this.queue(name);
  }

  private redrivePolicy(queue: QueueRow): { deadLetterQueue: string; maxReceiveCount: number } | undefined {
    const raw = (JSON.parse(queue.attributes) as Record<string, string>).RedrivePolicy;
    if (!raw) return undefined;
    const policy = JSON.parse(raw) as { deadLetterTargetArn: string; maxReceiveCount: number | string };
    return {
      deadLetterQueue: policy.deadLetterTargetArn.split(':').pop() ?? '',
      maxReceiveCount: Number(policy.maxReceiveCount),
    };
  }

  private validateAttributes(attributes: Record<string, string>): Record<string, string> {
    for (const [name, value] of Object.entries(attributes)) {
      if (!SETTABLE_ATTRIBUTES.has(name)) throw new InvalidAttributeNameError(name);
      if (name === 'RedrivePolicy') {
        let policy: { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
        try {
          policy = JSON.parse(value);
        } catch {
          throw new InvalidParameterValueError('Value for parameter RedrivePolicy is invalid. Reason: Invalid JSON.');
        }
        if (
          policy === null ||
          typeof policy !== 'object' ||
          typeof policy.deadLetterTargetArn !== 'string' ||
          !(Number(policy.maxReceiveCount) >= 1)
        ) {
          throw new InvalidParameterValueError(
            'Value for parameter RedrivePolicy is invalid. Reason: needs deadLetterTargetArn and maxReceiveCount.',
          );
        }
      } else if (name in DEFAULT_QUEUE_ATTRIBUTES && !/^\d+$/.test(String(value))) {
        throw new InvalidParameterValueError(`Invalid value for the parameter ${name}.`);
      }
    }
    return Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, String(v)]));
  }

  private waitForMessages(queue: string, millis: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(queue) ?? new Set<() => void>();
      this.waiters.set(queue, set);
      // Re-check at least once a second: delayed messages and expired visibility become receivable by time alone.
      const timer = setTimeout(() => wake(), Math.max(0, Math.min(millis, 1000)));
      const wake = () => {
        clearTimeout(timer);
        set.delete(wake);
        resolve();
      };
      set.add(wake);
    });
  }

  private wake(queue: string): void {
    for (const wake of this.waiters.get(queue) ?? []) wake();
  }
}
