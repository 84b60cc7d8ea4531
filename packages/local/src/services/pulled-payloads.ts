/**
 * The payloads a pulled run's data names by S3 reference (`{"$ref": "s3://bucket/key", ...}`, the runtime's
 * payload store): `autosave pull` reads each from the source's S3 with the user's credentials and sends it
 * in the import's stream, a `{"$payload": {bucket, key, base64}}` line after the event that first names it;
 * here each is written to the local S3 under the same bucket and key (the bucket made when missing), so a
 * step that reads the reference after the redrive finds it. The events go on to the engine.
 */
import { CreateBucketCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/** The member of an import line that carries a payload instead of an event. */
export const PAYLOAD_LINE_MEMBER = '$payload';

/** One payload line's content. */
export interface PulledPayload {
  readonly bucket: string;
  readonly key: string;
  readonly base64: string;
}

/** The import's lines with the payloads written to `s3` and left out: what remains are the events. */
export async function* withPayloadsStored(
  lines: AsyncIterable<Record<string, unknown>>,
  s3: () => Promise<S3Client>,
): AsyncGenerator<Record<string, unknown>> {
  const buckets = new Set<string>();
  for await (const line of lines) {
    const payload = line[PAYLOAD_LINE_MEMBER] as PulledPayload | undefined;
    if (payload === undefined) {
      yield line;
      continue;
    }
    const client = await s3();
    if (!buckets.has(payload.bucket)) {
      await client.send(new CreateBucketCommand({ Bucket: payload.bucket })).catch((err: { name?: string }) => {
        if (err?.name !== 'BucketAlreadyOwnedByYou' && err?.name !== 'BucketAlreadyExists') throw err;
      });
      buckets.add(payload.bucket);
    }
    await client.send(
      new PutObjectCommand({ Bucket: payload.bucket, Key: payload.key, Body: Buffer.from(payload.base64, 'base64') }),
    );
  }
}
