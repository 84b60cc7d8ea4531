/**
 * An agent run exported as an OpenTelemetry trace: the engine, started with an OTLP/HTTP endpoint, sends every run
 * that closes through the OpenTelemetry SDK's OTLP exporter to a receiver this test starts on 127.0.0.1. The
 * receiver decodes the requests as OTLP/JSON (ExportTraceServiceRequest) and keeps the spans, so the test reads
 * what a collector would: one trace per run, a span per state and per attempt with their parents, and the
 * generative-AI attributes of each model turn.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  SFNClient,
  StartExecutionCommand,
  type HistoryEvent,
} from '@aws-sdk/client-sfn';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { otlpTracesFromEnvironment, runSpans } from '../../../packages/local/src/tracing';
import { researchAgent } from '../../../statemachines/index';
import { exampleApp } from '../../fixtures/example-app';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  arrayValue?: { values: OtlpValue[] };
}
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  status?: { code?: number; message?: string };
  attributes: Record<string, unknown>;
  serviceName?: string;
}

const valueOf = (v: OtlpValue): unknown =>
  v.stringValue ??
  (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
  v.boolValue ??
  v.arrayValue?.values.map(valueOf);

/** An OTLP/HTTP receiver (JSON encoding): POST /v1/traces, spans kept in arrival order. */
async function startReceiver(): Promise<{
  server: Server;
  url: string;
  spans: ReceivedSpan[];
  contentTypes: string[];
}> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      contentTypes.push(String(req.headers['content-type']));
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: OtlpValue }[] };
          scopeSpans: {
            spans: (Omit<ReceivedSpan, 'attributes'> & { attributes?: { key: string; value: OtlpValue }[] })[];
          }[];
        }[];
      };
      for (const rs of body.resourceSpans) {
        const serviceName = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
        for (const ss of rs.scopeSpans) {
          for (const span of ss.spans)
            spans.push({
              ...span,
              serviceName,
              attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
            });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, contentTypes };
}

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let local: LocalEngine;
let dataDir: string;
let sfn: SFNClient;

