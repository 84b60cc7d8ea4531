import type { Json } from './asl-types';
import type { AgentLoopStep } from './steps/agent-loop-step';
import type { ApprovalStep } from './steps/approval-step';
import type { ChoiceStep } from './steps/choice-step';
import type { ModelStep } from './steps/model-step';
import type { ToolStep } from './steps/tool-step';
import type { WaitStep } from './steps/wait-step';

/** Step Functions workflow types. */
export const WorkflowType = {
  /** Durable, exactly-once state transitions, up to a year: the default. */
  STANDARD: 'STANDARD',
  /** At most 5 minutes, at-least-once, no task tokens or redrive: only for short, step-only workflows. */
  EXPRESS: 'EXPRESS',
} as const;

/** `STANDARD` or `EXPRESS`. */
export type WorkflowType = (typeof WorkflowType)[keyof typeof WorkflowType];

/** Any step a workflow can hold. */
export type Step = ModelStep | ToolStep | ApprovalStep | WaitStep | ChoiceStep | AgentLoopStep;

/** What a workflow author declares. */
export interface WorkflowProps {
  /** State machine name: letters, digits, `-` and `_`, at most 80 characters. */
  readonly name: string;
  /**
   * Version of the workflow's code, e.g. `1.4.0`. It goes into the definition's Comment, so a new version
   * is a new definition and a new published state machine version; runs in flight keep the old one.
   */
  readonly version: string;
  /** @default WorkflowType.STANDARD */
  readonly type?: WorkflowType;
  /** One line on what the workflow does. @default none */
  readonly description?: string;
  /** An execution input that the CLI and the demo can start the workflow with. @default none */
  readonly exampleInput?: { readonly [key: string]: Json };
  /** The steps, run in list order unless a step says otherwise (`next`, `end`, choice and approval paths). */
  readonly steps: readonly Step[];
}

/** A declared workflow: its props with defaults applied. Compile it with `compileWorkflow`. */
export interface Workflow extends WorkflowProps {
  readonly type: WorkflowType;
}

/** Default workflow type. */
export const DEFAULT_WORKFLOW_TYPE: WorkflowType = WorkflowType.STANDARD;

/**
 * Declares a workflow. Declaring never throws; `compileWorkflow` checks the definition and throws a
 * `WorkflowDefinitionError` naming the workflow and the step at fault.
 */
export function defineWorkflow(props: WorkflowProps): Workflow {
  return Object.freeze({ ...props, type: props.type ?? DEFAULT_WORKFLOW_TYPE, steps: Object.freeze([...props.steps]) });
}
