/**
 * The workflow builder: declare a workflow from steps, compile it to ASL (JSONata), fill its
 * placeholders. See docs/architecture.md §1-§2 for what the compiled definitions look like.
 */
export * from './asl-types';
export * from './workflow';
export * from './workflow-definition-error';
export * from './compile-workflow';
export * from './serialize';
export * from './placeholders';
export * from './retry-policy';
export * from './history-budget';
export { TemplateSyntaxError, keyExpression, stringExpression, renderValue, parseTemplate, type TemplateReference } from './template';
export * from './steps/step';
export * from './steps/model-step';
export * from './steps/tool-step';
export * from './steps/approval-step';
export * from './steps/wait-step';
export * from './steps/condition';
export * from './steps/choice-step';
export * from './steps/agent-loop-step';
