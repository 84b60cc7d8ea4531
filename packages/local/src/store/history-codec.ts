/**
 * How a closed execution's history is kept: all its events in one row, deflated with a preset dictionary
 * of the words every history repeats (event types, detail fields, ARN prefixes). A finished run's ~40
 * events of a few hundred bytes each shrink to a small blob, and one row replaces ~40 rows that each
 * repeated the execution ARN in their key. Nothing is dropped: every column of every event comes back.
 *
 * Layout: one version byte, then deflate-raw of the JSON array `[[id, type, ts_ms, previous_id, details], …]`
 * (`details` is the event's details JSON text, or null). The dictionary of a version never changes.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/** The codec version written now (the first byte of every packed blob). */
export const HISTORY_CODEC_VERSION = 1;

/**
 * Version 1's dictionary: zlib matches against it as if it preceded the data, so the strings every
 * history holds cost a few bits each. Most frequent last (nearest the data).
 */
const DICTIONARY_V1 = Buffer.from(
  [
    'arn:aws:states:::lambda:invoke', 'arn:aws:states:::states:startExecution.sync:2', 'arn:aws:states:::sqs:sendMessage',
    'waitForTaskToken', 'ExecutionFailed', 'ExecutionTimedOut', 'ExecutionAborted', 'TaskFailed', 'LambdaFunctionFailed',
    'ChoiceStateEntered', 'ChoiceStateExited', 'PassStateEntered', 'PassStateExited', 'WaitStateEntered', 'WaitStateExited',
    'ParallelStateEntered', 'MapStateEntered', 'MapIterationStarted', 'MapIterationSucceeded', 'TaskSubmitted',
    '"error":"States.', '"cause":"', 'ExecutionSucceeded', 'ExecutionStarted', '"roleArn":"arn:aws:iam::',
    '"stateMachineAliasArn":"', '"stateMachineVersionArn":"', '"resourceType":"lambda"', '"parameters":"{',
    'TaskScheduled', 'TaskStarted', 'TaskSucceeded', '"region":"us-east-1"', '"resource":"invoke"',
    'arn:aws:lambda:us-east-1:', ':function:', '"timeoutInSeconds":', 'LambdaFunctionScheduled', 'LambdaFunctionStarted',
    'LambdaFunctionSucceeded', 'TaskStateEntered', 'TaskStateExited', '"name":"', '"resource":"arn:aws:lambda:',
    '"input":"{', '"inputDetails":{"truncated":false}', '"output":"{', '"outputDetails":{"truncated":false}',
    '\\"', '\\":\\"', '\\",\\"', '\\":{\\"', '\\"}', '"},', ',null]', '",null],[',
  ].join(''),
);

const dictionaryFor = (version: number): Buffer => {
  if (version === 1) return DICTIONARY_V1;
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

/** Packs events (in id order) into one blob. */
export function packEvents(events: readonly PackedEvent[]): Buffer {
  const json = JSON.stringify(events.map((e) => [e.id, e.type, e.ts_ms, e.previous_id, e.details]));
  const body = deflateRawSync(json, { dictionary: DICTIONARY_V1, level: 6 });
  return Buffer.concat([Buffer.from([HISTORY_CODEC_VERSION]), body]);
}

/** The events of a blob written by {@link packEvents}, in id order. */
export function unpackEvents(blob: Buffer): PackedEvent[] {
  const json = inflateRawSync(blob.subarray(1), { dictionary: dictionaryFor(blob[0]) }).toString('utf8');
  return (JSON.parse(json) as [number, string, number, number, string | null][]).map(([id, type, ts_ms, previous_id, details]) => ({
    id, type, ts_ms, previous_id, details,
  }));
}
