import type { Workflow } from './workflow';
import { AgentLoopStep } from './steps/agent-loop-step';
import { ToolStep } from './steps/tool-step';

/**
 * The tools a workflow may call: every tool step's `tool` and every agent loop's `tools`, sorted, once
 * each. Whatever deploys the workflow checks them against the tool-step function's tools, so a missing
 * tool fails the deploy (or the function's cold start), never a run after it has started.
 */
export function toolNamesOf(workflow: Pick<Workflow, 'steps'>): string[] {
  const names = new Set<string>();
  for (const step of workflow.steps) {
    if (step instanceof ToolStep) names.add(step.options.tool);
    else if (step instanceof AgentLoopStep) for (const tool of step.options.tools) names.add(tool.name);
  }
  return [...names].sort();
}
