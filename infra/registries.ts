import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXAMPLE_TOOL_NAMES } from '../tools';
import type { Workflow } from '@autosave/workflow';
import { workflows as registeredWorkflows } from '../statemachines';
import {
  builtInFunctionSpecs,
  toWorkflowSpec,
  type FunctionSpec,
  type ToolStepProps,
  type WorkflowSpec,
} from '@autosave/cdk';

export { toWorkflowSpec };

/** Every workflow of the statemachines/ registry, ready to deploy. */
export function registeredWorkflowSpecs(list: readonly Workflow[] = registeredWorkflows): WorkflowSpec[] {
  return list.map(toWorkflowSpec);
}

/** Every runtime function, with the built-in code (the example's own tool-step comes through {@link exampleToolStep}). */
export function registeredFunctionSpecs(): FunctionSpec[] {
  return builtInFunctionSpecs();
}

/** The example app's root: its lock file and node_modules, wherever the app was copied (the rehearsal copies it). */
const APP_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The example's tool-step, as the construct's `toolStep` prop: its entry (lambdas/tool-step.ts), the names
 * of its tools (tools/), and this app's own root, so the CLI may synthesize it from any directory.
 */
export function exampleToolStep(): ToolStepProps {
  return {
    entry: join(APP_ROOT, 'lambdas', 'tool-step.ts'),
    tools: EXAMPLE_TOOL_NAMES,
    projectRoot: APP_ROOT,
    depsLockFilePath: join(APP_ROOT, 'package-lock.json'),
  };
}
