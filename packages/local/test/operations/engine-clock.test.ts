import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { engineClock } from '../../src/operations';

describe('engineClock', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });
  const serve = async (status: number, body: unknown): Promise<string> => {
    const server = createServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  it("reads the virtual clock's now from GET /_autosave/clock", async () => {
    const epochMillis = Date.UTC(2026, 0, 1);
    expect(await engineClock(await serve(200, { now: new Date(epochMillis).toISOString(), epochMillis }))()).toBe(
      epochMillis,
    );
  });

  it('takes a 404 (no virtual clock) to mean the engine runs on the system clock', async () => {
    const now = await engineClock(await serve(404, { message: 'The virtual clock is off' }))();
    expect(Math.abs(now! - Date.now())).toBeLessThan(60_000);
  });

  it('does not know the time when the clock route fails or nothing answers', async () => {
    expect(await engineClock(await serve(500, {}))()).toBeUndefined();
    const closed = await serve(200, {});
    await new Promise((resolve) => servers.pop()!.close(resolve));
    expect(await engineClock(closed)()).toBeUndefined();
  });

  it('takes the time of AWS itself (no endpoint) from the wall clock, which its timestamps use', async () => {
    const now = await engineClock(undefined)();
    expect(Math.abs(now! - Date.now())).toBeLessThan(60_000);
  });
});
