/**
 * The four bytes-level primitives the payload store needs from object storage. Adapters translate them
 * and nothing more; all logic (hashing, references, verification) lives in PayloadStore.
 */
export interface BlobStore {
  /** The bucket that `$ref` URLs name. */
  readonly bucket: string;
  put(key: string, body: Uint8Array): Promise<void>;
  get(bucket: string, key: string): Promise<Uint8Array>;
}
