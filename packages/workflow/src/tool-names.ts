import type { Workflow } from './workflow';
import { AgentLoopStep } from './steps/agent-loop-step';
import { ToolStep } from './steps/tool-step';

/** The tools one step may call: a tool step's `tool`, or an agent loop's `tools`. */
export interface StepTools {
  /** The step's name (also its Task state's name). */
  readonly step: string;
  /** The tool names it may call, sorted, once each. */
  readonly tools: readonly string[];
}

/** Each step that may call a tool, in the workflow's order, with the tools it names. */
export function toolUsesOf(workflow: Pick<Workflow, 'steps'>): StepTools[] {
  const uses: StepTools[] = [];
  for (const step of workflow.steps) {
    if (step instanceof ToolStep) uses.push({ step: step.name, tools: [step.options.tool] });
    else if (step instanceof AgentLoopStep)
      uses.push({ step: step.name, tools: [...new Set(step.options.tools.map((tool) => tool.name))].sort() });
  }
  return uses;
}

/**
 * The tools a workflow may call: every tool step's `tool` and every agent loop's `tools`, sorted, once
 * each. Whatever deploys the workflow checks them against the tool-step function's tools, so a missing
 * tool fails the deploy (or the function's cold start), never a run after it has started.
 */
export function toolNamesOf(workflow: Pick<Workflow, 'steps'>): string[] {
  return [...new Set(toolUsesOf(workflow).flatMap((use) => use.tools))].sort();
}