beforeAll(async () => {
  receiver = await startReceiver();
  dataDir = await mkdtemp(join(tmpdir(), 'autosave-otlp-'));
  local = await startLocal({
    ...(await exampleApp()),
    port: 0,
    dataDir,
    console: false,
    log: () => undefined,
    traces: { url: `${receiver.url}/v1/traces`, serviceName: 'otlp-test' },
  });
  sfn = new SFNClient({ endpoint: local.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});

afterAll(async () => {
  await local?.stop();
  receiver?.server.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function finishedRun(name: string): Promise<{ executionArn: string; events: HistoryEvent[] }> {
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({
      stateMachineArn: `arn:aws:states:${LOCAL_REGION}:123456789012:stateMachine:research-agent:live`,
      name,
      input: JSON.stringify(researchAgent.exampleInput),
    }),
  );
  await vi.waitFor(
    async () => expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('SUCCEEDED'),
    { timeout: 45_000, interval: 100 },
  );
  const events: HistoryEvent[] = [];
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(new GetExecutionHistoryCommand({ executionArn, nextToken }));
    events.push(...(page.events ?? []));
    nextToken = page.nextToken;
  } while (nextToken);
  return { executionArn: executionArn!, events };
}

describe('OpenTelemetry traces of runs', () => {
  it('exports an agent run as one trace: the run, a span per state and per attempt, each model turn with gen_ai attributes', async () => {
    const { executionArn } = await finishedRun('otlp-agent');
    const runSpans = () =>
      receiver.spans.filter(
        (s) => s.attributes['autosave.execution.arn'] === executionArn || s.name.startsWith('chat ') || s.parentSpanId,
      );
    await vi.waitFor(
      () => expect(receiver.spans.some((s) => s.attributes['autosave.execution.arn'] === executionArn)).toBe(true),
      { timeout: 20_000, interval: 100 },
    );
    expect(receiver.contentTypes[0]).toContain('application/json');
    const root = receiver.spans.find((s) => s.attributes['autosave.execution.arn'] === executionArn)!;
    const trace = runSpans().filter((s) => s.traceId === root.traceId);
    expect(root).toMatchObject({
      name: 'research-agent otlp-agent',
      serviceName: 'otlp-test',
      attributes: { 'autosave.execution.status': 'SUCCEEDED' },
    });
    expect(root.parentSpanId ?? '').toBe('');
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    // Every span but the root hangs under a span of the same trace.
    for (const span of trace.filter((s) => s !== root)) expect(byId.get(span.parentSpanId!), span.name).toBeDefined();
    const states = trace.filter((s) => s.attributes['autosave.state.name'] !== undefined);
    expect(states.length).toBeGreaterThan(2);
    expect(states.filter((s) => s.parentSpanId === root.spanId).length).toBeGreaterThan(0);
    const turns = trace.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    expect(turns.length).toBeGreaterThan(1);
    for (const turn of turns) {
      expect(turn.name).toMatch(/^chat \S+/);
      expect(byId.get(turn.parentSpanId!)?.attributes['autosave.state.name']).toBeDefined();
      expect(turn.attributes).toMatchObject({
        'gen_ai.request.model': expect.any(String),
        'autosave.model.replayed': false,
      });
      expect(turn.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(turn.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      // Content stays out unless the user opts in.
      expect(turn.attributes['gen_ai.input.messages']).toBeUndefined();
      expect(BigInt(turn.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(turn.startTimeUnixNano));
    }
    // The turns' token counts are the run's own, as its history recorded them.
    expect(turns.some((t) => (t.attributes['autosave.model.tool_calls'] as string[] | undefined)?.length)).toBe(true);
    expect(turns.some((t) => (t.attributes['gen_ai.response.finish_reasons'] as string[])[0] === 'stop')).toBe(true);
    // An agent turn's tool calls are an attempt span under their state: each call's name, key and whether it ran.
    const tools = trace.filter((s) => s.attributes['autosave.tool.calls'] !== undefined);
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) {
      const calls = tool.attributes['autosave.tool.calls'] as string[];
      expect(tool.attributes['autosave.tool.sources']).toEqual(calls.map(() => 'executed'));
      const keys = tool.attributes['autosave.tool.idempotency_keys'] ?? [
        tool.attributes['autosave.tool.idempotency_key'],
      ];
      expect(keys).toHaveLength(calls.length);
      for (const key of keys as string[]) expect(key).toMatch(/:research:\d+:/);
    }
  });

  it('carries prompts and answers only when the user opts in, and reads its settings as the OpenTelemetry SDKs do', async () => {
    const { executionArn, events } = await finishedRun('otlp-content');
    const closed = { executionArn, status: 'SUCCEEDED', stopMillis: events.at(-1)!.timestamp!.getTime() };
    const withContent = runSpans(closed, events, { captureContent: true }).filter(
      (s) => s.attributes['gen_ai.operation.name'] === 'chat',
    );
    expect(JSON.parse(String(withContent[0].attributes['gen_ai.input.messages']))).toContainEqual({
      role: 'user',
      parts: [{ type: 'text', content: expect.stringContaining('durable workflows') }],
    });
    expect(withContent.some((s) => typeof s.attributes['gen_ai.output.messages'] === 'string')).toBe(true);
    // The same run built twice has the same ids: an export repeated after a crash is not a second trace.
    expect(runSpans(closed, events).map((s) => s.spanId)).toEqual(runSpans(closed, events).map((s) => s.spanId));

    expect(otlpTracesFromEnvironment({})).toBeUndefined();
    expect(otlpTracesFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' })).toMatchObject({
      url: 'http://127.0.0.1:4318/v1/traces',
      captureContent: false,
    });
    expect(
      otlpTracesFromEnvironment({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/t',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x',
      })?.url,
    ).toBe('http://c:4318/t');
    expect(
      otlpTracesFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBeUndefined();
    expect(
      otlpTracesFromEnvironment({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-team=agents,authorization=Bearer%20t',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
        OTEL_SERVICE_NAME: 'svc',
      }),
    ).toEqual({
      url: 'http://x/v1/traces',
      headers: { 'x-team': 'agents', authorization: 'Bearer t' },
      captureContent: true,
      serviceName: 'svc',
    });
  });
});
