/**
 * The `aws-sdk:s3` Task integration (`arn:aws:states:::aws-sdk:s3:<action>`) on the local S3, with results
 * and errors as AWS records them (localstack's AWS-validated snapshots: services/test_aws_sdk_task_service
 * test_s3_get_object / test_s3_put_object, error_handling/test_aws_sdk test_no_such_bucket /
 * test_s3_no_such_key): an error is `S3.<Code>Exception` with S3's message and the Java SDK's details; a
 * getObject result has the object's text as `Body`; a putObject `Body` is stored as its JSON (a string's
 * too) with the type `text/plain; charset=UTF-8`; neither carries the `SdkHttpMetadata` of the optimized integrations.
 */
import { randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { S3Client } from '@aws-sdk/client-s3';
import { StatesError } from '@autosave/workflow/errors';
import { exceptionName, failure, type TaskOutcome } from './task-outcome';

/** The S3 actions the engine runs as `aws-sdk:s3` Tasks. */
export const AWS_SDK_S3_ACTIONS: readonly string[] = [
  'getObject',
  'putObject',
  'deleteObject',
  'headObject',
  'listObjects',
  'listObjectsV2',
  'copyObject',
  'deleteObjects',
  'getObjectAttributes',
  'createBucket',
  'deleteBucket',
  'headBucket',
  'listBuckets',
];

/** An S3 SDK error's cause as AWS writes it: `<message> (Service: S3, Status Code: 404, Request ID: …, Extended Request ID: …)`. */
export function s3ErrorCause(err: unknown): string {
  const e = err as {
    name?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number; requestId?: string; extendedRequestId?: string };
  };
  const meta = e.$metadata ?? {};
  return `${e.message || e.name || String(err)} (Service: S3, Status Code: ${meta.httpStatusCode ?? 500}, Request ID: ${meta.requestId ?? randomUUID()}, Extended Request ID: ${meta.extendedRequestId ?? randomUUID()})`;
}

/** The order of a getObject result's fields as AWS records them; `Body` comes last. */
const GET_OBJECT_FIELDS = [
  'AcceptRanges',
  'ContentLength',
  'ContentType',
  'ETag',
  'LastModified',
  'Metadata',
  'ServerSideEncryption',
];

/** An SDK output without its `$metadata` and unset fields, dates as ISO text. */
function plain(output: object): Record<string, unknown> {
  const { $metadata: _metadata, ...rest } = output as Record<string, unknown>;
  return JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
}

/** Runs one `aws-sdk:s3` Task attempt. */
export async function runAwsSdkS3(s3: S3Client | undefined, action: string, args: unknown): Promise<TaskOutcome> {
  if (!s3) return failure(StatesError.TaskFailed, 'No S3 client is configured on the local engine');
  const input = { ...((args ?? {}) as Record<string, unknown>) };
  const sdk = await import('@aws-sdk/client-s3');
  try {
    switch (action) {
      case 'getObject': {
        const { Body, ...rest } = await s3.send(new sdk.GetObjectCommand(input as never));
        const text = (await Body?.transformToString('utf-8')) ?? '';
        // S3 encrypts every object (SSE-S3) since 2023 and says so; the local S3 does not.
        const fields: Record<string, unknown> = { ServerSideEncryption: 'AES256', ...plain(rest) };
        const ordered = Object.fromEntries([
          ...GET_OBJECT_FIELDS.filter((k) => k in fields).map((k) => [k, fields[k]]),
          ...Object.entries(fields).filter(([k]) => !GET_OBJECT_FIELDS.includes(k) && !k.startsWith('Checksum')),
        ]);
        return { ok: true, value: { ...ordered, Body: text } };
      }
      case 'putObject': {
        // AWS stores the Body's JSON, a string's too (`text data` is stored as `"text data"`), as text/plain.
        const body = JSON.stringify(input.Body ?? null);
        const out = plain(
          await s3.send(
            new sdk.PutObjectCommand({ ContentType: 'text/plain; charset=UTF-8', ...input, Body: body } as never),
          ),
        );
        const checksum = Buffer.alloc(4);
        checksum.writeUInt32BE(crc32(body));
        const { ETag, ...rest } = out;
        return {
          ok: true,
          value: {
            ChecksumCRC32: checksum.toString('base64'),
            ChecksumType: 'FULL_OBJECT',
            ETag,
            ServerSideEncryption: 'AES256',
            ...Object.fromEntries(Object.entries(rest).filter(([k]) => !k.startsWith('Checksum'))),
          },
        };
      }
      case 'deleteObject':
        return { ok: true, value: plain(await s3.send(new sdk.DeleteObjectCommand(input as never))) };
      case 'headObject':
        return {
          ok: true,
          value: { ServerSideEncryption: 'AES256', ...plain(await s3.send(new sdk.HeadObjectCommand(input as never))) },
        };
      case 'listObjects':
        return { ok: true, value: plain(await s3.send(new sdk.ListObjectsCommand(input as never))) };
      case 'listObjectsV2':
        return { ok: true, value: plain(await s3.send(new sdk.ListObjectsV2Command(input as never))) };
      case 'copyObject':
        return {
          ok: true,
          value: { ...plain(await s3.send(new sdk.CopyObjectCommand(input as never))), ServerSideEncryption: 'AES256' },
        };
      case 'deleteObjects':
        return { ok: true, value: plain(await s3.send(new sdk.DeleteObjectsCommand(input as never))) };
      case 'getObjectAttributes': {
        // The local S3 has no GetObjectAttributes: the attributes asked for, from the object's HEAD, as S3 answers
        // them (ETag without its quotes, ObjectSize, StorageClass STANDARD).
        const { ObjectAttributes, ...head } = input;
        const wanted = new Set(Array.isArray(ObjectAttributes) ? ObjectAttributes.map(String) : []);
        const h = plain(await s3.send(new sdk.HeadObjectCommand(head as never)));
        return {
          ok: true,
          value: {
            LastModified: h.LastModified,
            ...(wanted.has('ETag') ? { ETag: String(h.ETag ?? '').replace(/"/g, '') } : {}),
            ...(wanted.has('StorageClass') ? { StorageClass: 'STANDARD' } : {}),
            ...(wanted.has('ObjectSize') ? { ObjectSize: h.ContentLength } : {}),
          },
        };
      }
      case 'createBucket':
        return { ok: true, value: plain(await s3.send(new sdk.CreateBucketCommand(input as never))) };
      case 'deleteBucket':
        return { ok: true, value: plain(await s3.send(new sdk.DeleteBucketCommand(input as never))) };
      case 'headBucket':
        return { ok: true, value: plain(await s3.send(new sdk.HeadBucketCommand(input as never))) };
      case 'listBuckets':
        return { ok: true, value: plain(await s3.send(new sdk.ListBucketsCommand(input as never))) };
      default:
        return failure(StatesError.Runtime, `The local engine does not run aws-sdk:s3:${action}`);
    }
  } catch (err) {
    return failure(`S3.${exceptionName((err as { name?: string }).name || 'S3')}`, s3ErrorCause(err));
  }
}
