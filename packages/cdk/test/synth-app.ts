import { Template } from 'aws-cdk-lib/assertions';
import { createAutosaveApp, type AutosaveApp } from '../../../infra/create-app';
import { registeredFunctionSpecs, registeredWorkflowSpecs } from '../../../infra/registries';
import type { FunctionSpec, WorkflowSpec } from '../src/stack-inputs';

/** What a test gets back from {@link synthApp}. */
export interface SynthesizedApp extends AutosaveApp {
  readonly template: Template;
}

/**
 * Builds and synthesizes the app offline and fast: bundling skipped (`aws:cdk:bundling-stacks: []`)
 * and CDK's built-in CloudFormation schema validation off (the manual `npm run synth` keeps both).
 */
export function synthApp(
  options: { context?: Record<string, unknown>; workflows?: WorkflowSpec[]; functions?: readonly FunctionSpec[] } = {},
): SynthesizedApp {
  const built = createAutosaveApp({
    workflows: options.workflows ?? registeredWorkflowSpecs(),
    functions: options.functions ?? registeredFunctionSpecs(),
    app: {
      builtinCloudFormationValidation: false,
      context: { 'aws:cdk:bundling-stacks': [], ...options.context },
    },
  });
  return { ...built, template: Template.fromStack(built.stack) };
}
