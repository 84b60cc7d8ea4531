/**
 * The shapes of SQS operation inputs, as the SQS API model declares them, checked before the queue sees a
 * request (from either wire protocol): a field of the wrong type is the service's `InvalidParameterValue`,
 * never a JavaScript fault deeper in.
 */
import { InvalidMessageContentsError, InvalidParameterValueError } from './sqs-errors';

type Shape =
  | 'string'
  | 'integer'
  | 'stringList'
  | 'stringMap'
  | 'messageAttributes'
  | { readonly list: Readonly<Record<string, Shape>> };
type Members = Readonly<Record<string, Shape>>;

const QUEUE_URL: Members = { QueueUrl: 'string' };
const SEND: Members = {
  MessageBody: 'string',
  DelaySeconds: 'integer',
  MessageAttributes: 'messageAttributes',
  MessageSystemAttributes: 'messageAttributes',
  MessageDeduplicationId: 'string',
  MessageGroupId: 'string',
};

/** Input members per operation (members not listed are ignored, as the service ignores them). */
export const SQS_INPUT_SHAPES: Readonly<Record<string, Members>> = {
  CreateQueue: { QueueName: 'string', Attributes: 'stringMap', tags: 'stringMap' },
  GetQueueUrl: { QueueName: 'string', QueueOwnerAWSAccountId: 'string' },
  ListQueues: { QueueNamePrefix: 'string', NextToken: 'string', MaxResults: 'integer' },
  DeleteQueue: QUEUE_URL,
  PurgeQueue: QUEUE_URL,
  GetQueueAttributes: { ...QUEUE_URL, AttributeNames: 'stringList' },
  SetQueueAttributes: { ...QUEUE_URL, Attributes: 'stringMap' },
  SendMessage: { ...QUEUE_URL, ...SEND },
  SendMessageBatch: { ...QUEUE_URL, Entries: { list: { Id: 'string', ...SEND } } },
  ReceiveMessage: {
    ...QUEUE_URL,
    AttributeNames: 'stringList',
    MessageSystemAttributeNames: 'stringList',
    MessageAttributeNames: 'stringList',
    MaxNumberOfMessages: 'integer',
    VisibilityTimeout: 'integer',
    WaitTimeSeconds: 'integer',
    ReceiveRequestAttemptId: 'string',
  },
  DeleteMessage: { ...QUEUE_URL, ReceiptHandle: 'string' },
  DeleteMessageBatch: { ...QUEUE_URL, Entries: { list: { Id: 'string', ReceiptHandle: 'string' } } },
  ChangeMessageVisibility: { ...QUEUE_URL, ReceiptHandle: 'string', VisibilityTimeout: 'integer' },
};

// XML 1.0's characters: what SQS accepts in a message body.
const INVALID_BODY_CHARACTER = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function invalid(path: string, reason: string): never {
  throw new InvalidParameterValueError(`Value for parameter ${path} is invalid. Reason: ${reason}.`);
}

function check(value: unknown, shape: Shape, path: string): void {
  if (value === undefined || value === null) return;
  if (shape === 'string') {
    if (typeof value !== 'string') invalid(path, 'must be a string');
  } else if (shape === 'integer') {
    if (typeof value !== 'number' || !Number.isFinite(value)) invalid(path, 'must be an integer');
  } else if (shape === 'stringList') {
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) invalid(path, 'must be a list of strings');
  } else if (shape === 'stringMap') {
    if (!isObject(value) || Object.values(value).some((v) => typeof v !== 'string'))
      invalid(path, 'must be a map of strings');
  } else if (shape === 'messageAttributes') {
    if (!isObject(value)) invalid(path, 'must be a map of message attributes');
    for (const [name, attribute] of Object.entries(value)) {
      if (
        !isObject(attribute) ||
        typeof attribute.DataType !== 'string' ||
        !/^(String|Number|Binary)(\..+)?$/.test(attribute.DataType)
      ) {
        invalid(`${path}.${name}`, 'DataType must be String, Number or Binary, with an optional custom suffix');
      }
      const value = attribute.DataType.startsWith('Binary') ? attribute.BinaryValue : attribute.StringValue;
      if (typeof value !== 'string' || value === '')
        invalid(`${path}.${name}`, `a ${attribute.DataType} attribute needs a non-empty value`);
    }
  } else {
    if (!Array.isArray(value)) invalid(path, 'must be a list');
    value.forEach((entry, i) => {
      if (!isObject(entry)) invalid(`${path}.${i + 1}`, 'must be a structure');
      for (const [member, memberShape] of Object.entries(shape.list))
        check(entry[member], memberShape, `${path}.${i + 1}.${member}`);
      bodyCharacters(entry.MessageBody);
    });
  }
}

function bodyCharacters(body: unknown): void {
  if (typeof body === 'string' && INVALID_BODY_CHARACTER.test(body)) throw new InvalidMessageContentsError();
}

/** Throws the service's error when `input` does not fit the operation's input shape; unknown operations pass (the queue refuses them). */
export function validateSqsInput(operation: string, input: Readonly<Record<string, unknown>>): void {
  const members = Object.hasOwn(SQS_INPUT_SHAPES, operation) ? SQS_INPUT_SHAPES[operation] : undefined;
  if (!members) return;
  for (const [member, shape] of Object.entries(members)) check(input[member], shape, member);
  bodyCharacters(input.MessageBody);
}
