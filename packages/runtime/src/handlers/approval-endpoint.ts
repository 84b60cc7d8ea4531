import { handleApprovalHttp, type ApprovalHttpResponse } from '../approvals';
import { approvalService, lambdaHandler } from '../lambda';

/** The fields of a Lambda Function URL (payload format 2.0) event that the endpoint reads. */
export interface FunctionUrlEvent {
  readonly rawPath: string;
  readonly queryStringParameters?: Record<string, string | undefined>;
  readonly headers?: Record<string, string | undefined>;
  readonly body?: string;
  readonly isBase64Encoded?: boolean;
  readonly requestContext: { readonly http: { readonly method: string }; readonly timeEpoch?: number };
}

/** approval-endpoint: GET shows the approval page, POST decides (Function URL event in, HTTP response out). */
export const handler = lambdaHandler(async (event: FunctionUrlEvent, rt): Promise<ApprovalHttpResponse> =>
  handleApprovalHttp(await approvalService(rt), {
    method: event.requestContext.http.method,
    path: event.rawPath,
    query: event.queryStringParameters ?? {},
    contentType: event.headers?.['content-type'],
    headers: event.headers ?? {},
    receivedAtMillis: event.requestContext.timeEpoch,
    body: event.body && event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body,
  }),
);
