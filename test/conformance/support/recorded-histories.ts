/**
 * Histories AWS recorded (LocalStack's AWS-validated snapshots, kept verbatim in
 * test/fixtures/history/aws-snapshots), and the comparison of a run's events with them: each event with its
 * details, under the recording's own masks.
 */
import { readFileSync } from 'node:fs';

/** A fixture of test/fixtures/history/aws-snapshots, parsed. */
export function snapshotFixture<T>(file: string): T {
  return JSON.parse(
    readFileSync(new URL(`../../fixtures/history/aws-snapshots/${file}`, import.meta.url), 'utf8'),
  ) as T;
}

/** One snapshot file's histories by test name, each event as GetExecutionHistory gave it (masked by the snapshot). */
export function recordedHistories(file: string): Record<string, Record<string, unknown>[]> {
  return snapshotFixture<{ histories: Record<string, Record<string, unknown>[]> }>(file).histories;
}

/**
 * What a mock stands in for but does not invent, left out on both sides: the HTTP metadata AWS adds to a real
 * response, and the redrive fields of a real DescribeExecution (LocalStack's tests skip the same paths).
 */
const NOT_MOCKED = new Set([
  'SdkHttpMetadata',
  'SdkResponseMetadata',
  'ExecutedVersion',
  'RedriveCount',
  'RedriveStatus',
  'RedriveStatusReason',
]);

/** The snapshots' key masks (LocalStack's snapshot transformers): values that differ per run. */
const MASKED_KEYS: Readonly<Record<string, string>> = {
  mapRunArn: 'map_run_arn',
  MessageId: '<uuid:1>',
  EventId: '<uuid:1>',
  MD5OfMessageBody: '<m-d5-of-message-body:1>',
  TaskToken: '<task_token:1>',
  ExecutionArn: 'execution-arn',
  StateMachineArn: 'state-machine-arn',
  StartDate: 'start-date',
  StopDate: 'stop-date',
};

/** A value without what a mock does not invent (see NOT_MOCKED), at any depth. */
export function withoutUnmocked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUnmocked);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !NOT_MOCKED.has(k))
      .map(([k, v]) => [k, withoutUnmocked(v)]),
  );
}

function masked(value: unknown): unknown {
  if (typeof value === 'string')
    return value.replaceAll('arn:aws:', 'arn:<partition>:').replaceAll('us-east-1', '<region>');
  if (Array.isArray(value)) return value.map(masked);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !NOT_MOCKED.has(k))
      .map(([k, v]) => [k, k in MASKED_KEYS ? MASKED_KEYS[k] : masked(v)]),
  );
}

/** A snapshot keeps an `input`/`output` holding a scalar as its JSON text ('"string-literal"'): read it back. */
function parsedScalars(details: Record<string, unknown>): Record<string, unknown> {
  const out = { ...details };
  for (const field of ['input', 'output'])
    if (typeof out[field] === 'string') out[field] = JSON.parse(out[field] as string);
  return out;
}

/**
 * An event as the recordings can be compared with: no timestamp, nor the role that started the run (each
 * recording masks it its own way), scalar JSON text read back, and the recording's masks applied.
 * @param recorded whether the event comes from a snapshot (its scalar `input`/`output` are JSON text)
 */
export function comparable(event: Record<string, unknown>, recorded = false): unknown {
  const { timestamp: _, ...rest } = event;
  for (const [key, details] of Object.entries(rest)) {
    if (!key.endsWith('EventDetails') || details === null || typeof details !== 'object') continue;
    const fields = recorded
      ? parsedScalars(details as Record<string, unknown>)
      : { ...(details as Record<string, unknown>) };
    if (key === 'executionStartedEventDetails') fields.roleArn = 'role';
    rest[key] = fields;
  }
  return masked(rest);
}
