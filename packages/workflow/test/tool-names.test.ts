import { describe, expect, it } from 'vitest';
import { agentLoop, defineWorkflow, model, tool, toolNamesOf } from '@autosave/workflow';

describe('toolNamesOf: the tools a workflow may call, which the deploy checks against the tool-step', () => {
  it("lists every tool step's tool and every agent loop's tools, once each, sorted", () => {
    const workflow = defineWorkflow({
      name: 'support',
      version: '1',
      steps: [
        model('triage', { prompt: 'Triage {ticket}' }),
        tool('refund', { tool: 'issue-refund', idempotencyKey: 'refund:{ticket}' }),
        agentLoop('investigate', {
          task: 'Investigate {ticket}',
          tools: [
            { name: 'lookup-order', description: 'd', inputSchema: {} },
            { name: 'issue-refund', description: 'd', inputSchema: {} },
          ],
        }),
      ],
    });
    expect(toolNamesOf(workflow)).toEqual(['issue-refund', 'lookup-order']);
  });

  it('is empty for a workflow without tools', () => {
    expect(
      toolNamesOf(defineWorkflow({ name: 'draft', version: '1', steps: [model('draft', { prompt: 'Draft' })] })),
    ).toEqual([]);
  });
});
