import { agentLoop, defineWorkflow, type AgentTool } from '../lib/workflow';

/** The tools the research agent may call (lib/tools implements them under these names). */
export const researchAgentTools: readonly AgentTool[] = [
  {
    name: 'search-web',
    description: 'Searches the web and returns the top three results.',
    inputSchema: { type: 'object', required: ['query'], properties: { query: { type: 'string' } } },
  },
  {
    name: 'read-document',
    description: 'Fetches a document and returns its text.',
    inputSchema: { type: 'object', required: ['url'], properties: { url: { type: 'string' }, bytes: { type: 'number' } } },
  },
  {
    name: 'calculator',
    description: 'Evaluates an arithmetic expression such as "(1200 * 0.15) + 40".',
    inputSchema: { type: 'object', required: ['expression'], properties: { expression: { type: 'string' } } },
  },
];

/**
 * A ReAct research agent: the model searches, reads and calculates until it gives a final answer (the
 * `research` step's `text`, with `final: true`) or runs out of turns. Every tool call is keyed
 * `<root>:research:<turn>:<toolCallId>`, so a retried turn never repeats a call.
 */
export const researchAgent = defineWorkflow({
  name: 'research-agent',
  version: '1.0.0',
  description: 'Answer a research question with web search, document reading and a calculator',
  exampleInput: {
    question: 'How do durable workflows avoid sending an email twice, and what do 1,200 retries at a 15% duplicate rate cost at $0.02 each?',
  },
  steps: [
    agentLoop('research', {
      system: 'You are a careful research assistant. Use the tools, cite the URLs you read, and end with a final answer.',
      task: '{question}',
      tools: researchAgentTools,
      maxTurns: 12,
    }),
  ],
});
