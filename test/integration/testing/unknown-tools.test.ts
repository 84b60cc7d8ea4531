/**
 * The local engine refuses at start a workflow step naming a tool its tool-step function does not
 * implement (issue 32, item 5), as the construct refuses it at synth: before, the run failed only on reaching
 * that step (`Unknown tool "lookup-order"`). The error names the workflow, the step and the tools there are.
 */
import { describe, expect, it } from 'vitest';
import { AutosaveTestEnvironment, mockConfig, mockReturn } from '@autosave/local/testing';
import { toolStepHandler } from '@autosave/runtime/lambda';
import { builtInTools, defineTool } from '@autosave/runtime/tools';
import { defineWorkflow, tool } from '@autosave/workflow';

const support = defineWorkflow({
  name: 'order-support',
  version: '1',
  steps: [
    tool('notify', { tool: 'send-email', idempotencyKey: 'notify:{orderId}', input: { to: '{email}' } }),
    tool('find-order', { tool: 'lookup-order', idempotencyKey: 'find:{orderId}', input: { orderId: '{orderId}' } }),
  ],
});

describe('a workflow naming a tool the tool-step lacks', () => {
  it('is refused at start with the built-in tool-step, naming the workflow, the step and the known tools', async () => {
    const started = AutosaveTestEnvironment.start({ workflows: [support] });
    await expect(started).rejects.toMatchObject({ name: 'AutosaveConfigError' });
    await expect(started).rejects.toThrow(
      'Workflow "order-support", step "find-order", names "lookup-order", which the tool-step function does not implement (its tools: send-email).',
    );
  });

  it("is refused at start with the project's own tool-step, its tools made in the function's context", async () => {
    const refund = defineTool({
      name: 'issue-refund',
      description: 'Refunds an order',
      inputSchema: { type: 'object', properties: {} },
      execute: async () => ({ ok: true }),
    });
    const handler = toolStepHandler({ tools: (context) => [...builtInTools(context), refund] });
    await expect(
      AutosaveTestEnvironment.start({ workflows: [support], functions: { 'tool-step': handler } }),
    ).rejects.toThrow(/step "find-order", names "lookup-order".*\(its tools: send-email, issue-refund\)/);
  });

  it('starts when every tool is registered, or the step naming it is mocked by a test case', async () => {
    const lookup = defineTool({
      name: 'lookup-order',
      description: 'Finds an order',
      inputSchema: { type: 'object', properties: {} },
      execute: async () => ({ status: 'shipped' }),
    });
    const registered = await AutosaveTestEnvironment.start({
      workflows: [support],
      functions: { 'tool-step': toolStepHandler({ tools: (context) => [...builtInTools(context), lookup] }) },
    });
    await registered.stop();
    const mocked = await AutosaveTestEnvironment.start({
      workflows: [support],
      mocks: mockConfig()
        .testCase(support.name, 'Found', { 'find-order': 'Shipped' })
        .response(
          'Shipped',
          mockReturn({ StatusCode: 200, Payload: { result: { status: 'shipped' }, source: 'executed' } }),
        ),
    });
    await mocked.stop();
  });
});
