/**
 * The example app's tools: the clinical-trial onboarding fakes, the research agent's tools and
 * classify-text, beside Autosave's built-in `send-email`. `lambdas/tool-step.ts` registers them with
 * `toolStepHandler`; the construct (infra/) is told their names so a workflow naming another tool fails at synth.
 */
import { builtInTools, type Tool, type ToolContext } from '@autosave/runtime/tools';
import { classifyTextTool } from './classify-text-tool';
import { onboardingTools } from './fakes/onboarding-tools';
import { researchTools } from './research-tools';

export * from './fakes/recording-fake-tool';
export * from './fakes/onboarding-tools';
export * from './research-tools';
export * from './classify-text-tool';

/** Every tool of the example app, built in the tool-step function's context. */
export function exampleTools(context: ToolContext): Tool[] {
  return [...builtInTools(context), ...onboardingTools(context.actionsDir), ...researchTools(), classifyTextTool];
}

/**
 * The names {@link exampleTools} registers, for the construct's synth-time check (`toolStep.tools`).
 * Listed: the tools are made in the function's context (email provider, directories), which a CDK app does
 * not have (a test pins the list to what exampleTools makes).
 */
export const EXAMPLE_TOOL_NAMES: readonly string[] = [
  'send-email',
  'verify-site',
  'create-accounts',
  'request-irb-document',
  'provision-edc-access',
  'schedule-kickoff',
  'search-web',
  'read-document',
  'calculator',
  'classify-text',
];
