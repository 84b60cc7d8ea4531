/**
 * The local S3 takes any credentials, as the README promises and the engine's own APIs do: a client
 * signing with keys that are not s3rver's `S3RVER` reads and writes, and presigned and SigV2 requests
 * name the key s3rver knows by the time they reach it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalS3, withLocalAccessKey, type LocalS3 } from '../../src/services/s3';

describe('local S3 with any credentials', () => {
  let dir: string;
  let s3: LocalS3;
  const clients: S3Client[] = [];
  const client = (accessKeyId: string, secretAccessKey: string) => {
    const c = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId, secretAccessKey },
    });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-s3-'));
    s3 = await startLocalS3({ directory: dir, buckets: ['bucket'] });
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await s3?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['the README example keys', 'AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
    ['test/test', 'test', 'test'],
    ["s3rver's own", 'S3RVER', 'S3RVER'],
  ])('puts, lists, gets and deletes with %s', async (_what, key, secret) => {
    const c = client(key, secret);
    const Key = `k-${key}.txt`;
    await c.send(new PutObjectCommand({ Bucket: 'bucket', Key, Body: 'hello' }));
    const listed = await c.send(new ListObjectsV2Command({ Bucket: 'bucket' }));
    expect(listed.Contents?.map((o) => o.Key)).toContain(Key);
    const got = await c.send(new GetObjectCommand({ Bucket: 'bucket', Key }));
    expect(await got.Body?.transformToString()).toBe('hello');
    await c.send(new DeleteObjectCommand({ Bucket: 'bucket', Key }));
  });

  it('gives an object put without a Content-Type the type S3 gives it, binary/octet-stream (s3rver does), and keeps a given one', async () => {
    const c = client('test', 'test');
    // As boto3 puts a body it is given no type for (the JavaScript SDK sends application/octet-stream itself).
    const put = await fetch(`${s3.endpoint}/bucket/untyped`, {
      method: 'PUT',
      body: Buffer.from('text data'),
      headers: { authorization: 'AWS SOMEKEY:bm90LWEtc2lnbmF0dXJl', date: new Date().toUTCString() },
    });
    expect(put.status).toBe(200);
    expect((await c.send(new GetObjectCommand({ Bucket: 'bucket', Key: 'untyped' }))).ContentType).toBe(
      'binary/octet-stream',
    );
    await c.send(new PutObjectCommand({ Bucket: 'bucket', Key: 'typed', Body: '{}', ContentType: 'application/json' }));
    expect((await c.send(new GetObjectCommand({ Bucket: 'bucket', Key: 'typed' }))).ContentType).toBe(
      'application/json',
    );
  });

  it('answers a SigV2 request signed with another secret', async () => {
    await client('x', 'y').send(new PutObjectCommand({ Bucket: 'bucket', Key: 'v2.txt', Body: 'two' }));
    const res = await fetch(`${s3.endpoint}/bucket/v2.txt`, {
      headers: { authorization: 'AWS SOMEKEY:bm90LWEtc2lnbmF0dXJl', date: new Date().toUTCString() },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('two');
  });

  it('rewrites the access key in SigV4 and SigV2 headers and in presigned URLs, and nothing else', () => {
    const v4 =
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261201/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc';
    expect(withLocalAccessKey({ authorization: v4, host: 'h' }, '/b/k').headers).toEqual({
      authorization:
        'AWS4-HMAC-SHA256 Credential=S3RVER/20261201/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc',
      host: 'h',
    });
    expect(withLocalAccessKey({ authorization: 'AWS KEY:sig=' }, '/').headers.authorization).toBe('AWS S3RVER:sig=');
    expect(
      withLocalAccessKey(
        {},
        '/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20261201%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=s',
      ).url,
    ).toBe(
      '/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=S3RVER%2F20261201%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=s',
    );
    expect(withLocalAccessKey({}, '/b/k?AWSAccessKeyId=AKID&Expires=1&Signature=s').url).toBe(
      '/b/k?AWSAccessKeyId=S3RVER&Expires=1&Signature=s',
    );
    expect(withLocalAccessKey({}, '/b/Credential=x/y?uploads').url).toBe('/b/Credential=x/y?uploads');
  });
});
