import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '@autosave/workflow/config';
import { DynamoDbLedgerStore, IdempotencyLedger } from '@autosave/runtime/idempotency';
import { RecordTable } from '@autosave/runtime/records';
import { InMemoryMetrics, MetricName } from '@autosave/runtime/metrics';
import { PayloadStore, S3BlobStore, isPayloadRef } from '@autosave/runtime/payloads';
import {
  OutboxEmailProvider,
  ToolRegistry,
  runToolStep,
  sendEmailTool,
  type EmailProvider,
  type ToolBatchEntry,
  type ToolCallResult,
  type ToolStepDeps,
} from '@autosave/runtime/tools';
import { exampleTools, readDocumentTool } from '../../../../tools';
import { startLocalAws, type LocalAws } from '../../../../test/fixtures/runtime/local-aws';

let aws: LocalAws;
let deps: ToolStepDeps;
let outbox: OutboxEmailProvider;
const metrics = new InMemoryMetrics();
const clock = {
  millis: Date.UTC(2026, 10, 30),
  now() {
    return this.millis;
  },
} satisfies Clock & { millis: number };

beforeAll(async () => {
  aws = await startLocalAws();
  outbox = new OutboxEmailProvider(join(aws.dir, 'outbox'));
  const payloads = new PayloadStore({ blobs: new S3BlobStore(aws.s3, aws.bucket), metrics });
  deps = {
    ledger: new IdempotencyLedger({ store: new DynamoDbLedgerStore(aws.dynamodb, aws.table), clock, metrics }),
    tools: new ToolRegistry(exampleTools({ emailProvider: outbox, actionsDir: join(aws.dir, 'actions') })),
    payloads,
  };
});
afterAll(() => aws.close());

const step = {
  workflow: 'clinical-trial-onboarding',
  executionArn: 'arn:aws:states:us-east-1:123456789012:execution:w:r1',
  step: 'EmailWelcomePack',
};

