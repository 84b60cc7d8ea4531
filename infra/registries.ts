import { functions as registeredFunctions } from '@autosave/runtime/handlers';
import { compileWorkflow, toAslJson, type Workflow } from '@autosave/workflow';
import { workflows as registeredWorkflows } from '../statemachines';
import type { FunctionSpec, WorkflowSpec } from '@autosave/cdk';

/**
 * The deployable form of a workflow: compiled, in the canonical field order of `toAslJson`, without
 * the indentation (a template has 1 MB to share between all definitions).
 */
export function toWorkflowSpec(workflow: Workflow): WorkflowSpec {
  const definition = JSON.stringify(JSON.parse(toAslJson(compileWorkflow(workflow))));
  return { name: workflow.name, version: workflow.version, type: workflow.type, definition };
}

/** Every workflow of the statemachines/ registry, ready to deploy. */
export function registeredWorkflowSpecs(list: readonly Workflow[] = registeredWorkflows): WorkflowSpec[] {
  return list.map(toWorkflowSpec);
}

/** Every function of the lambdas/ registry, as the stack bundles it. */
export function registeredFunctionSpecs(): FunctionSpec[] {
  return registeredFunctions.map(({ name, entry, handler, timeoutSeconds, memoryMb, needs }) => ({ name, entry, handler, timeoutSeconds, memoryMb, needs }));
}
