import { createHash } from 'node:crypto';

/** A message attribute as the JSON protocol carries it (binary values base64). */
export interface MessageAttributeValue {
  readonly DataType: string;
  readonly StringValue?: string;
  readonly BinaryValue?: string;
}

/** MD5 of a message body, hex, as SQS returns and the SDK verifies. */
export const md5Hex = (data: string | Buffer): string => createHash('md5').update(data).digest('hex');

function lengthPrefixed(bytes: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/**
 * `MD5OfMessageAttributes` by SQS's documented encoding: for each attribute in name order, the
 * length-prefixed name and data type, a transport byte (1 string, 2 binary) and the length-prefixed value.
 */
export function md5OfMessageAttributes(attributes: Readonly<Record<string, MessageAttributeValue>>): string {
  const parts: Buffer[] = [];
  for (const name of Object.keys(attributes).sort()) {
    const { DataType, StringValue, BinaryValue } = attributes[name];
    parts.push(lengthPrefixed(Buffer.from(name, 'utf8')), lengthPrefixed(Buffer.from(DataType, 'utf8')));
    if (BinaryValue !== undefined) parts.push(Buffer.from([2]), lengthPrefixed(Buffer.from(BinaryValue, 'base64')));
    else parts.push(Buffer.from([1]), lengthPrefixed(Buffer.from(StringValue ?? '', 'utf8')));
  }
  return md5Hex(Buffer.concat(parts));
}