describe('runToolStep', () => {
  it('sends once per key and replays the result on a retry, saying where each result came from', async () => {
    const event = {
      ...step,
      tool: 'send-email',
      idempotencyKey: 'site-1:welcome',
      input: { to: 'pi@s1.example', subject: 'Welcome', body: 'Hi' },
    };
    const first = (await runToolStep(deps, event)) as ToolCallResult;
    expect(first).toEqual({
      result: expect.objectContaining({ to: ['pi@s1.example'], subject: 'Welcome' }),
      source: 'executed',
    });
    expect(await runToolStep(deps, event)).toEqual({ result: first.result, source: 'replayed' });
    expect((await outbox.list()).filter((e) => e.idempotencyKey === 'site-1:welcome')).toHaveLength(1);
    expect(metrics.get(MetricName.DuplicateSuppressed)).toBeGreaterThanOrEqual(1);
  });

  it('returns a 300 KB tool result with the large value by reference, stores that, and the reference resolves with its hash checked', async () => {
    const event = {
      ...step,
      tool: 'read-document',
      idempotencyKey: 'r:doc',
      input: { url: 'https://example.org/big', bytes: 300 * 1024 },
    };
    const envelope = (await runToolStep(deps, event)) as ToolCallResult;
    expect(envelope.source).toBe('executed');
    const out = envelope.result as { url: string; text: unknown };
    // The shape stays readable by the state machine; only the large value travels by reference, inside `result`.
    expect(out.url).toBe('https://example.org/big');
    expect(isPayloadRef(out.text)).toBe(true);
    if (!isPayloadRef(out.text)) return;
    expect(out.text.bytes).toBeGreaterThan(300 * 1024);
    expect(JSON.stringify(out).length).toBeLessThan(400);
    const stored = await new RecordTable(aws.dynamodb, aws.table).get('idem#r:doc');
    expect(JSON.parse(String(stored?.result))).toEqual(out);
    expect(await runToolStep(deps, event)).toEqual({ result: out, source: 'replayed' });
    expect(JSON.stringify(envelope).length).toBeLessThan(450);
    expect(Buffer.byteLength(await deps.payloads.resolve<string>(out.text))).toBe(300 * 1024);
    expect(((await deps.payloads.resolveDeep(out)) as { text: string }).text).toHaveLength(300 * 1024);
  });

  it('leaves room for the envelope: a result that only just fits the limit keeps its shape inside an envelope that fits too', async () => {
    const limit = 4_000;
    const small = {
      ...deps,
      payloads: new PayloadStore({ blobs: new S3BlobStore(aws.s3, aws.bucket), inlineLimitBytes: limit }),
    };
    const url = 'https://example.org/edge';
    const overhead = JSON.stringify(await readDocumentTool.execute({ url, bytes: 1_000 }, 'probe')).length - 1_000;
    const input = { url, bytes: limit - 10 - overhead };
    expect(JSON.stringify(await readDocumentTool.execute(input, 'probe'))).toHaveLength(limit - 10);
    const envelope = (await runToolStep(small, {
      ...step,
      tool: 'read-document',
      idempotencyKey: 'edge:doc',
      input,
    })) as ToolCallResult;
    expect(Buffer.byteLength(JSON.stringify(envelope))).toBeLessThanOrEqual(limit);
    expect(envelope).toMatchObject({ source: 'executed', result: { url } });
    expect(isPayloadRef((envelope.result as { text: unknown }).text)).toBe(true);
    // What the handler does with it (lambdaHandler's offloadLargeResult): nothing, it already fits.
    expect(await small.payloads.shrinkToFit(envelope)).toBe(envelope);
  });

  it('keeps a large batch readable: `results` goes by reference when the batch is over the limit', async () => {
    const calls = [1, 2, 3].map((n) => ({
      id: `c${n}`,
      tool: 'read-document',
      idempotencyKey: `batch-big:${n}`,
      input: { url: `https://example.org/${n}`, bytes: 60 * 1024 },
    }));
    const out = (await runToolStep(deps, { ...step, turn: 1, calls })) as { results: unknown };
    expect(isPayloadRef(out.results)).toBe(true);
    const results = await deps.payloads.resolveDeep<ToolBatchEntry[]>(out.results);
    expect(results.map((r) => [r.id, r.source])).toEqual([
      ['c1', 'executed'],
      ['c2', 'executed'],
      ['c3', 'executed'],
    ]);
  });

  it('resolves payload references in the input before the tool sees it', async () => {
    const body = await deps.payloads.put('A body that arrived by reference');
    await runToolStep(deps, {
      ...step,
      tool: 'send-email',
      idempotencyKey: 'ref-input',
      input: { to: 'a@b.example', subject: 'S', body },
    });
    expect((await outbox.list()).find((e) => e.idempotencyKey === 'ref-input')?.body).toBe(
      'A body that arrived by reference',
    );
  });

  it('runs an agent-loop batch, each call under its own key, in call order', async () => {
    const batch = {
      ...step,
      turn: 0,
      calls: [
        { id: 'c1', tool: 'calculator', idempotencyKey: 'root:agent:0:c1', input: { expression: '6 * 7' } },
        { id: 'c2', tool: 'search-web', idempotencyKey: 'root:agent:0:c2', input: { query: 'q' } },
      ],
    };
    const out = (await runToolStep(deps, batch)) as { results: (ToolBatchEntry & { result: any })[] };
    expect(out.results.map((r) => [r.id, r.name, r.source])).toEqual([
      ['c1', 'calculator', 'executed'],
      ['c2', 'search-web', 'executed'],
    ]);
    expect(out.results[0].result.value).toBe(42);
    expect(await runToolStep(deps, batch)).toEqual({ results: out.results.map((r) => ({ ...r, source: 'replayed' })) });
  });

  it('after an abandoned claim expires, reconciles with the outbox instead of sending again', async () => {
    const key = 'site-2:welcome';
    const input = { to: 'pi@s2.example', subject: 'Welcome', body: 'Hi' };
    // The crash: the claim was taken and the provider sent, but COMPLETED was never written.
    await deps.ledger.claim(key, { tool: 'send-email', input }, 1_000);
    const sent = await outbox.send({ ...input, to: [input.to] }, key);
    clock.millis += 1_001;
    const before = metrics.get(MetricName.Reconciled);
    expect(await runToolStep(deps, { ...step, tool: 'send-email', idempotencyKey: key, input })).toEqual({
      result: sent,
      source: 'reconciled',
    });
    expect(metrics.get(MetricName.Reconciled)).toBe(before + 1);
    expect((await outbox.list()).filter((e) => e.idempotencyKey === key)).toHaveLength(1);
  });

  it('renewal: the claim is committed before the provider is asked to send, so no send can outrun its checkpoint', async () => {
    const table = new RecordTable(aws.dynamodb, aws.table);
    const key = 'renewal:c-42:3';
    const seenAtSend: unknown[] = [];
    const provider: EmailProvider = {
      name: 'checking',
      async send(message, idempotencyKey) {
        seenAtSend.push({ key: idempotencyKey, record: (await table.get(`idem#${key}`))?.status });
        return { messageId: 'm-1', provider: 'checking', to: message.to, subject: message.subject };
      },
    };
    const renewal = { ...deps, tools: new ToolRegistry([sendEmailTool(provider)]) };
    const event = {
      ...step,
      workflow: 'contract-renewal',
      tool: 'send-email',
      idempotencyKey: key,
      input: { to: 'buyer@example.com', subject: 'Renewal', body: 'Draft' },
    };
    await runToolStep(renewal, event);
    await runToolStep(renewal, event);
    expect(seenAtSend).toEqual([{ key, record: 'IN_PROGRESS' }]);
  });

  it('owns its keys by execution ARN: a retry replays quietly, a fresh execution of the same run counts a restart from scratch (single and batch)', async () => {
    const restarted = { ...step, executionArn: `${step.executionArn}-fresh` };
    const single = { tool: 'calculator', idempotencyKey: 'owner:single', input: { expression: '1 + 1' } };
    const batch = {
      turn: 0,
      calls: [{ id: 'c1', tool: 'calculator', idempotencyKey: 'owner:batch:c1', input: { expression: '2 + 2' } }],
    };
    await runToolStep(deps, { ...step, ...single });
    await runToolStep(deps, { ...step, ...batch });
    const table = new RecordTable(aws.dynamodb, aws.table);
    expect((await table.get('idem#owner:single'))?.owner).toBe(step.executionArn);
    expect((await table.get('idem#owner:batch:c1'))?.owner).toBe(step.executionArn);
    const restarts = metrics.get(MetricName.RunRestartedFromScratch);
    await runToolStep(deps, { ...step, ...single });
    await runToolStep(deps, { ...step, ...batch });
    expect(metrics.get(MetricName.RunRestartedFromScratch)).toBe(restarts);
    await runToolStep(deps, { ...restarted, ...single });
    await runToolStep(deps, { ...restarted, ...batch });
    expect(metrics.get(MetricName.RunRestartedFromScratch)).toBe(restarts + 2);
  });

  it('marks each call of a batch with its own source: a call retried after its batch failed replays, a new one executes', async () => {
    const first = { id: 'c1', tool: 'calculator', idempotencyKey: 'mixed:0:c1', input: { expression: '1 + 2' } };
    await runToolStep(deps, { ...step, turn: 0, calls: [first] });
    const out = (await runToolStep(deps, {
      ...step,
      turn: 0,
      calls: [first, { ...first, id: 'c2', idempotencyKey: 'mixed:0:c2' }],
    })) as { results: ToolBatchEntry[] };
    expect(out.results.map((r) => [r.id, r.source])).toEqual([
      ['c1', 'replayed'],
      ['c2', 'executed'],
    ]);
  });

  it.each([
    [{ ...step, tool: 'send-email', input: {} }],
    [{ ...step, tool: 'send-email', idempotencyKey: '', input: {} }],
    [{ ...step, calls: [{ tool: 'calculator' }] }],
  ])('refuses a malformed event with InvalidStepInputError (%#)', async (event) => {
    await expect(runToolStep(deps, event)).rejects.toMatchObject({ name: 'InvalidStepInputError' });
  });
});
