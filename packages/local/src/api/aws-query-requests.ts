/**
 * What the port needs to route a request of the AWS query protocol (aws-query-protocol.ts) to the service that
 * answers it: where such a request may be posted, the service's shape and its answer's content type.
 */

/** Content type of every query-protocol answer. */
export const AWS_QUERY_CONTENT_TYPE = 'text/xml';

/** A query-protocol answer. */
export interface AwsQueryAnswer {
  readonly statusCode: number;
  /** The XML document. */
  readonly body: string;
}

/** A service served over the query protocol on the shared port. */
export interface AwsQueryService {
  /** Runs the request `form` (its `Action` names the operation) that was posted to `path`. */
  handle(form: URLSearchParams, path: string): Promise<AwsQueryAnswer>;
}

/** Paths a query request may be posted to: `/` or a queue's own URL path (`/<account>/<queue>`). */
export function isQueryRequestPath(path: string): boolean {
  return path === '/' || /^\/\d{12}\/[^/]+\/?$/.test(path);
}
