/**
 * A Distributed Map's `ResultWriter`: the Map Run's child executions written to S3 as AWS exports them,
 * `<Prefix>/<map run id>/SUCCEEDED_0.json` and `FAILED_0.json` (the executions of that status) and
 * `manifest.json` (`DestinationBucket`, `MapRunArn`, `ResultFiles` by status with each file's `Key` and
 * `Size`), and the Map's result becomes `{ MapRunArn, ResultWriterDetails: { Bucket, Key } }` naming the
 * manifest. A write that fails fails the Map Run with `States.ResultWriterFailed`.
 *
 * The keys depend only on the Map Run's id, so a write repeated after a crash replaces the same objects.
 */
import { randomUUID } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { StatesError } from '@autosave/workflow/errors';
import type { MapResultWriterSpec } from '../dataflow';

/** Writing the results failed: the Map Run fails with `States.ResultWriterFailed` and this cause. */
export class ResultWriterFailedError extends Error {
  override readonly name = StatesError.ResultWriterFailed;
}

/** One child execution of the Map Run, as it ended. */
export interface MapRunChild {
  readonly status: 'SUCCEEDED' | 'FAILED';
  /** The iteration's input. */
  readonly input: unknown;
  readonly output?: unknown;
  readonly error?: string;
  readonly cause?: string;
}

/** What is known of the Map Run whose results are written. */
export interface MapRunResults {
  readonly mapRunArn: string;
  readonly startMs: number;
  readonly stopMs: number;
  /** In item order. */
  readonly children: readonly MapRunChild[];
}

/** The Map's result once its results are in S3. */
export interface ResultWriterOutput {
  readonly MapRunArn: string;
  readonly ResultWriterDetails: { readonly Bucket: string; readonly Key: string };
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** A child execution's record in a result file (Transformation NONE, the default when exporting to S3). */
function childRecord(child: MapRunChild, run: MapRunResults): Record<string, unknown> {
  // A child execution is named by an id under the Map Run's state machine `<machine>/<label>`.
  const [arn, partition, service, region, account, , runName] = run.mapRunArn.split(':');
  const name = randomUUID();
  const base = [arn, partition, service, region, account];
  return {
    ExecutionArn: [...base, 'execution', runName, name].join(':'),
    Input: JSON.stringify(child.input ?? null),
    InputDetails: { Included: true },
    Name: name,
    ...(child.status === 'SUCCEEDED'
      ? { Output: JSON.stringify(child.output ?? null), OutputDetails: { Included: true } }
      : {
          ...(child.error !== undefined ? { Error: child.error } : {}),
          ...(child.cause !== undefined ? { Cause: child.cause } : {}),
        }),
    RedriveCount: 0,
    StartDate: iso(run.startMs),
    StateMachineArn: [...base, 'stateMachine', runName].join(':'),
    Status: child.status,
    StopDate: iso(run.stopMs),
  };
}

/** The results' content in a file of `status`: records (NONE), or the outputs alone (COMPACT, FLATTEN). */
function fileBody(children: readonly MapRunChild[], run: MapRunResults, spec: MapResultWriterSpec): string {
  const transformation = spec.transformation ?? 'NONE';
  // A failed child is written unchanged whatever the transformation (AWS documents it so).
  let values: unknown[] = children.map((c) =>
    transformation === 'NONE' || c.status === 'FAILED' ? childRecord(c, run) : c.output,
  );
  if (transformation === 'FLATTEN') values = values.flatMap((v) => (Array.isArray(v) ? v : [v]));
  return spec.outputType === 'JSONL' ? values.map((v) => JSON.stringify(v)).join('\n') : JSON.stringify(values);
}

/** Writes the Map Run's results and manifest; throws {@link ResultWriterFailedError}. */
export async function writeMapRunResults(
  s3: S3Client | undefined,
  spec: MapResultWriterSpec,
  run: MapRunResults,
): Promise<ResultWriterOutput> {
  const bucket = spec.args.Bucket;
  if (typeof bucket !== 'string') throw new ResultWriterFailedError('The ResultWriter needs a Bucket');
  if (!s3) throw new ResultWriterFailedError('No S3 client is configured on the local engine');
  const { PutObjectCommand } = await import('@aws-sdk/client-s3');
  const prefix =
    typeof spec.args.Prefix === 'string' && spec.args.Prefix !== ''
      ? `${spec.args.Prefix.replace(/(?<!\/)\/+$/, '')}/`
      : '';
  const folder = `${prefix}${run.mapRunArn.split(':').pop()}/`;
  const put = async (Key: string, Body: string) => {
    try {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body, ContentType: 'application/json' }));
    } catch (err) {
      const e = err as { message?: string; name?: string; $metadata?: { httpStatusCode?: number } };
      throw new ResultWriterFailedError(
        `${e.message ?? e.name ?? String(err)} (Service: S3, Status Code: ${e.$metadata?.httpStatusCode ?? 500})`,
        { cause: err },
      );
    }
  };
  const files: Record<'FAILED' | 'PENDING' | 'SUCCEEDED', { Key: string; Size: number }[]> = {
    FAILED: [],
    PENDING: [],
    SUCCEEDED: [],
  };
  for (const status of ['SUCCEEDED', 'FAILED'] as const) {
    const children = run.children.filter((c) => c.status === status);
    if (children.length === 0) continue;
    const Key = `${folder}${status}_0.json`;
    const body = fileBody(children, run, spec);
    await put(Key, body);
    files[status].push({ Key, Size: Buffer.byteLength(body) });
  }
  const manifestKey = `${folder}manifest.json`;
  await put(manifestKey, JSON.stringify({ DestinationBucket: bucket, MapRunArn: run.mapRunArn, ResultFiles: files }));
  return { MapRunArn: run.mapRunArn, ResultWriterDetails: { Bucket: bucket, Key: manifestKey } };
}
