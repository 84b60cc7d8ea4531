/**
 * What the optimized integrations' results and errors carry from the service's HTTP answer, shared by the
 * integrations (task-integrations.ts and the modules of the emulated services it calls).
 */
import { randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** Which service answered: each sends its own set of HTTP headers, which the service result carries. */
export type ResponderKind = 'lambda' | 'json-1.0' | 'dynamodb' | 'xml';

/** What a response's `SdkHttpMetadata` is made of. */
export interface ResponseFacts {
  readonly kind: ResponderKind;
  readonly requestId: string;
  /** The response body, for `Content-Length` (and DynamoDB's `x-amz-crc32`). */
  readonly body: string;
  readonly nowMs: number;
  /** Lambda's `X-Amz-Executed-Version`. */
  readonly executedVersion?: string;
  /** Lambda's `X-Amz-Log-Result` (the base64 log tail of an invocation asked for with `LogType: Tail`). */
  readonly logResult?: string;
}

/**
 * `SdkHttpMetadata` and `SdkResponseMetadata` as the service adds them to an AWS SDK integration's
 * result (the header names and their order are those of results recorded on AWS), so that
 * `$states.result` taken whole has the same keys locally and on AWS.
 */
export function responseMetadata(facts: ResponseFacts): Record<string, unknown> {
  const length = String(Buffer.byteLength(facts.body));
  const date = new Date(facts.nowMs).toUTCString();
  let headers: Record<string, string>;
  switch (facts.kind) {
    case 'lambda':
      headers = {
        // First when present (recorded: test_lambda_task_service test_invoke_unsupported_param, LogType Tail).
        ...(facts.logResult !== undefined ? { 'X-Amz-Log-Result': facts.logResult } : {}),
        'X-Amz-Executed-Version': facts.executedVersion ?? '$LATEST',
        'x-amzn-Remapped-Content-Length': '0',
        Connection: 'keep-alive',
        'x-amzn-RequestId': facts.requestId,
        'Content-Length': length,
        Date: date,
        'X-Amzn-Trace-Id': `Root=1-${Math.floor(facts.nowMs / 1000).toString(16)}-${facts.requestId.replace(/-/g, '').slice(0, 24)};Sampled=0`,
        'Content-Type': 'application/json',
      };
      break;
    case 'json-1.0':
      headers = {
        'x-amzn-RequestId': facts.requestId,
        connection: 'keep-alive',
        'Content-Length': length,
        Date: date,
        'Content-Type': 'application/x-amz-json-1.0',
      };
      break;
    case 'xml':
      // The query-protocol services (SNS): recorded as test_publish_base's TaskSucceeded headers.
      headers = {
        'x-amzn-RequestId': facts.requestId,
        connection: 'keep-alive',
        'Content-Length': length,
        Date: date,
        'Content-Type': 'text/xml',
      };
      break;
    case 'dynamodb':
      headers = {
        Server: 'Server',
        Connection: 'keep-alive',
        'x-amzn-RequestId': facts.requestId,
        'x-amz-crc32': String(crc32(facts.body)),
        'Content-Length': length,
        Date: date,
        'Content-Type': 'application/x-amz-json-1.0',
      };
      break;
  }
  const sorted = Object.fromEntries(
    Object.entries(headers).sort(([a], [b]) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)),
  );
  return {
    SdkHttpMetadata: {
      AllHttpHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
      HttpHeaders: sorted,
      HttpStatusCode: 200,
    },
    SdkResponseMetadata: { RequestId: facts.requestId },
  };
}

/** The cause the service writes for an AWS SDK error: the message, then the Java SDK's service details. */
export const sdkCause = (message: string, service: string, status: number, code: string): string =>
  `${message} (Service: ${service}; Status Code: ${status}; Error Code: ${code}; Request ID: ${randomUUID()}; Proxy: null)`;
