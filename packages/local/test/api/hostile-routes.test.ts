/**
 * The port's non-API routes under hostile requests: a `POST /` that names no operation gets a JSON error
 * (not the console's HTML), bad console paths and forms get 4xx (413 when too large), absurd clock moves 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLocalApiHandler,
  MAX_CLOCK_ADVANCE_SECONDS,
  startLocalApiServer,
  type LocalApiServer,
} from '../../src/api/server';
import { stepFunctionsService } from '../../src/api/step-functions-service';
import { createConsoleHandler } from '../../src/console';

describe('hostile requests to the routes beside the APIs', () => {
  let api: LocalApiServer;
  let engineCalls = 0;
  const clock = {
    t: 0,
    now() {
      return this.t;
    },
    async advance(by: { seconds: number }) {
      this.t += by.seconds * 1000;
    },
  };

  beforeAll(async () => {
    // Every case below must be answered before the console reads anything: its endpoint is never called.
    const console = createConsoleHandler({
      sfnEndpoint: 'http://127.0.0.1:9',
      dlqUrl: 'http://127.0.0.1:9/123456789012/dlq',
      outboxDir: '/nonexistent',
    });
    api = await startLocalApiServer(
      createLocalApiHandler({
        services: [
          stepFunctionsService({
            handle: async () => {
              engineCalls++;
              return {};
            },
          }),
        ],
        console,
        virtualClock: clock,
      }),
      0,
    );
  });
  afterAll(() => api?.close());

  it.each([
    ['an empty body', ''],
    ['a JSON body', '{"stateMachineArn":"x"}'],
    ['a form body', 'Action=ListQueues'],
  ])('POST / without X-Amz-Target and with %s is a JSON UnknownOperationException', async (_what, body) => {
    const res = await fetch(api.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0' },
      body,
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/x-amz-json-1.0');
    expect(await res.json()).toEqual({
      __type: 'UnknownOperationException',
      message: expect.stringContaining('X-Amz-Target'),
    });
    expect(engineCalls).toBe(0);
  });

  it.each([
    '/runs/%',
    '/runs/%E0%A4%A',
    '/runs/%ED%A0%80',
    '/runs/%ZZ',
    '/state-machines/%',
    '/state-machines/%ED%A0%80',
  ])('GET %s is a 400 page', async (path) => {
    const res = await fetch(`${api.url}${path}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Bad request');
  });

  it.each(['garbage', 'http://', '%', 'http://[::1'])(
    'POST /dlq/redrive with Origin %j is refused with 403',
    async (origin) => {
      const res = await fetch(`${api.url}/dlq/redrive`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'all=1',
        redirect: 'manual',
      });
      expect(res.status).toBe(403);
    },
  );

  it('a 100 KB redrive form is 413', async () => {
    const res = await fetch(`${api.url}/dlq/redrive`, {
      method: 'POST',
      headers: { origin: api.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: `messageId=${'x'.repeat(100 * 1024)}`,
      redirect: 'manual',
    });
    expect(res.status).toBe(413);
  });

  it.each([1e300, MAX_CLOCK_ADVANCE_SECONDS + 1, -1])(
    'a clock advance of %d seconds is 400 and leaves the clock alone',
    async (seconds) => {
      const res = await fetch(`${api.url}/_autosave/clock/advance`, {
        method: 'POST',
        body: JSON.stringify({ seconds }),
      });
      expect(res.status).toBe(400);
      expect(clock.t).toBe(0);
      expect((await fetch(`${api.url}/_autosave/clock`)).status).toBe(200);
    },
  );
});
