/**
 * The workflow builder: declare a workflow from steps, compile it to ASL (JSONata), fill its
 * placeholders. See docs/architecture.md §1-§2 for what the compiled definitions look like.
 *
 * ```ts
 * export const renewal = defineWorkflow({
 *   name: 'contract-renewal',
 *   version: '1.0.0',
 *   steps: [
 *     model('draft', { prompt: 'Draft a renewal for {customerName}' }),
 *     approval('review', { title: 'Send this draft?', timeout: days(2), onRejected: 'archive' }),
 *     tool('send', { tool: 'send-email', idempotencyKey: 'renewal:{contractId}:{version}',
 *                    input: { to: '{customerEmail}', subject: 'Renewal', body: '{steps.draft.text}' }, end: true }),
 *     tool('archive', { tool: 'archive-draft', idempotencyKey: 'archive:{contractId}:{version}' }),
 *   ],
 * });
 * const json = toAslJson(compileWorkflow(renewal)); // throws WorkflowDefinitionError if invalid
 * ```
 *
 * Steps run in list order; `next`/`end`, choice branches and approval paths change that. `{path}`
 * reads the execution input, `{steps.<step>.path}` the result of a step that runs on every path before.
 */
export * from './asl-types';
// The durations a step takes (an approval's timeout, a wait), beside the builder that takes them; also in ./config.
export { days, hours, minutes, seconds, toMillis, type Duration } from './config';
export * from './workflow';
export * from './workflow-definition-error';
export * from './compile-workflow';
export * from './serialize';
export * from './placeholders';
export * from './retry-policy';
export * from './history-budget';
export * from './tool-names';
export {
  TemplateSyntaxError,
  keyExpression,
  stringExpression,
  renderValue,
  parseTemplate,
  type TemplateReference,
} from './template';
export * from './steps/step';
export * from './steps/model-step';
export * from './steps/tool-step';
export * from './steps/approval-step';
export * from './steps/wait-step';
export * from './steps/condition';
export * from './steps/choice-step';
export * from './steps/agent-loop-step';
