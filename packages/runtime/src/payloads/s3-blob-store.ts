import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { BlobStore } from './blob-store';

/** {@link BlobStore} on S3 (or s3rver, or LocalStack). */
export class S3BlobStore implements BlobStore {
  constructor(
    private readonly client: S3Client,
    readonly bucket: string,
  ) {}

  async put(key: string, body: Uint8Array): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: 'application/json' }),
    );
  }

  async get(bucket: string, key: string): Promise<Uint8Array> {
    const out = await this.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    if (!out.Body) throw new Error(`s3://${bucket}/${key} has no body`);
    return out.Body.transformToByteArray();
  }
}
