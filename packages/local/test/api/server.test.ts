import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DescribeExecutionCommand, ListStateMachinesCommand, SFNClient } from '@aws-sdk/client-sfn';
import { seconds, type Duration } from '@autosave/workflow/config';
import { AWS_JSON_CONTENT_TYPE } from '../../src/api/aws-json-protocol';
import { createLocalApiHandler, startLocalApiServer, type LocalApiServer } from '../../src/api/server';
import { stepFunctionsService } from '../../src/api/step-functions-service';
import type { FunctionUrlEvent } from '../../src/api/function-url-event';

class ExecutionDoesNotExist extends Error {
  override readonly name = 'ExecutionDoesNotExist';
}

/** The seam the HTTP layer stands on: operations in, wire shapes or named errors out. */
const engine = {
  calls: [] as { operation: string; input: object }[],
  async handle(operation: string, input: object): Promise<object> {
    this.calls.push({ operation, input });
    if (operation === 'ListStateMachines')
      return {
        stateMachines: [{ name: 'm', stateMachineArn: 'arn:x', type: 'STANDARD', creationDate: 1_700_000_000.5 }],
      };
    if (operation === 'DescribeExecution') throw new ExecutionDoesNotExist('Execution Does Not Exist: x');
    if (operation === 'Boom') throw new TypeError('cannot read properties of undefined');
    return {};
  },
};

const clock = {
  t: Date.UTC(2026, 0, 1),
  now() {
    return this.t;
  },
  async advance(by: Duration) {
    this.t += by.seconds * 1000;
  },
};

describe('the local API server', () => {
  let api: LocalApiServer;
  let sfn: SFNClient;
  const approvals: FunctionUrlEvent[] = [];

  const post = (target: string | undefined, body: string | Buffer) =>
    fetch(api.url, {
      method: 'POST',
      headers: { 'content-type': AWS_JSON_CONTENT_TYPE, ...(target ? { 'x-amz-target': target } : {}) },
      body,
    });

  beforeAll(async () => {
    api = await startLocalApiServer(
      createLocalApiHandler({
        services: [stepFunctionsService(engine)],
        virtualClock: clock,
        maxRequestBytes: 64 * 1024,
        approvals: async (event) => {
          approvals.push(event);
          return event.requestContext.http.method === 'GET'
            ? { statusCode: 200, headers: { 'Content-Type': 'text/html' }, body: '<h1>Approve?</h1>' }
            : { decided: true };
        },
      }),
      0,
    );
    sfn = new SFNClient({
      endpoint: api.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
  });
  afterAll(async () => {
    sfn.destroy();
    await api.close();
  });

  it('binds to loopback on the port it was given (0 picks one)', () => {
    expect(api.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(api.port).toBeGreaterThan(0);
  });

  it('routes AWSStepFunctions targets to the engine and returns its shapes to the SDK', async () => {
    const out = await sfn.send(new ListStateMachinesCommand({}));
    expect(out.stateMachines?.[0]).toMatchObject({ name: 'm', stateMachineArn: 'arn:x' });
    expect(out.stateMachines?.[0].creationDate).toEqual(new Date(1_700_000_000_500));
    expect(engine.calls.at(-1)).toEqual({ operation: 'ListStateMachines', input: {} });
  });

  it('returns a named engine error as __type with status 400, which the SDK throws by name', async () => {
    await expect(
      sfn.send(new DescribeExecutionCommand({ executionArn: 'arn:aws:states:us-east-1:123456789012:execution:m:x' })),
    ).rejects.toMatchObject({ name: 'ExecutionDoesNotExist', $metadata: { httpStatusCode: 400 } });
  });

  it('answers a bug in the engine with 500 InternalFailure', async () => {
    const res = await post('AWSStepFunctions.Boom', '{}');
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ __type: 'InternalFailure' });
  });

  it.each([
    ['not JSON', '{"name": '],
    ['an array', '[1, 2]'],
    ['a string', '"hello"'],
  ])('refuses a body that is %s with SerializationException', async (_label, body) => {
    const res = await post('AWSStepFunctions.StartExecution', body);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe(AWS_JSON_CONTENT_TYPE);
    expect(await res.json()).toMatchObject({ __type: 'SerializationException' });
  });

  it('refuses an unknown target prefix with UnknownOperationException', async () => {
    const res = await post('DynamoDB_20120810.GetItem', '{}');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ __type: 'UnknownOperationException' });
  });

  it('refuses a body over the limit with 413 without passing it on', async () => {
    const before = engine.calls.length;
    const res = await post('AWSStepFunctions.StartExecution', JSON.stringify({ input: 'x'.repeat(70 * 1024) }));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ __type: 'RequestEntityTooLargeException' });
    expect(engine.calls.length).toBe(before);
  });

  it('reads and advances the virtual clock', async () => {
    expect(await (await fetch(`${api.url}/_autosave/clock`)).json()).toEqual({
      now: '2026-01-01T00:00:00.000Z',
      epochMillis: Date.UTC(2026, 0, 1),
    });
    const res = await fetch(`${api.url}/_autosave/clock/advance`, {
      method: 'POST',
      body: JSON.stringify({ seconds: seconds(5 * 86_400).seconds }),
    });
    expect(await res.json()).toMatchObject({ now: '2026-01-06T00:00:00.000Z' });
    expect(
      (await fetch(`${api.url}/_autosave/clock/advance`, { method: 'POST', body: '{"seconds": -1}' })).status,
    ).toBe(400);
  });

  it('serves approval pages through the Function URL handler (payload format 2.0)', async () => {
    const page = await fetch(`${api.url}/approvals/ap-1?sig=abc`, { headers: { cookie: 'a=1; b=2' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html');
    expect(await page.text()).toBe('<h1>Approve?</h1>');
    expect(approvals[0]).toMatchObject({
      version: '2.0',
      rawPath: '/approvals/ap-1',
      rawQueryString: 'sig=abc',
      queryStringParameters: { sig: 'abc' },
      cookies: ['a=1', 'b=2'],
      requestContext: { http: { method: 'GET', path: '/approvals/ap-1' } },
      isBase64Encoded: false,
    });

    const decision = await fetch(`${api.url}/approvals/ap-1?sig=abc`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'decision=approve&comment=ok',
    });
    expect(await decision.json()).toEqual({ decided: true });
    expect(approvals[1]).toMatchObject({
      body: 'decision=approve&comment=ok',
      isBase64Encoded: false,
      requestContext: { http: { method: 'POST' } },
    });
  });
});
