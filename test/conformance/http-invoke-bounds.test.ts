/**
 * What an `http:invoke` Task may not do, whatever its definition says: reach loopback, link-local or
 * private addresses (checked on what a name resolves to), or the engine's own ports, unless the target is
 * allowed; call a scheme other than http and https; wait longer than the HTTP Task's 60 seconds (Step
 * Functions service quotas); read a response past the 256 KB a result may hold.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLocalAddress, outboundHttp, OutboundRequestError } from '../../packages/engine/src/executor/outbound-http';
import { FileConnections } from '../../packages/local/src/services/connections';
import { jsonata } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const file = join(mkdtempSync(join(tmpdir(), 'autosave-http-bounds-')), 'connections.json');
writeFileSync(
  file,
  JSON.stringify({
    connections: {
      Open: {
        AuthorizationType: 'API_KEY',
        AuthParameters: { ApiKeyAuthParameters: { ApiKeyName: 'x-api-key', ApiKeyValue: 'k' } },
      },
    },
  }),
);
const CONNECTION = 'arn:aws:events:us-east-1:123456789012:connection/Open/1';

let server: Server;
let port = 0;
let hits = 0;
const BIG = 20 * 1024 * 1024;
let bigWritten = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    if (req.url === '/silent') return; // never answers
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const write = (): void => {
        while (bigWritten < BIG) {
          bigWritten += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', write);
        }
        res.end();
      };
      res.on('close', () => undefined);
      return write();
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const call = (endpoint: string) =>
  jsonata({
    Call: {
      Type: 'Task',
      Resource: 'arn:aws:states:::http:invoke',
      Arguments: { ApiEndpoint: endpoint, Method: 'GET', Authentication: { ConnectionArn: CONNECTION } },
      End: true,
    },
  });
const byDefault = recordedEngine({}, { engine: { integrations: { httpConnections: new FileConnections(file) } } });
const allowing = (http: object) =>
  recordedEngine({}, { engine: { integrations: { httpConnections: new FileConnections(file), http } } });
const allowed = allowing({ allowedTargets: ['127.0.0.1'], timeoutMillis: 500 });
const ownPortByHost = allowing({ allowedTargets: ['127.0.0.1'], ownPorts: () => [port] });
// The options are read at each call: the port is known once the server listens.
const ownPortNamed = allowing({
  get allowedTargets() {
    return [`127.0.0.1:${port}`];
  },
  ownPorts: () => [port],
});

describe('http:invoke by default', () => {
  it.each([
    ['loopback by address', () => `http://127.0.0.1:${port}/x`],
    ['loopback by name (checked on what it resolves to)', () => `http://localhost:${port}/x`],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/iam/security-credentials/'],
    ['a private address', () => 'http://10.0.0.1/x'],
    ['IPv6 loopback', () => `http://[::1]:${port}/x`],
    ['IPv4-mapped IPv6 loopback', () => `http://[::ffff:127.0.0.1]:${port}/x`],
  ])('refuses %s, failing the Task with States.Http.Socket that says how to allow it', async (_what, endpoint) => {
    const before = hits;
    const run = await byDefault.run(call(endpoint()));
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'States.Http.Socket' });
    expect((run.outcome as { cause: string }).cause).toMatch(
      /is refused: a definition may not reach loopback, link-local or private addresses.*--allow-outbound/,
    );
    expect(hits).toBe(before);
  });

  it.each(['file:///etc/passwd', 'ftp://example.com/x', 'data:text/plain,hello'])(
    'refuses the scheme of %s with States.Runtime, naming the schemes it takes',
    async (endpoint) => {
      const run = await byDefault.run(call(endpoint));
      expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
      expect((run.outcome as { cause: string }).cause).toContain('an HTTP Task calls only http and https endpoints');
    },
  );
});

describe('http:invoke with a local target allowed', () => {
  it('calls an allowed target', async () => {
    const run = await allowed.run(call(`http://127.0.0.1:${port}/x`));
    expect(run.outcome).toMatchObject({ status: 'SUCCEEDED', output: { ResponseBody: { ok: true }, StatusCode: 200 } });
  });

  it("still refuses the engine's own ports unless they are named with their port", async () => {
    expect((await ownPortByHost.run(call(`http://127.0.0.1:${port}/x`))).outcome).toMatchObject({
      status: 'FAILED',
      error: 'States.Http.Socket',
    });
    expect((await ownPortNamed.run(call(`http://127.0.0.1:${port}/x`))).outcome).toMatchObject({ status: 'SUCCEEDED' });
  });

  it('ends a call that gets no answer at the timeout with States.Http.Socket', async () => {
    const run = await allowed.run(call(`http://127.0.0.1:${port}/silent`));
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'States.Http.Socket' });
    expect((run.outcome as { cause: string }).cause).toContain(
      "got no answer within 0.5 seconds, the HTTP Task's limit",
    );
  });

  it('stops reading a response past 256 KB and fails the Task with States.DataLimitExceeded', async () => {
    bigWritten = 0;
    const run = await allowed.run(call(`http://127.0.0.1:${port}/big`));
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'States.DataLimitExceeded' });
    // The server could write no more than the socket buffers once the engine stopped reading.
    expect(bigWritten).toBeLessThan(BIG / 4);
  });
});

describe('outboundHttp', () => {
  it('is bounded at 60 seconds by default, as the HTTP Task', async () => {
    const { HTTP_TASK_TIMEOUT_MILLIS } = await import('../../packages/engine/src/executor/outbound-http');
    expect(HTTP_TASK_TIMEOUT_MILLIS).toBe(60_000);
    await expect(outboundHttp()({ url: new URL('gopher://x'), method: 'GET', headers: {} })).rejects.toBeInstanceOf(
      OutboundRequestError,
    );
  });

  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['::ffff:127.0.0.1', true],
    ['8.8.8.8', false],
    ['2001:4860:4860::8888', false],
    ['not-an-ip', false],
  ])('%s is local: %s', (address, local) => {
    expect(isLocalAddress(address)).toBe(local);
  });
});
