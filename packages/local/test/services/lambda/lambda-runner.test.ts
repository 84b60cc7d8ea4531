import { describe, expect, it } from 'vitest';
import { InProcessLambdaRunner, type LambdaContext } from '../../../src/services/lambda/lambda-runner';
import { parseFunctionName } from '../../../src/services/lambda/function-name';

class SiteNotFoundError extends Error {
  override readonly name = 'SiteNotFoundError';
}

const runner = new InProcessLambdaRunner({
  functions: [
    {
      name: 'autosave-echo',
      load: () => async (event: unknown, context: LambdaContext) => ({
        event,
        fn: context.functionName,
        arn: context.invokedFunctionArn,
        left: context.getRemainingTimeInMillis(),
        id: context.awsRequestId,
      }),
      timeoutSeconds: 5,
    },
    {
      name: 'fails',
      load: () => async () => {
        throw new SiteNotFoundError('no site 4412');
      },
    },
    { name: 'slow', load: () => () => new Promise(() => {}), timeoutSeconds: 0.05 },
    // Its module takes longer to load than the function may run: Lambda's Init phase is not part of the timeout.
    {
      name: 'slow-init',
      load: () =>
        new Promise((resolve) =>
          setTimeout(
            () =>
              resolve(async (_e: unknown, context: LambdaContext) => ({ left: context.getRemainingTimeInMillis() })),
            200,
          ),
        ),
      timeoutSeconds: 0.1,
    },
    {
      name: 'callback-style',
      load: () => (event: { n: number }, _context: LambdaContext, callback: (e: unknown, r?: unknown) => void) => {
        callback(null, { doubled: event.n * 2 });
      },
    },
    { name: 'returns-nothing', load: () => async () => undefined },
    // The context's own fields, as a handler that copies or logs it sees them.
    {
      name: 'context-fields',
      load: () => async (_e: unknown, context: LambdaContext) => ({
        ...context,
        left: typeof context.getRemainingTimeInMillis,
        ownRemaining: Object.hasOwn(context, 'getRemainingTimeInMillis'),
      }),
      memoryMb: 512,
    },
  ],
});

describe('parseFunctionName', () => {
  it.each([
    ['autosave-model-step', undefined, { name: 'autosave-model-step' }],
    ['autosave-model-step:live', undefined, { name: 'autosave-model-step', qualifier: 'live' }],
    ['123456789012:function:autosave-tool-step', undefined, { name: 'autosave-tool-step' }],
    [
      'arn:aws:lambda:eu-west-1:999999999999:function:autosave-tool-step:7',
      undefined,
      { name: 'autosave-tool-step', qualifier: '7' },
    ],
    ['arn:aws:lambda:us-east-1:123456789012:function:x', '3', { name: 'x', qualifier: '3' }],
  ])('reads %s (qualifier %s)', (input, qualifier, expected) => {
    expect(parseFunctionName(input, qualifier)).toEqual(expected);
  });
});

describe('InProcessLambdaRunner', () => {
  it('runs a handler by ARN whatever region and account, with a Lambda-like context and a JSON copy of the event', async () => {
    const payload = { siteId: 'site-4412' };
    const result = await runner.invoke({
      functionName: 'arn:aws:lambda:eu-west-1:999999999999:function:autosave-echo:5',
      payload,
    });
    expect(result.functionError).toBeUndefined();
    expect(result.executedVersion).toBe('5');
    const out = result.payload as { event: unknown; fn: string; arn: string; left: number; id: string };
    expect(out.event).toEqual(payload);
    expect(out.fn).toBe('autosave-echo');
    expect(out.arn).toBe('arn:aws:lambda:us-east-1:123456789012:function:autosave-echo:5');
    expect(out.left).toBeGreaterThan(0);
    expect(out.left).toBeLessThanOrEqual(5000);
    expect(out.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('returns a thrown error as functionError Unhandled with its name as errorType', async () => {
    const result = await runner.invoke({ functionName: 'fails', payload: {} });
    expect(result.functionError).toBe('Unhandled');
    expect(result.payload).toMatchObject({ errorType: 'SiteNotFoundError', errorMessage: 'no site 4412' });
  });

  it('stops waiting at the function timeout and reports Sandbox.Timedout', async () => {
    const result = await runner.invoke({ functionName: 'slow', payload: {} });
    expect(result.functionError).toBe('Unhandled');
    expect(result.payload).toMatchObject({ errorType: 'Sandbox.Timedout' });
    expect((result.payload as { errorMessage: string }).errorMessage).toContain('Task timed out after 0.05 seconds');
  });

  it('starts the timeout after the handler is loaded, as Lambda keeps Init out of the invocation time', async () => {
    const result = await runner.invoke({ functionName: 'slow-init', payload: {} });
    expect(result.functionError).toBeUndefined();
    expect((result.payload as { left: number }).left).toBeGreaterThan(0);
  });

  it('supports callback-style handlers and turns an undefined result into null', async () => {
    expect((await runner.invoke({ functionName: 'callback-style', payload: { n: 21 } })).payload).toEqual({
      doubled: 42,
    });
    expect((await runner.invoke({ functionName: 'returns-nothing', payload: {} })).payload).toBeNull();
  });

  it('reads the event from its JSON text when the engine gives it, and answers the response with its JSON text', async () => {
    // The text wins over the value: the engine serialized the very payload it names, so the runner parses it instead of serializing again.
    const result = await runner.invoke({ functionName: 'callback-style', payload: { n: 1 }, payloadJson: '{"n":21}' });
    expect(result.payload).toEqual({ doubled: 42 });
    expect(result.payloadJson).toBe('{"doubled":42}');
    expect((await runner.invoke({ functionName: 'returns-nothing', payload: {} })).payloadJson).toBe('null');
  });

  it("hands each invocation a context of Lambda's fields as own properties (getRemainingTimeInMillis among them), with its own request id and log stream", async () => {
    const first = (await runner.invoke({ functionName: 'context-fields:7', payload: {} })).payload as Record<
      string,
      unknown
    >;
    const second = (await runner.invoke({ functionName: 'context-fields', payload: {} })).payload as Record<
      string,
      unknown
    >;
    expect(first).toMatchObject({
      functionName: 'context-fields',
      functionVersion: '7',
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:context-fields:7',
      memoryLimitInMB: '512',
      logGroupName: '/aws/lambda/context-fields',
      logStreamName: `local/${String(first.awsRequestId)}`,
      callbackWaitsForEmptyEventLoop: true,
      left: 'function',
      ownRemaining: true,
    });
    expect(second).toMatchObject({
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:context-fields',
      logStreamName: `local/${String(second.awsRequestId)}`,
    });
    expect(second.awsRequestId).not.toBe(first.awsRequestId);
  });

  it('throws ResourceNotFoundException (the Lambda service error) for an unknown function', async () => {
    await expect(runner.invoke({ functionName: 'nope', payload: {} })).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    expect(runner.has('arn:aws:lambda:us-east-1:1:function:fails')).toBe(true);
  });
});
