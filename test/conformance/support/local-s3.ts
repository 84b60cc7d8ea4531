/**
 * A real local S3 (s3rver via startLocalS3) for one conformance test file: started in a `beforeAll`
 * registered before the file's engine, so the engine gets its client through `engineOptions` (see
 * recordedEngine's `options.engine`). Buckets are created at start.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from 'vitest';
import type { EngineOptions } from '../../../packages/engine/src';
import { startLocalS3, type LocalS3 } from '../../../packages/local/src/services/s3';

/** Starts a local S3 with `buckets` for the test file; call before `recordedEngine`. */
export function localS3ForTests(buckets: readonly string[]) {
  let s3: LocalS3 | undefined;
  let dir: string | undefined;
  const engineOptions: { integrations?: EngineOptions['integrations'] } = {};
  const fixture = {
    client: undefined as unknown as S3Client,
    engineOptions,
    put: (Bucket: string, Key: string, Body: string) =>
      fixture.client.send(new PutObjectCommand({ Bucket, Key, Body })),
    head: (Bucket: string, Key: string) => fixture.client.send(new HeadObjectCommand({ Bucket, Key })),
    text: async (Bucket: string, Key: string) =>
      (await fixture.client.send(new GetObjectCommand({ Bucket, Key }))).Body!.transformToString(),
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'autosave-conformance-s3-'));
    s3 = await startLocalS3({ directory: dir, buckets });
    fixture.client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    engineOptions.integrations = { s3: fixture.client };
  });
  afterAll(async () => {
    fixture.client?.destroy();
    await s3?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return fixture;
}
