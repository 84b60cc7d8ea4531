/**
 * A value stored in S3 in place of the value itself (docs/architecture.md §2). `sha256` is the hex digest
 * of the stored bytes and `bytes` their length; both are checked when the reference is resolved.
 */
export interface PayloadRef {
  readonly $ref: string;
  readonly bytes: number;
  readonly sha256: string;
}

/** Whether a value is a {@link PayloadRef}. */
export function isPayloadRef(value: unknown): value is PayloadRef {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v.$ref === 'string' && typeof v.bytes === 'number' && typeof v.sha256 === 'string';
}

/** Splits `s3://bucket/key` into its parts. */
export function parseS3Url(url: string): { bucket: string; key: string } {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(url);
  if (!match) throw new TypeError(`Not an s3:// URL: ${url}`);
  return { bucket: match[1], key: match[2] };
}
