/**
 * A client's next request on a keep-alive connection is answered, even when it arrived while the engine's
 * thread was busy past Node's default keep-alive deadline (5 s): Node runs the expired timer before it
 * reads the socket, and closed the connection under the waiting request ("socket hang up", ECONNRESET,
 * seen in the deploy rehearsal and once in the corpus run).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApiServer, type LocalApiServer } from '../../src/api/server';
import { IDLE_CONNECTION_MILLIS } from '../../src/api/idle-connections';

/** A client in its own process: one call, `first` printed, a second call a second later, its outcome printed. */
const CLIENT = `
import { ListStateMachinesCommand, SFNClient } from '@aws-sdk/client-sfn';
const client = new SFNClient({ endpoint: process.argv[1], region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, maxAttempts: 1 });
await client.send(new ListStateMachinesCommand({}));
console.log('first');
await new Promise((resolve) => setTimeout(resolve, 1_000));
try {
  await client.send(new ListStateMachinesCommand({}));
  console.log('second ok');
} catch (err) {
  console.log('second failed: ' + err.name + ' ' + err.message);
}
client.destroy();
`;

describe('keep-alive connections of the local API', () => {
  let api: LocalApiServer;
  beforeAll(async () => {
    api = await startLocalApiServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, ['content-type', 'application/x-amz-json-1.0']);
        res.end('{"stateMachines":[]}');
      });
    }, 0);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('answers a request that arrived while the thread was busy past 5 s of idleness', async () => {
    const child = spawn(process.execPath, ['--no-warnings', '--input-type=module', '-e', CLIENT, api.url], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: child.stdout! });
    const outcome = new Promise<string>((resolve) => {
      lines.on('line', (line) => {
        // Busy for 6 s right after the first answer: the second request arrives a second into it.
        if (line === 'first') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 6_000);
        else resolve(line);
      });
    });
    expect(await outcome).toBe('second ok');
    await new Promise((resolve) => child.once('exit', resolve));
  }, 30_000);

  it('announces its keep-alive deadline to clients (the SDK for JavaScript follows the hint)', async () => {
    const res = await fetch(api.url, { method: 'POST', body: '{}' });
    await res.text();
    expect(res.headers.get('keep-alive')).toBe(`timeout=${IDLE_CONNECTION_MILLIS / 1000}`);
    expect(IDLE_CONNECTION_MILLIS).toBeGreaterThan(60_000);
  });
});
