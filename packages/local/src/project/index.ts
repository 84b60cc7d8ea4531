/**
 * The user's project on the local engine: `autosave.config.ts` (found by walking up from the current
 * directory, or named with `--config`), its workflows and handlers by value.
 */
export * from './config';
export * from './config-file';
export { checkWorkflowTools, type LocalToolStep, type WorkflowToolsCheck } from './workflow-tools';
