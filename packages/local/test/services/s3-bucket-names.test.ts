/**
 * The local S3 answers a bucket name S3 refuses with `InvalidBucketName` at once, as AWS does (Amazon S3 API
 * Reference, "Error responses"; the naming rules of the S3 User Guide). s3rver's own check is a regex that
 * backtracks exponentially on a name that almost matches: a 25-character one blocked the engine's thread
 * for seconds, a 63-character one for hours.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalS3, type LocalS3 } from '../../src/services/s3';
import { isValidBucketName } from '../../src/services/s3-bucket-names';

describe('S3 bucket names', () => {
  it.each([
    ['my-bucket', true],
    ['a.b.c', true],
    ['abc', true],
    ['a'.repeat(63), true],
    ['ab', false],
    ['a'.repeat(64), false],
    ['My-Bucket', false],
    ['my_bucket', false],
    ['-bucket', false],
    ['bucket-', false],
    ['bucket.', false],
    ['my..bucket', false],
    ['192.168.5.4', false],
    ['xn--bucket', false],
    ['sthree-bucket', false],
    ['bucket-s3alias', false],
    ['bucket--ol-s3', false],
    ['a'.repeat(24) + '!', false],
  ])('%s is valid: %s', (name, valid) => {
    expect(isValidBucketName(name)).toBe(valid);
  });
});

describe('local S3 refusing a bucket name', () => {
  let dir: string;
  let s3: LocalS3;
  let client: S3Client;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-s3-names-'));
    s3 = await startLocalS3({ directory: dir, buckets: [] });
    client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    client?.destroy();
    await s3?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const refusal = async (Bucket: string) => {
    const started = performance.now();
    const err = await client.send(new CreateBucketCommand({ Bucket })).then(
      () => undefined,
      (e: unknown) => e,
    );
    return { err, millis: performance.now() - started };
  };
  const timeToCreate = async (Bucket: string) => {
    const started = performance.now();
    await client.send(new CreateBucketCommand({ Bucket }));
    return performance.now() - started;
  };

  it.each([
    ['25 characters', 'a'.repeat(24) + '!'],
    ['63 characters', 'a'.repeat(62) + '!'],
  ])('answers InvalidBucketName at once for a hostile name of %s', async (_what, name) => {
    await timeToCreate(`warm-${name.length}`);
    const creates: number[] = [];
    for (let i = 0; i < 5; i++) creates.push(await timeToCreate(`ok-${name.length}-${i}`));
    const typical = creates.sort((a, b) => a - b)[2]!;
    const { err, millis } = await refusal(name);
    expect(err).toBeInstanceOf(S3ServiceException);
    expect((err as S3ServiceException).name).toBe('InvalidBucketName');
    expect((err as S3ServiceException).message).toBe('The specified bucket is not valid.');
    expect((err as S3ServiceException).$metadata.httpStatusCode).toBe(400);
    // The refusal costs no more than a creation; s3rver's regex took ~7 s for the 25-character name.
    expect(millis).toBeLessThan(Math.max(typical, 1) * 50);
  });

  it('refuses a name that s3rver itself let through (an underscore), and still creates valid ones', async () => {
    const { err } = await refusal('my_bucket');
    expect((err as S3ServiceException).name).toBe('InvalidBucketName');
    await timeToCreate('my-bucket.with.dots');
    await client.send(new HeadBucketCommand({ Bucket: 'my-bucket.with.dots' }));
  });

  it.each(['abc--x-s3', 'B-a--x-s3'])(
    'refuses %s, a directory bucket name the SDK sends as PUT /<name>// (s3rver answered 404 with no XML)',
    async (name) => {
      // Without a CreateSession first (an S3 Express bucket's), which the local S3 does not have.
      const direct = new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
        maxAttempts: 1,
        disableS3ExpressSessionAuth: true,
      });
      try {
        const err = await direct.send(new CreateBucketCommand({ Bucket: name })).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect((err as S3ServiceException).name).toBe('InvalidBucketName');
        expect((err as S3ServiceException).$metadata.httpStatusCode).toBe(400);
      } finally {
        direct.destroy();
      }
    },
  );

  it('answers NoSuchBucket on a directory bucket (<name>--x-s3), which S3 never lets the local S3 create (s3rver answered 404 with no XML)', async () => {
    for (const send of [
      () => client.send(new PutObjectCommand({ Bucket: 'abc--x-s3', Key: 'k', Body: 'x' })),
      () => client.send(new GetObjectCommand({ Bucket: 'abc--x-s3', Key: 'k' })),
      () => client.send(new ListObjectsV2Command({ Bucket: 'B-a--x-s3' })),
    ]) {
      const err = await send().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((err as S3ServiceException).name).toBe('NoSuchBucket');
      expect((err as S3ServiceException).$metadata.httpStatusCode).toBe(404);
    }
  });

  it('does not take a Host header for a bucket name (virtual-hosted style reaches s3rver unchecked)', async () => {
    const hostile = 'a'.repeat(62) + '!';
    const res = await fetch(`${s3.endpoint}/`, {
      method: 'PUT',
      headers: { host: hostile, authorization: 'AWS test:c2ln', date: new Date().toUTCString() },
    });
    // Without a bucket in the path this is not a CreateBucket: s3rver answers it as a request on the service.
    expect(res.status).not.toBe(200);
    await res.arrayBuffer();
  });
});
