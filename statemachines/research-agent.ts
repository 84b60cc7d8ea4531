import { researchTools } from '../tools';
import { agentLoop, defineWorkflow } from '@autosave/workflow';

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
    question:
      'How do durable workflows avoid sending an email twice, and what do 1,200 retries at a 15% duplicate rate cost at $0.02 each?',
  },
  steps: [
    agentLoop('research', {
      system:
        'You are a careful research assistant. Use the tools, cite the URLs you read, and end with a final answer.',
      task: '{question}',
      tools: researchTools(), // search-web, read-document, calculator: their names, descriptions and schemas
      maxTurns: 12,
    }),
  ],
});
