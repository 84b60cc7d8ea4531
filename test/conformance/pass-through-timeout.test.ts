/**
 * Every pass-through client has a timeout: a routed endpoint that never answers fails the call with the
 * SDK's TimeoutError instead of holding the Task (and the run) forever. One was still waiting at 150 s.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PASS_THROUGH_TIMEOUT_MILLIS,
  SdkPassThrough,
} from '../../packages/local/src/services/pass-through/sdk-pass-through';

let silent: Server;
let endpoint = '';
beforeAll(async () => {
  silent = createServer(() => undefined); // takes the request, never answers
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
});
afterAll(() => {
  silent.closeAllConnections();
  return new Promise<void>((resolve) => silent.close(() => resolve()));
});

describe('pass-through timeouts', () => {
  it("fails a call to a silent endpoint with the SDK's TimeoutError once the route's timeout passes", async () => {
    const passThrough = new SdkPassThrough({ routes: { sqs: { endpoint, region: 'us-east-1', timeoutMillis: 300 } } });
    const error = await passThrough.call('sqs', 'ListQueues', {}).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.name).toBe('TimeoutError');
  });

  it('bounds a route that sets no timeout at 60 s, as the HTTP Task is bounded', () => {
    expect(PASS_THROUGH_TIMEOUT_MILLIS).toBe(60_000);
  });
});
