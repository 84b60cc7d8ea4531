import { createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepIdleConnections } from '../api/idle-connections';
import { isValidBucketName } from './s3-bucket-names';

/** A running local S3. */
export interface LocalS3 {
  /** `http://127.0.0.1:<port>`: any credentials work (clients need `forcePathStyle: true`). */
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

/** The one access key s3rver knows (its built-in account). */
const S3RVER_ACCESS_KEY = 'S3RVER';

/**
 * The request's access key replaced by s3rver's own, wherever a signature names it: the SigV4
 * `Authorization` header (`Credential=<key>/<scope>`), SigV2's `AWS <key>:<signature>`, and presigned
 * URLs (`X-Amz-Credential=<key>%2F...`, `AWSAccessKeyId=<key>`). Nothing else of the request changes.
 */
export function withLocalAccessKey(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  url: string,
): { headers: Record<string, string | string[] | undefined>; url: string } {
  const rewritten = { ...headers };
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    rewritten.authorization = auth
      .replace(/(Credential=)[^/,\s]+\//, `$1${S3RVER_ACCESS_KEY}/`)
      .replace(/^AWS [^:\s]+:/, `AWS ${S3RVER_ACCESS_KEY}:`);
  }
  return {
    headers: rewritten,
    url: url
      .replace(/([?&]X-Amz-Credential=)[^&/%]+(%2F|\/)/i, `$1${S3RVER_ACCESS_KEY}$2`)
      .replace(/([?&]AWSAccessKeyId=)[^&]*/, `$1${S3RVER_ACCESS_KEY}`),
  };
}

/**
 * The bucket a PUT on `/<bucket>` (CreateBucket and the bucket's sub-resources) names, when S3 would refuse
 * it, else `undefined`. Only this route reaches s3rver's backtracking name check. Trailing slashes are not
 * part of the name: the SDK sends a directory bucket's name (`<name>--x-s3`) as `PUT /<name>--x-s3//`.
 */
export function refusedBucketName(method: string | undefined, url: string): string | undefined {
  if (method !== 'PUT') return undefined;
  const path = url.split('?', 1)[0]!;
  let end = path.length;
  while (end > 1 && path[end - 1] === '/') end--;
  const segment = path.slice(1, end);
  if (segment === '' || segment.includes('/')) return undefined;
  let name: string;
  try {
    name = decodeURIComponent(segment);
  } catch {
    return segment;
  }
  return isValidBucketName(name) ? undefined : name;
}

/**
 * The directory bucket (`<name>--x-s3`, S3 Express One Zone) a request names, else `undefined`. S3 refuses
 * that suffix for a general purpose bucket, so the local S3 never holds one; the SDK addresses such a bucket
 * as `/<name>--x-s3//<key>` and asks for a session first (`GET /<name>--x-s3//?session`), which s3rver
 * answered 404 with no XML.
 */
export function directoryBucketName(url: string): string | undefined {
  const segment = url.split('?', 1)[0]!.slice(1).split('/', 1)[0]!;
  let name: string;
  try {
    name = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  return name.endsWith('--x-s3') ? name : undefined;
}

const xmlEscape = (text: string): string => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** S3's answer to a name it refuses (Amazon S3 API Reference, "Error responses": InvalidBucketName, 400). */
function answerInvalidBucketName(res: ServerResponse, bucket: string): void {
  res.writeHead(400, { 'content-type': 'application/xml' });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InvalidBucketName</Code><Message>The specified bucket is not valid.</Message><BucketName>${xmlEscape(bucket)}</BucketName><RequestId>local</RequestId></Error>`,
  );
}

/** S3's answer on a bucket that does not exist (NoSuchBucket, 404). */
function answerNoSuchBucket(res: ServerResponse, bucket: string): void {
  res.writeHead(404, { 'content-type': 'application/xml' });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><BucketName>${xmlEscape(bucket)}</BucketName><RequestId>local</RequestId></Error>`,
  );
}

/**
 * A pass-through in front of s3rver that lets any credentials in, as the engine's own APIs do. s3rver
 * accepts only the access key `S3RVER` (its account registry has no public way to add keys) and does not
 * check SigV4 signatures at all, so rewriting the key a request names is all it takes; SigV2 signatures,
 * which it does check, are let through by its own `allowMismatchedSignatures` option.
 */
function anyCredentialsProxy(upstreamPort: () => Promise<number>): Server {
  return createServer(async (req, res) => {
    const refused = refusedBucketName(req.method, req.url ?? '/');
    if (refused !== undefined) {
      req.resume();
      answerInvalidBucketName(res, refused);
      return;
    }
    const directory = directoryBucketName(req.url ?? '/');
    if (directory !== undefined) {
      req.resume();
      answerNoSuchBucket(res, directory);
      return;
    }
    const { headers, url } = withLocalAccessKey(req.headers, req.url ?? '/');
    let port: number;
    try {
      port = await upstreamPort();
    } catch (err) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`local S3 did not start: ${(err as Error).message}\n`);
      return;
    }
    // s3rver takes any Host that is not an IP or `localhost` for a bucket name (virtual-hosted style),
    // which would reach its name check unchecked; clients of the local S3 address buckets by path.
    headers.host = `127.0.0.1:${port}`;
    const upstream = httpRequest({ host: '127.0.0.1', port, method: req.method, path: url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`local S3 unreachable: ${err.message}\n`);
    });
    req.pipe(upstream);
  });
}

/**
 * Starts the local S3: a loopback port at once, behind which s3rver (persisted under `directory`, with the
 * buckets created) starts on the first request. Most runs never store a payload in S3, and s3rver with its
 * web framework is the heaviest thing the engine would load at start (about a third of its boot).
 */
export async function startLocalS3(options: LocalS3Options): Promise<LocalS3> {
  let upstream: Promise<{ port: number; close(): Promise<void> }> | undefined;
  const startUpstream = () =>
    (upstream ??= (async () => {
      const { default: S3rver } = await import('s3rver');
      const server = new S3rver({
        address: '127.0.0.1',
        port: 0,
        directory: options.directory,
        silent: true,
        allowMismatchedSignatures: true,
        configureBuckets: options.buckets.map((name) => ({ name })),
      });
      const address = await server.run();
      return { port: address.port, close: () => server.close() };
    })());
  const proxy = anyCredentialsProxy(async () => (await startUpstream()).port);
  keepIdleConnections(proxy);
  await new Promise<void>((resolve, reject) => {
    proxy.once('error', reject);
    proxy.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = proxy.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        proxy.closeAllConnections();
      });
      if (upstream) await (await upstream.catch(() => undefined))?.close();
    },
  };
}
