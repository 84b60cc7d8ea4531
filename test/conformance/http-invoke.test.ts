/**
 * `http:invoke`: a real HTTP call to a 127.0.0.1 server, as the HTTP Task makes it (AWS docs, "Call HTTPS
 * APIs in Step Functions workflows"): the connection's authorization (from the local connections file),
 * query parameters, a JSON or form-encoded body; the result `{Headers, ResponseBody, StatusCode, StatusText}`;
 * a non-2xx status fails with `States.Http.StatusCode.<code>`, no answer with `States.Http.Socket`.
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileConnections } from '../../packages/local/src/services/connections';
import { jsonata, jsonpath } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const CONNECTION = 'arn:aws:events:us-east-1:123456789012:connection/Shop/81210c42-8af1-456b-9c4a-6ff02fc664ac';
const file = join(mkdtempSync(join(tmpdir(), 'autosave-http-')), 'connections.json');
writeFileSync(
  file,
  JSON.stringify({
    connections: {
      [CONNECTION]: {
        AuthorizationType: 'API_KEY',
        AuthParameters: {
          ApiKeyAuthParameters: { ApiKeyName: 'x-api-key', ApiKeyValue: 'secret-1' },
          InvocationHttpParameters: { QueryStringParameters: [{ Key: 'tenant', Value: 't1' }] },
        },
      },
      Basic: {
        AuthorizationType: 'BASIC',
        AuthParameters: { BasicAuthParameters: { Username: 'ada', Password: 'pw' } },
      },
    },
  }),
);

const requests: { method: string; url: string; headers: Record<string, unknown>; body: string }[] = [];
let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      if (req.url?.startsWith('/missing')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ message: 'no such order' }));
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, id: 'o-1' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

// The test server is on loopback, which a definition may reach only when the target is allowed.
const engine = recordedEngine(
  {},
  { engine: { integrations: { httpConnections: new FileConnections(file), http: { allowedTargets: ['127.0.0.1'] } } } },
);

const call = (args: Record<string, unknown>) =>
  jsonata({ Call: { Type: 'Task', Resource: 'arn:aws:states:::http:invoke', Arguments: args, End: true } });

describe('http:invoke', () => {
  it("POSTs the JSON body with the connection's API key and query parameters, answering Headers, ResponseBody (parsed), StatusCode, StatusText", async () => {
    const run = await engine.run(
      call({
        ApiEndpoint: `${base}/orders`,
        Method: 'POST',
        Authentication: { ConnectionArn: CONNECTION },
        QueryParameters: { expand: 'items' },
        RequestBody: { sku: 'A1', qty: 2 },
      }),
    );
    expect(run.events[2].taskScheduledEventDetails).toMatchObject({ resourceType: 'http', resource: 'invoke' });
    const output = (run.outcome as { output: Record<string, any> }).output;
    expect(Object.keys(output)).toEqual(['Headers', 'ResponseBody', 'StatusCode', 'StatusText']);
    expect(output).toMatchObject({ ResponseBody: { ok: true, id: 'o-1' }, StatusCode: 200, StatusText: 'OK' });
    expect(output.Headers['content-type']).toEqual(['application/json']);
    const request = requests.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', body: '{"sku":"A1","qty":2}' });
    expect(new URL(request.url, base).searchParams.toString()).toBe('expand=items&tenant=t1');
    expect(request.headers['x-api-key']).toBe('secret-1');
  });

  it('takes the connection from InvocationConfig.ConnectionArn, the private-API form (AWS docs, "Call HTTPS APIs": HTTP Task fields; as the public sample stepfunctions-eventbridge-onpremise-tf deploys it)', async () => {
    const run = await engine.run(
      call({ ApiEndpoint: `${base}/hello`, Method: 'GET', InvocationConfig: { ConnectionArn: CONNECTION } }),
    );
    expect(run.outcome).toMatchObject({
      status: 'SUCCEEDED',
      output: { StatusCode: 200, ResponseBody: { ok: true, id: 'o-1' } },
    });
    const request = requests.at(-1)!;
    expect(request).toMatchObject({ method: 'GET' });
    expect(request.headers['x-api-key']).toBe('secret-1');
  });

  it('form-encodes the body with Transform URL_ENCODED and the BRACKETS array format; BASIC auth from a connection named by its name', async () => {
    await engine.run(
      call({
        ApiEndpoint: `${base}/forms`,
        Method: 'PUT',
        Authentication: { ConnectionArn: 'arn:aws:events:us-east-1:123456789012:connection/Basic/0000' },
        RequestBody: { tags: ['a', 'b'], name: 'x y' },
        Transform: { RequestBodyEncoding: 'URL_ENCODED', RequestEncodingOptions: { ArrayFormat: 'BRACKETS' } },
      }),
    );
    const request = requests.at(-1)!;
    expect(decodeURIComponent(request.body)).toBe('tags[]=a&tags[]=b&name=x+y');
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from('ada:pw').toString('base64')}`);
  });

  it('a 404 fails with States.Http.StatusCode.404, which Catch takes by that name', async () => {
    const def = jsonpath({
      Call: {
        Type: 'Task',
        Resource: 'arn:aws:states:::http:invoke',
        Parameters: { ApiEndpoint: `${base}/missing`, Method: 'GET', Authentication: { ConnectionArn: CONNECTION } },
        Catch: [{ ErrorEquals: ['States.Http.StatusCode.404'], Next: 'NotFound' }],
        End: true,
      },
      NotFound: { Type: 'Pass', End: true },
    });
    const run = await engine.run(def);
    expect(run.outcome).toMatchObject({ status: 'SUCCEEDED', output: { Error: 'States.Http.StatusCode.404' } });
    expect(JSON.parse((run.outcome as { output: { Cause: string } }).output.Cause)).toMatchObject({
      ResponseBody: { message: 'no such order' },
      StatusCode: 404,
    });
  });

  it('no answer (a closed port) is States.Http.Socket; a connection missing from the file names the file', async () => {
    const closed = await engine.run(
      call({ ApiEndpoint: 'http://127.0.0.1:1/x', Method: 'GET', Authentication: { ConnectionArn: CONNECTION } }),
    );
    expect(closed.outcome).toMatchObject({ status: 'FAILED', error: 'States.Http.Socket' });
    const unknown = await engine.run(
      call({
        ApiEndpoint: `${base}/x`,
        Method: 'GET',
        Authentication: { ConnectionArn: 'arn:aws:events:us-east-1:123456789012:connection/Nope/1' },
      }),
    );
    expect(unknown.outcome).toMatchObject({ status: 'FAILED', error: 'Events.ResourceNotFoundException' });
    expect((unknown.outcome as { cause: string }).cause).toContain(file);
  });
});
