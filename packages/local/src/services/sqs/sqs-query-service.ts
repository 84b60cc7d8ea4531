/**
 * SQS over the query protocol (local/api/aws-query-protocol.ts), beside the JSON one: the same
 * {@link LocalSqs} operations, with the input unflattened and the output written as the XML the SQS API
 * model describes (flattened lists and maps: `<Attribute><Name/><Value/></Attribute>`, `<QueueUrl>` per
 * queue, `<Message>` per message).
 */
import { XmlNode } from '@aws-sdk/xml-builder';
import type { AwsQueryService } from '../../api/aws-query-requests';
import {
  decodeQueryForm,
  queryErrorResponse,
  queryListMembers,
  queryResponse,
  type QueryTree,
  textElement,
} from '../../api/aws-query-protocol';
import type { LocalSqs } from './local-sqs';
import { InvalidActionError, MissingActionError, SqsServiceError } from './sqs-errors';
import { SQS_INPUT_SHAPES, validateSqsInput } from './sqs-input';

/** The XML namespace of SQS API version 2012-11-05. */
export const SQS_XML_NAMESPACE = 'http://queue.amazonaws.com/doc/2012-11-05/';

type Json = Record<string, unknown>;

/** Flattened maps: the query name of the member, the JSON member, and its key and value element names. */
const MAPS: readonly { query: string; json: string; key: string }[] = [
  { query: 'Attribute', json: 'Attributes', key: 'Name' },
  { query: 'Tag', json: 'tags', key: 'Key' },
  { query: 'MessageAttribute', json: 'MessageAttributes', key: 'Name' },
  { query: 'MessageSystemAttribute', json: 'MessageSystemAttributes', key: 'Name' },
];
/** Flattened lists of strings. */
const LISTS: readonly { query: string; json: string }[] = [
  { query: 'AttributeName', json: 'AttributeNames' },
  { query: 'MessageAttributeName', json: 'MessageAttributeNames' },
  { query: 'MessageSystemAttributeName', json: 'MessageSystemAttributeNames' },
];
/** Flattened lists of batch entries, by the query name of one entry. */
const ENTRY_LISTS = [
  'SendMessageBatchRequestEntry',
  'DeleteMessageBatchRequestEntry',
  'ChangeMessageVisibilityBatchRequestEntry',
];
/** Members the model types as integers (the form carries them as text). */
const INTEGERS = new Set(['DelaySeconds', 'MaxNumberOfMessages', 'VisibilityTimeout', 'WaitTimeSeconds', 'MaxResults']);

/** A message attribute value: `StringListValue.N` / `BinaryListValue.N` become lists, the rest stays. */
function attributeValue(node: string | QueryTree | undefined): unknown {
  if (node === undefined || typeof node === 'string') return node;
  const value: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'StringListValue' || k === 'BinaryListValue') value[`${k}s`] = queryListMembers(v);
    else value[k] = v;
  }
  return value;
}

/** The JSON-protocol input of a decoded query tree (for one level: the request, or one batch entry). */
function toJsonInput(tree: QueryTree): Json {
  const input: Json = {};
  for (const [name, node] of Object.entries(tree)) {
    const map = MAPS.find((m) => m.query === name);
    const list = LISTS.find((l) => l.query === name);
    if (map) {
      const entries = queryListMembers(node).filter((e): e is QueryTree => typeof e !== 'string');
      input[map.json] = Object.fromEntries(
        entries
          .filter((e) => typeof e[map.key] === 'string')
          .map((e) => [e[map.key] as string, map.query.startsWith('Message') ? attributeValue(e.Value) : e.Value]),
      );
    } else if (list) {
      input[list.json] = queryListMembers(node);
    } else if (ENTRY_LISTS.includes(name)) {
      input.Entries = queryListMembers(node).map((e) => (typeof e === 'string' ? e : toJsonInput(e)));
    } else if (INTEGERS.has(name) && typeof node === 'string' && /^-?\d{1,15}$/.test(node.trim())) {
      input[name] = Number(node);
    } else {
      input[name] = node;
    }
  }
  return input;
}

/** A JSON-protocol output value as XML elements named `name` (lists and maps flattened as the model has them). */
function toXml(name: string, value: unknown, action: string): XmlNode[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((v) => toXml(listMemberName(name, action), v, action));
  if (typeof value === 'object') {
    const map = MAPS.find((m) => m.json === name);
    if (map) {
      return Object.entries(value as Json).map(
        ([k, v]) => new XmlNode(map.query, [textElement(map.key, k), ...toXml('Value', v, action)]),
      );
    }
    return [
      new XmlNode(
        name,
        Object.entries(value as Json).flatMap(([k, v]) => toXml(k, v, action)),
      ),
    ];
  }
  return [textElement(name, String(value))];
}

/** The element name of one member of an output list. */
function listMemberName(name: string, action: string): string {
  switch (name) {
    case 'QueueUrls':
      return 'QueueUrl';
    case 'Messages':
      return 'Message';
    case 'Successful':
      return `${action}ResultEntry`;
    case 'Failed':
      return 'BatchResultErrorEntry';
    case 'StringListValues':
      return 'StringListValue';
    case 'BinaryListValues':
      return 'BinaryListValue';
    default:
      return name;
  }
}

/** Serves SQS's query protocol from a {@link LocalSqs}. */
export function sqsQueryService(sqs: LocalSqs): AwsQueryService {
  return {
    async handle(form, path) {
      try {
        const action = form.get('Action');
        if (!action) throw new MissingActionError();
        if (!Object.hasOwn(SQS_INPUT_SHAPES, action)) throw new InvalidActionError(action);
        const input = toJsonInput(decodeQueryForm(form));
        // Posted to the queue's own URL (as older SDKs do): the path names the queue.
        if (
          input.QueueUrl === undefined &&
          path !== '/' &&
          !['CreateQueue', 'GetQueueUrl', 'ListQueues'].includes(action)
        )
          input.QueueUrl = path;
        validateSqsInput(action, input);
        const output = (await sqs.handle(action, input)) as Json;
        return {
          statusCode: 200,
          body: queryResponse(
            SQS_XML_NAMESPACE,
            action,
            Object.entries(output ?? {}).flatMap(([k, v]) => toXml(k, v, action)),
          ),
        };
      } catch (err) {
        if (!(err instanceof SqsServiceError)) throw err;
        return {
          statusCode: 400,
          body: queryErrorResponse(SQS_XML_NAMESPACE, { type: 'Sender', code: err.queryCode, message: err.message }),
        };
      }
    },
  };
}
