import { AutosaveError } from './errors';

/**
 * A workflow that cannot compile: duplicate or unknown step names, a tool step without an idempotency
 * key, a human wait in an EXPRESS workflow, a continue-as-new interval over the history budget...
 * Thrown by {@link compileWorkflow}; the message names the workflow and, where there is one, the step.
 */
export class WorkflowDefinitionError extends AutosaveError {
  override readonly name = 'WorkflowDefinitionError' as const;

  constructor(
    /** The workflow being compiled. */
    readonly workflow: string,
    /** The step at fault, when the fault belongs to one step. */
    readonly step: string | undefined,
    /** What is wrong, without the workflow/step prefix. */
    readonly reason: string,
  ) {
    super(`Workflow '${workflow}'${step === undefined ? '' : `, step '${step}'`}: ${reason}`);
  }
}
