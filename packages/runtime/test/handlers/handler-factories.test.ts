/**
 * The handler factories a user builds their own functions with: `defineTool` + `toolStepHandler({ tools })`
 * and `modelStepHandler({ provider })`, invoked as Lambda invokes them against dynalite and s3rver, and the
 * tool-step's start-time check of the tools its workflows name (AUTOSAVE_REQUIRED_TOOLS, set by the construct).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { modelStepHandler, toolStepHandler } from '@autosave/runtime/lambda';
import type { ModelProvider, ModelRequest } from '@autosave/runtime/models';
import { REQUIRED_TOOLS_ENV, ToolRegistry, defineTool, sendEmailTool } from '@autosave/runtime/tools';
import { startLocalAws, type LocalAws } from '../../../../test/fixtures/runtime/local-aws';

let aws: LocalAws;
const saved = new Map<string, string | undefined>();

beforeAll(async () => {
  aws = await startLocalAws();
  for (const [key, value] of Object.entries(aws.env)) {
    saved.set(key, process.env[key]);
    process.env[key] = value;
  }
});
afterAll(async () => {
  for (const [key, value] of saved) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await aws.close();
});
afterEach(() => {
  delete process.env[REQUIRED_TOOLS_ENV];
});

const context = { getRemainingTimeInMillis: () => 30_000 };
const executionArn = 'arn:aws:states:us-east-1:123456789012:execution:refunds:r-1';

/** A refund tool that counts its side effects, as a payment provider would see them. */
function refundTool() {
  const refunds: string[] = [];
  const tool = defineTool({
    name: 'issue-refund',
    description: 'Refunds an order.',
    inputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
    execute: async (input: { orderId: string }, key: string) => {
      refunds.push(key);
      return { refundId: `rf-${input.orderId}` };
    },
  });
  return { tool, refunds };
}

describe('defineTool', () => {
  it('keeps the declared name, schema, execute and reconcile, defaulting the description to the name and the schema to any object', async () => {
    const tool = defineTool({
      name: 'lookup-order',
      execute: async (input: { id: string }) => ({ id: input.id, status: 'shipped' }),
    });
    expect(tool.name).toBe('lookup-order');
    expect(tool.description).toBe('lookup-order');
    expect(tool.inputSchema).toEqual({ type: 'object' });
    expect(tool.reconcile).toBeUndefined();
    expect(await tool.execute({ id: 'o-1' }, 'k')).toEqual({ id: 'o-1', status: 'shipped' });
    const withReconcile = defineTool({
      name: 'x',
      execute: async () => 1,
      reconcile: async () => ({ found: true as const, result: 1 }),
    });
    expect(await withReconcile.reconcile!('k')).toEqual({ found: true, result: 1 });
  });

  it.each([[''], ['has space'], ['a'.repeat(65)], ['émoji']])(
    'refuses the name %j, which Bedrock would refuse as a tool name',
    (name) => {
      expect(() => defineTool({ name, execute: async () => 1 })).toThrow(
        expect.objectContaining({ name: 'ToolDefinitionError' }),
      );
    },
  );

  it('refuses a tool without execute', () => {
    expect(() => defineTool({ name: 'nothing' } as never)).toThrow(
      expect.objectContaining({ name: 'ToolDefinitionError' }),
    );
  });

  it('a registry refuses two tools under one name', () => {
    const { tool } = refundTool();
    expect(() => new ToolRegistry([tool, tool])).toThrow(
      expect.objectContaining({ name: 'ToolDefinitionError', message: expect.stringContaining('issue-refund') }),
    );
  });
});

describe('toolStepHandler({ tools })', () => {
  it("runs the user's own tool once per idempotency key: the retry is replayed from the ledger", async () => {
    const { tool, refunds } = refundTool();
    const handler = toolStepHandler({ tools: [tool] });
    const event = {
      workflow: 'refunds',
      executionArn,
      step: 'Refund',
      tool: 'issue-refund',
      idempotencyKey: 'refund:o-9',
      input: { orderId: 'o-9' },
    };
    expect(await handler(event, context)).toEqual({ result: { refundId: 'rf-o-9' }, source: 'executed' });
    expect(await handler(event, context)).toEqual({ result: { refundId: 'rf-o-9' }, source: 'replayed' });
    expect(refunds).toEqual(['refund:o-9']);
  });

  it('takes its tools from a function of the tool context (the configured email provider)', async () => {
    const handler = toolStepHandler({ tools: ({ emailProvider }) => [sendEmailTool(emailProvider)] });
    const out: any = await handler(
      {
        workflow: 'refunds',
        executionArn,
        step: 'Notify',
        tool: 'send-email',
        idempotencyKey: 'notify:o-9',
        input: { to: 'a@example.com', subject: 's', body: 'b' },
      },
      context,
    );
    expect(out.source).toBe('executed');
  });

  it('refuses to start when the deploy says its workflows name a tool it lacks: UnknownToolError before any tool acts', async () => {
    const { tool, refunds } = refundTool();
    process.env[REQUIRED_TOOLS_ENV] = 'issue-refund,notify-customer';
    const handler = toolStepHandler({ tools: [tool] });
    const event = {
      workflow: 'refunds',
      executionArn,
      step: 'Refund',
      tool: 'issue-refund',
      idempotencyKey: 'refund:o-10',
      input: { orderId: 'o-10' },
    };
    await expect(handler(event, context)).rejects.toMatchObject({
      name: 'UnknownToolError',
      message: expect.stringContaining('"notify-customer"'),
    });
    expect(refunds).toEqual([]);
  });

  it('starts when it implements every tool the deploy names', async () => {
    const { tool } = refundTool();
    process.env[REQUIRED_TOOLS_ENV] = 'issue-refund';
    const handler = toolStepHandler({ tools: [tool] });
    const out: any = await handler(
      {
        workflow: 'refunds',
        executionArn,
        step: 'Refund',
        tool: 'issue-refund',
        idempotencyKey: 'refund:o-11',
        input: { orderId: 'o-11' },
      },
      context,
    );
    expect(out.source).toBe('executed');
  });
});

describe('modelStepHandler({ provider })', () => {
  it('answers through the provider given by value, records the answer and replays it on retry without asking again', async () => {
    const requests: ModelRequest[] = [];
    const provider: ModelProvider = {
      name: 'in-house',
      converse: async (request) => {
        requests.push(request);
        return {
          text: 'Refund approved draft',
          toolCalls: [],
          final: true,
          usage: { inputTokens: 3, outputTokens: 4 },
        };
      },
    };
    const handler = modelStepHandler({ provider });
    const event = { workflow: 'refunds', executionArn, step: 'Draft', turn: 0, prompt: 'Draft the refund note' };
    const first: any = await handler(event, context);
    expect(first).toMatchObject({ text: 'Refund approved draft', final: true, replayed: false });
    expect(await handler(event, context)).toEqual({ ...first, replayed: true });
    expect(requests).toHaveLength(1);
  });

  it('refuses a provider without converse', () => {
    expect(() => modelStepHandler({ provider: {} as ModelProvider })).toThrow(
      expect.objectContaining({ name: 'ModelProviderDefinitionError' }),
    );
  });
});
