import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordTable } from '@autosave/runtime/records';
import { InMemoryMetrics, MetricName } from '@autosave/runtime/metrics';
import {
  ModelScriptExhaustedError,
  RecordedModelCall,
  ScriptedModelProvider,
  runModelStep,
  type ConversationMessage,
  type ModelStepDeps,
} from '@autosave/runtime/models';
import { PayloadStore, S3BlobStore, isPayloadRef } from '@autosave/runtime/payloads';
import { startLocalAws, type LocalAws } from '../../../../test/fixtures/runtime/local-aws';

let aws: LocalAws;
let table: RecordTable;
let payloads: PayloadStore;
beforeAll(async () => {
  aws = await startLocalAws();
  table = new RecordTable(aws.dynamodb, aws.table);
  payloads = new PayloadStore({ blobs: new S3BlobStore(aws.s3, aws.bucket) });
});
afterAll(() => aws.close());

function setup(provider = ScriptedModelProvider.fromFile('test/fixtures/model-script.json')) {
  const metrics = new InMemoryMetrics();
  const deps: ModelStepDeps = { model: new RecordedModelCall({ provider, table, payloads, metrics }), payloads };
  return { deps, provider, metrics };
}

const arn = (name: string) => `arn:aws:states:us-east-1:123456789012:execution:w:${name}`;

describe('ScriptedModelProvider', () => {
  const site = { workflow: 'research-agent', executionArn: arn('s'), step: 'Research', turn: 0 };
  const request = { messages: [{ role: 'user' as const, content: [{ text: 'Tell me' }] }] };

  it('answers by workflow, step and turn, first match wins', async () => {
    const p = new ScriptedModelProvider({
      responses: [
        { turn: 1, text: 'one' },
        { step: 'Research', text: 'any turn' },
      ],
    });
    expect((await p.converse(request, site)).text).toBe('any turn');
    expect((await p.converse(request, { ...site, turn: 1 })).text).toBe('one');
  });

  it('fills {{prompt}} and estimates usage when the script gives none', async () => {
    const p = new ScriptedModelProvider({ responses: [{ text: 'You asked: {{prompt}}' }] });
    const r = await p.converse(request, site);
    expect(r).toMatchObject({ text: 'You asked: Tell me', toolCalls: [], final: true });
    expect(r.usage.inputTokens).toBeGreaterThan(0);
  });

  it('throws the non-retryable ModelScriptExhaustedError when nothing matches', async () => {
    const p = new ScriptedModelProvider({ responses: [{ workflow: 'other', text: 'x' }] });
    await expect(p.converse(request, site)).rejects.toBeInstanceOf(ModelScriptExhaustedError);
  });
});

describe('runModelStep (plain model step: the renewal draft)', () => {
  const event = {
    workflow: 'contract-renewal',
    executionArn: arn('renewal-c1'),
    step: 'DraftRenewal',
    turn: 0,
    prompt: 'Draft the renewal for contract c-1',
  };

  it('calls the model once across retries and reports tokens once', async () => {
    const { deps, provider, metrics } = setup();
    const first = await runModelStep(deps, event);
    const retry = await runModelStep(deps, event);
    expect(provider.calls).toBe(1);
    expect(first.replayed).toBe(false);
    expect(retry).toEqual({ ...first, replayed: true });
    expect(first.text).toContain('renewal');
    expect(first.conversation).toBeUndefined();
    expect(metrics.get(MetricName.ModelCallsMade)).toBe(1);
    expect(metrics.get(MetricName.ModelCallsReplayed)).toBe(1);
    expect(metrics.get(MetricName.ModelInputTokens)).toBe(412);
    expect(metrics.get(MetricName.ModelOutputTokens)).toBe(96);
  });

  it('records the output under `${executionArn}#${step}#${turn}` and a fresh process replays it', async () => {
    const e = { ...event, executionArn: arn('renewal-c2') };
    await runModelStep(setup().deps, e);
    expect(await table.get(`model#${e.executionArn}#DraftRenewal#0`)).toBeDefined();
    const restarted = setup();
    expect((await runModelStep(restarted.deps, e)).replayed).toBe(true);
    expect(restarted.provider.calls).toBe(0);
  });

  it('stores a response over the inline limit by reference in its record', async () => {
    const provider = new ScriptedModelProvider({ responses: [{ text: 'y'.repeat(150 * 1024) }] });
    const { deps } = setup(provider);
    const e = { ...event, executionArn: arn('big') };
    const first = await runModelStep(deps, e);
    const record = await table.get(`model#${e.executionArn}#DraftRenewal#0`);
    expect(isPayloadRef(JSON.parse(String(record?.response)))).toBe(true);
    expect((await runModelStep(deps, e)).text).toBe(first.text);
  });

  it('refuses an event without executionArn, step or prompt', async () => {
    await expect(runModelStep(setup().deps, { step: 'x' })).rejects.toMatchObject({ name: 'InvalidStepInputError' });
  });
});

describe('runModelStep (agent loop: the research agent)', () => {
  const base = {
    workflow: 'research-agent',
    executionArn: arn('research-1'),
    step: 'Research',
    prompt: 'How do durable agent workflows avoid duplicate side effects?',
    tools: [{ name: 'search-web', description: 'search', inputSchema: { type: 'object' } }],
  };

  it('keeps the conversation by reference, turn after turn, and replays a turn to the same reference', async () => {
    const { deps, provider } = setup();
    const turn0 = await runModelStep(deps, { ...base, turn: 0, conversation: null });
    expect(turn0.final).toBe(false);
    expect(turn0.toolCalls.map((c) => c.name)).toEqual(['search-web', 'calculator']);
    expect(isPayloadRef(turn0.conversation)).toBe(true);
    expect((await runModelStep(deps, { ...base, turn: 0, conversation: null })).conversation).toEqual(
      turn0.conversation,
    );

    const bigResult = await payloads.put({ text: 'z'.repeat(300 * 1024) });
    const turn1 = await runModelStep(deps, {
      ...base,
      turn: 1,
      conversation: turn0.conversation,
      toolResults: [
        { id: 'call-search-1', name: 'search-web', result: bigResult },
        { id: 'call-calc-1', name: 'calculator', result: { value: 0.3 } },
      ],
    });
    const conversation = await payloads.resolve<ConversationMessage[]>(turn1.conversation!);
    expect(conversation.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const toolResults = conversation[2].content as { toolResult: { toolUseId: string; content: { json: any }[] } }[];
    expect(toolResults[0].toolResult.content[0].json.text).toHaveLength(300 * 1024);

    // A large batch hands its results over as one reference; the model step resolves it.
    const resultsByRef = await payloads.put([{ id: 'call-read-1', name: 'read-document', result: { text: 'doc' } }]);
    const turn2 = await runModelStep(deps, {
      ...base,
      turn: 2,
      conversation: turn1.conversation,
      toolResults: resultsByRef,
    });
    const finalConversation = await payloads.resolve<ConversationMessage[]>(turn2.conversation!);
    expect(finalConversation[4].content).toEqual([
      { toolResult: { toolUseId: 'call-read-1', content: [{ json: { text: 'doc' } }] } },
    ]);
    expect(turn2.final).toBe(true);
    expect(turn2.text).toMatch(/^Final answer/);
    expect(provider.calls).toBe(3);
  });
});
