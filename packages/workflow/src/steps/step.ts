import type { AslStates, AslTransition } from '../asl-types';
import type { RetryPolicyOptions } from '../retry-policy';
import type { TemplateReference } from '../template';

/** The kinds of step a workflow is made of; one module per kind in this folder. */
export type StepKind = 'model' | 'tool' | 'approval' | 'wait' | 'choice' | 'agentLoop';

/** Options every step takes. */
export interface StepOptions {
  /** The step to run after this one. @default the next step in the workflow's list */
  readonly next?: string;
  /** End the workflow after this step (for the last step of a branch). @default false; the last step of the list always ends */
  readonly end?: boolean;
  /** Shown as the state's `Comment`. @default none */
  readonly comment?: string;
}

/** Options of steps that run a Task: the retry policy on top of {@link StepOptions}. */
export interface TaskStepOptions extends StepOptions, RetryPolicyOptions {}

/** What a step sees of the workflow while it compiles. */
export interface StepCompileContext {
  /** The workflow's name (goes into every Lambda payload). */
  readonly workflow: string;
  /** How the step's last state goes on: to the following step, or end. */
  readonly transition: AslTransition;
  /** The state after the step, for states that must name one (a Choice cannot end): the next step or `Done`. */
  following(): string;
  /** The entry state of another step (a jump target). */
  target(step: string): string;
  /** The workflow's shared `Done` Succeed state (emitted once when some step uses it). */
  done(): string;
}

/** The states a step compiles to, entry state first (its name is the step's name). */
export interface CompiledStep {
  readonly states: AslStates;
  /**
   * For loops: the states one iteration passes through, and how many iterations one execution may
   * plan (the history budget multiplies the first by the second).
   */
  readonly loop?: { readonly states: readonly string[]; readonly iterations: number };
}

/**
 * Base of every step. A step is plain data plus the knowledge of how to compile itself; the workflow
 * compiler does the cross-step checks (names, targets, references) through the hooks below.
 */
export abstract class WorkflowStep<O extends StepOptions = StepOptions> {
  /** Which kind of step this is. */
  abstract readonly kind: StepKind;

  constructor(
    /** Unique within the workflow; also the name of the step's entry state and its key in `steps`. */
    readonly name: string,
    /** The options the step was declared with. */
    readonly options: O,
  ) {}

  /** Why the step cannot run in an EXPRESS workflow (callback, timer, continue-as-new), or undefined. */
  expressRestriction(): string | undefined {
    return undefined;
  }

  /** Steps this step may jump to besides its next one. */
  targets(): string[] {
    return [];
  }

  /** Every template reference the step uses; references to steps must name earlier steps. */
  references(): TemplateReference[] {
    return [];
  }

  /** Step-local checks; `fail` throws a WorkflowDefinitionError naming the workflow and this step. */
  validate(fail: (reason: string) => never): void {
    void fail;
  }

  /** State names this step emits besides its entry state (checked for clashes). */
  abstract stateNames(): string[];

  /** The ASL states of the step. */
  abstract compile(context: StepCompileContext): CompiledStep;
}
