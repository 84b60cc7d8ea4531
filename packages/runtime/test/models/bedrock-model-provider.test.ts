import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRetryableError } from '@autosave/workflow/errors';
import { BedrockModelProvider, ModelRequestRejectedError } from '@autosave/runtime/models';

// A stand-in Bedrock Runtime endpoint speaking the Converse REST-JSON protocol.
let server: Server;
let endpoint: string;
const requests: { path: string; body: any }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', body: JSON.parse(body) });
      // `/model/fail-<status>-<ErrorType>/converse`: answer with that Bedrock error, as the service does.
      const failure = /\/model\/fail-(\d+)-([A-Za-z]+)\//.exec(decodeURIComponent(req.url ?? ''));
      if (failure) {
        res.writeHead(Number(failure[1]), {
          'content-type': 'application/json',
          'x-amzn-errortype': `${failure[2]}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
        });
        res.end(JSON.stringify({ message: `stand-in ${failure[2]}` }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          output: {
            message: {
              role: 'assistant',
              content: [
                { text: 'Let me compute.' },
                { toolUse: { toolUseId: 'tu-1', name: 'calculator', input: { expression: '1+1' } } },
              ],
            },
          },
          stopReason: 'tool_use',
          usage: { inputTokens: 21, outputTokens: 7, totalTokens: 28 },
          metrics: { latencyMs: 5 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const standIn = () =>
  new BedrockRuntimeClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
    requestHandler: new NodeHttpHandler(),
    // One immediate retry at most, so the test can count what the SDK retried without waiting on backoff.
    maxAttempts: 2,
  });

describe('BedrockModelProvider', () => {
  it.each([
    [400, 'ValidationException'],
    [403, 'AccessDeniedException'],
    [404, 'ResourceNotFoundException'],
  ])(
    'a %i %s (the model id, the grant or model access is wrong) fails once, as the non-retryable ModelRequestRejectedError',
    async (status, type) => {
      const provider = new BedrockModelProvider(standIn(), 'default-model');
      const before = requests.length;
      const error = await provider
        .converse({ modelId: `fail-${status}-${type}`, messages: [{ role: 'user', content: [{ text: 'hi' }] }] })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelRequestRejectedError);
      expect((error as Error).name).toBe('ModelRequestRejectedError');
      expect((error as Error).message).toContain(type);
      expect(((error as Error).cause as Error).name).toBe(type);
      // Neither the SDK nor the state machine tries again: a retry cannot fix it.
      expect(requests.length - before).toBe(1);
      expect(isRetryableError((error as Error).name)).toBe(false);
    },
  );

  it.each([
    [429, 'ThrottlingException'],
    [503, 'ServiceUnavailableException'],
    [500, 'InternalServerException'],
  ])('a %i %s stays retryable (by the SDK, then by the state machine)', async (status, type) => {
    const provider = new BedrockModelProvider(standIn(), 'default-model');
    const before = requests.length;
    const error = await provider
      .converse({ modelId: `fail-${status}-${type}`, messages: [{ role: 'user', content: [{ text: 'hi' }] }] })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe(type);
    expect(requests.length - before).toBe(2);
    expect(isRetryableError(type)).toBe(true);
  });

  it('maps the conversation, system prompt and tools to Converse and the answer back', async () => {
    const client = new BedrockRuntimeClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
      // The real client speaks HTTP/2 (for streaming); the stand-in speaks HTTP/1.1.
      requestHandler: new NodeHttpHandler(),
    });
    const provider = new BedrockModelProvider(client, 'default-model');
    const response = await provider.converse({
      system: 'Be brief.',
      messages: [
        { role: 'user', content: [{ text: 'What is 1+1?' }] },
        {
          role: 'assistant',
          content: [{ toolUse: { toolUseId: 'tu-0', name: 'calculator', input: { expression: '1+1' } } }],
        },
        { role: 'user', content: [{ toolResult: { toolUseId: 'tu-0', content: [{ json: 2 }] } }] },
      ],
      tools: [{ name: 'calculator', description: 'math', inputSchema: { type: 'object' } }],
    });
    expect(response).toEqual({
      text: 'Let me compute.',
      toolCalls: [{ id: 'tu-1', name: 'calculator', input: { expression: '1+1' } }],
      final: false,
      usage: { inputTokens: 21, outputTokens: 7 },
    });
    const sent = requests.find((r) => decodeURIComponent(r.path).includes('/default-model/'))!;
    expect(decodeURIComponent(sent.path)).toBe('/model/default-model/converse');
    expect(sent.body.system).toEqual([{ text: 'Be brief.' }]);
    expect(sent.body.toolConfig.tools[0].toolSpec.name).toBe('calculator');
    // A scalar tool result is wrapped: Converse wants a JSON object.
    expect(sent.body.messages[2].content[0].toolResult.content[0].json).toEqual({ result: 2 });
  });
});
