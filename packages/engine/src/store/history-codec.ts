/**
 * How history events are kept: several events in one row, deflated with a preset dictionary of the words
 * every history repeats (event types, detail fields, ARN prefixes). Each transition writes its events as
 * one such segment (one row and one index entry per transition instead of one per event, each repeating the
 * execution ARN in its key), and a closed run's events left in rows by an older version are packed into one.
 * Nothing is dropped: every column of every event comes back.
 *
 * Layout: one version byte, then deflate-raw of a JSON array, one entry per event, with the version's
 * dictionary (the dictionary of a version never changes):
 * - version 1: `[[id, type, ts_ms, previous_id, details], …]`, `details` the event's details JSON *text* (or null);
 * - version 2 (written now): the same with `details` the details *value*, so nothing is stringified twice;
 * - version 3: version 2's array, not deflated (a store in memory: nothing to save, no time to spend).
 */
import { inflateRawSync } from 'node:zlib';
import { SegmentDeflater } from './segment-deflater';

/** The codec version written now (the first byte of every packed blob). */
export const HISTORY_CODEC_VERSION = 2;

/**
 * Version 1's dictionary: zlib matches against it as if it preceded the data, so the strings every
 * history holds cost a few bits each. Most frequent last (nearest the data).
 */
const DICTIONARY_V1 = Buffer.from(
  [
    'arn:aws:states:::lambda:invoke',
    'arn:aws:states:::states:startExecution.sync:2',
    'arn:aws:states:::sqs:sendMessage',
    'waitForTaskToken',
    'ExecutionFailed',
    'ExecutionTimedOut',
    'ExecutionAborted',
    'TaskFailed',
    'LambdaFunctionFailed',
    'ChoiceStateEntered',
    'ChoiceStateExited',
    'PassStateEntered',
    'PassStateExited',
    'WaitStateEntered',
    'WaitStateExited',
    'ParallelStateEntered',
    'MapStateEntered',
    'MapIterationStarted',
    'MapIterationSucceeded',
    'TaskSubmitted',
    '"error":"States.',
    '"cause":"',
    'ExecutionSucceeded',
    'ExecutionStarted',
    '"roleArn":"arn:aws:iam::',
    '"stateMachineAliasArn":"',
    '"stateMachineVersionArn":"',
    '"resourceType":"lambda"',
    '"parameters":"{',
    'TaskScheduled',
    'TaskStarted',
    'TaskSucceeded',
    '"region":"us-east-1"',
    '"resource":"invoke"',
    'arn:aws:lambda:us-east-1:',
    ':function:',
    '"timeoutInSeconds":',
    'LambdaFunctionScheduled',
    'LambdaFunctionStarted',
    'LambdaFunctionSucceeded',
    'TaskStateEntered',
    'TaskStateExited',
    '"name":"',
    '"resource":"arn:aws:lambda:',
    '"input":"{',
    '"inputDetails":{"truncated":false}',
    '"output":"{',
    '"outputDetails":{"truncated":false}',
    '\\"',
    '\\":\\"',
    '\\",\\"',
    '\\":{\\"',
    '\\"}',
    '"},',
    ',null]',
    '",null],[',
  ].join(''),
);

/** Version 2 keeps details as JSON values: the same words, without the escaping of nested JSON text. */
const DICTIONARY_V2 = Buffer.from(DICTIONARY_V1.toString('latin1').replace(/\\"/g, '"'), 'latin1');

const dictionaryFor = (version: number): Buffer => {
  if (version === 1) return DICTIONARY_V1;
  if (version === 2) return DICTIONARY_V2;
  throw new Error(`packed history of an unknown codec version ${version}`);
};

/** One event as the store keeps it. */
export interface PackedEvent {
  readonly id: number;
  readonly type: string;
  readonly ts_ms: number;
  readonly previous_id: number;
  readonly details: string | null;
}

/** An event as a transition writes it: its details still a value. */
export interface EventToPack {
  readonly id: number;
  readonly type: string;
  readonly ts_ms: number;
  readonly previous_id: number;
  readonly details: Record<string, unknown> | undefined;
}

/** The version of blobs written without deflating them. */
const PLAIN_VERSION = 3;

/** One event's entry in a blob of the current version, as JSON text (its length counts toward a segment's budget). */
export function encodeEvent(e: EventToPack): string {
  return JSON.stringify([e.id, e.type, e.ts_ms, e.previous_id, e.details ?? null]);
}

/** Packs events (in id order) into one blob of the current version (`deflate` false: {@link PLAIN_VERSION}). */
export function packEvents(events: readonly EventToPack[], deflate = true): Buffer {
  return packEncoded(events.map(encodeEvent), deflate);
}

/** Made on first use: a process that only reads histories never holds a deflate state. */
let deflater: SegmentDeflater | undefined;

/** Packs entries made by {@link encodeEvent} (in id order) into one blob. */
export function packEncoded(entries: readonly string[], deflate = true): Buffer {
  const json = `[${entries.join(',')}]`;
  if (!deflate) return Buffer.concat([Buffer.from([PLAIN_VERSION]), Buffer.from(json)]);
  deflater ??= new SegmentDeflater({ dictionary: DICTIONARY_V2, level: 6 });
  return deflater.deflate(Buffer.from(json), HISTORY_CODEC_VERSION);
}

/** Packs events already held as rows (details as JSON text) into one blob of the current version. */
export function packEventRows(events: readonly PackedEvent[]): Buffer {
  return packEvents(
    events.map((e) => ({
      ...e,
      details: e.details === null ? undefined : (JSON.parse(e.details) as Record<string, unknown>),
    })),
  );
}

/**
 * One event of a blob with its details as the blob holds them: a value (version 2 and later, never
 * stringified on the way out) or JSON text (version 1).
 */
export interface UnpackedEvent {
  readonly id: number;
  readonly type: string;
  readonly ts_ms: number;
  readonly previous_id: number;
  readonly details: string | Record<string, unknown> | null;
}

/** The events of a blob written by {@link packEvents} (or by version 1), in id order, details as the blob holds them. */
export function unpackEventValues(blob: Buffer): UnpackedEvent[] {
  const version = blob[0];
  const json = (
    version === PLAIN_VERSION
      ? blob.subarray(1)
      : inflateRawSync(blob.subarray(1), { dictionary: dictionaryFor(version) })
  ).toString('utf8');
  return (JSON.parse(json) as [number, string, number, number, string | Record<string, unknown> | null][]).map(
    ([id, type, ts_ms, previous_id, details]) => ({
      id,
      type,
      ts_ms,
      previous_id,
      details,
    }),
  );
}

/** The events of a blob written by {@link packEvents} (or by version 1), in id order, details as JSON text. */
export function unpackEvents(blob: Buffer): PackedEvent[] {
  return unpackEventValues(blob).map((e) => ({
    ...e,
    details: e.details === null || typeof e.details === 'string' ? e.details : JSON.stringify(e.details),
  }));
}
