/**
 * `arn:aws:states:::http:invoke`: a real HTTP call, as the HTTP Task makes it (AWS docs, "Call HTTPS APIs in
 * Step Functions workflows"): `ApiEndpoint` with `QueryParameters`, `Method`, `Headers`, `RequestBody`
 * (JSON, or form-encoded with `Transform.RequestBodyEncoding: URL_ENCODED`), authorized by the EventBridge
 * connection `Authentication.ConnectionArn` (or, for a private API, `InvocationConfig.ConnectionArn`) names — resolved from a local file, as the engine has no
 * EventBridge connections of its own. The result is `{Headers, ResponseBody, StatusCode, StatusText}`
 * (headers as lists of values, a JSON body parsed); a status outside 2xx fails with
 * `States.Http.StatusCode.<code>`, a call that gets no answer with `States.Http.Socket`. Where a call may go,
 * how long it may take and how much of its answer is read: outbound-http.ts.
 */
import { argsObject, notServed, optimizedFault, type ServedIntegration } from './served-integration';
import { OutboundRequestError, outboundHttp, type OutboundResponse } from './outbound-http';
import { failure } from './task-outcome';

const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']);

type Scalar = string | number | boolean;

/** A form-encoded body as the `ArrayFormat` option spells arrays (`INDICES` a[0]=x, `REPEAT` a=x&a=y, `COMMAS` a=x,y, `BRACKETS` a[]=x). */
function urlEncoded(body: unknown, arrayFormat: string): string {
  const params = new URLSearchParams();
  const add = (key: string, value: unknown): void => {
    if (Array.isArray(value)) {
      if (arrayFormat === 'COMMAS') return params.append(key, value.map(String).join(','));
      value.forEach((v, i) =>
        add(arrayFormat === 'REPEAT' ? key : arrayFormat === 'BRACKETS' ? `${key}[]` : `${key}[${i}]`, v),
      );
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v);
    } else params.append(key, String(value as Scalar));
  };
  for (const [k, v] of Object.entries(argsObject(body))) add(k, v);
  return params.toString();
}

export const httpIntegration: ServedIntegration = {
  service: 'http',
  actions: { invoke: ['request'] },
  async run({ ports }, _action, args) {
    const input = argsObject(args);
    const method = typeof input.Method === 'string' ? input.Method.toUpperCase() : '';
    if (typeof input.ApiEndpoint !== 'string' || !METHODS.has(method)) {
      return failure(
        'States.Runtime',
        'An http:invoke Task needs an ApiEndpoint string and a Method (GET, POST, PUT, DELETE, PATCH, OPTIONS or HEAD)',
      );
    }
    // A public API's connection is named in Authentication, a private API's (through the connection's VPC
    // resource configuration) in InvocationConfig (AWS docs, "Call HTTPS APIs": HTTP Task fields).
    const connectionArn =
      argsObject(input.Authentication).ConnectionArn ?? argsObject(input.InvocationConfig).ConnectionArn;
    if (typeof connectionArn !== 'string')
      return failure(
        'States.Runtime',
        'An http:invoke Task needs Authentication.ConnectionArn (or InvocationConfig.ConnectionArn for a private API)',
      );
    if (!ports.httpConnections)
      return notServed(
        'EventBridge connections',
        'describe them in the connections file of autosave local (docs/integrations.md), or pass integrations.httpConnections to the Engine',
      );
    let auth;
    try {
      auth = await ports.httpConnections.resolve(connectionArn);
    } catch (err) {
      return optimizedFault('Events', 'AmazonEventBridge', err);
    }
    let url: URL;
    try {
      url = new URL(input.ApiEndpoint);
    } catch {
      return failure('States.Runtime', `The ApiEndpoint '${input.ApiEndpoint}' is not a URL`);
    }
    for (const [k, v] of Object.entries(argsObject(input.QueryParameters))) url.searchParams.append(k, String(v));
    for (const [k, v] of Object.entries(auth.query ?? {})) url.searchParams.append(k, v);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(argsObject(input.Headers))) headers[k.toLowerCase()] = String(v);
    for (const [k, v] of Object.entries(auth.headers ?? {})) headers[k.toLowerCase()] = v;
    let body: string | undefined;
    if (input.RequestBody !== undefined && method !== 'GET' && method !== 'HEAD') {
      const transform = argsObject(input.Transform);
      if (transform.RequestBodyEncoding === 'URL_ENCODED') {
        body = urlEncoded(
          input.RequestBody,
          String(argsObject(transform.RequestEncodingOptions).ArrayFormat ?? 'INDICES'),
        );
        headers['content-type'] = 'application/x-www-form-urlencoded';
      } else {
        body = typeof input.RequestBody === 'string' ? input.RequestBody : JSON.stringify(input.RequestBody);
        headers['content-type'] ??= 'application/json; charset=UTF-8';
      }
    }
    let response: OutboundResponse;
    try {
      response = await outboundHttp(ports.http)({ url, method, headers, ...(body !== undefined ? { body } : {}) });
    } catch (err) {
      if (err instanceof OutboundRequestError) return failure(err.error, err.message);
      throw err;
    }
    let responseBody: unknown = response.body;
    if (/json/i.test(response.headers['content-type']?.[0] ?? '')) {
      try {
        responseBody = JSON.parse(response.body);
      } catch {
        responseBody = response.body;
      }
    }
    const result = {
      Headers: response.headers,
      ResponseBody: responseBody,
      StatusCode: response.status,
      StatusText: response.statusText,
    };
    if (response.status < 200 || response.status > 299)
      return failure(`States.Http.StatusCode.${response.status}`, JSON.stringify(result));
    return { ok: true, value: result };
  },
};
