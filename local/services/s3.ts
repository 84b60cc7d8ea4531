import S3rver from 's3rver';

/** A running local S3. */
export interface LocalS3 {
  /** `http://127.0.0.1:<port>` (clients need `forcePathStyle: true` and the S3RVER credentials). */
  readonly endpoint: string;
  close(): Promise<void>;
}

/** Options of {@link startLocalS3}. */
export interface LocalS3Options {
  /** Directory that keeps buckets and objects across restarts. */
  readonly directory: string;
  /** Buckets to create when missing. */
  readonly buckets: readonly string[];
  /** @default 0 (a free port) */
  readonly port?: number;
}

/** Starts s3rver on a loopback port, persisted under `directory`, with the buckets created. */
export async function startLocalS3(options: LocalS3Options): Promise<LocalS3> {
  const server = new S3rver({
    address: '127.0.0.1',
    port: options.port ?? 0,
    directory: options.directory,
    silent: true,
    configureBuckets: options.buckets.map((name) => ({ name })),
  });
  const address = await server.run();
  return { endpoint: `http://127.0.0.1:${address.port}`, close: () => server.close() };
}
