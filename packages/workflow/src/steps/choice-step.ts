import type { AslChoiceState } from '../asl-types';
import { jsonata } from '../state-data';
import type { TemplateReference } from '../template';
import type { Condition } from './condition';
import { WorkflowStep, type CompiledStep, type StepCompileContext, type StepOptions } from './step';

/** One branch of a {@link choice}: the first branch whose condition holds is taken. */
export interface ChoiceBranch {
  /** When to take this branch. */
  readonly when: Condition;
  /** The step to run. */
  readonly next: string;
}

/** Options of a {@link choice} step. */
export interface ChoiceStepOptions extends Omit<StepOptions, 'next' | 'end'> {
  /** Branches, tried in order. */
  readonly branches: readonly ChoiceBranch[];
  /** Step to run when no branch matches. @default the next step in the workflow's list (or the end) */
  readonly otherwise?: string;
}

/**
 * Branch on the input or earlier results. Never fails with `States.NoChoiceMatched`: without
 * `otherwise` it falls through to the next step, because a redrive would re-evaluate the same data and
 * fail again. Records no result.
 */
export class ChoiceStep extends WorkflowStep<ChoiceStepOptions> {
  readonly kind = 'choice' as const;

  override targets(): string[] {
    return [
      ...this.options.branches.map((b) => b.next),
      ...(this.options.otherwise === undefined ? [] : [this.options.otherwise]),
    ];
  }

  override references(): TemplateReference[] {
    return this.options.branches.flatMap((b) => b.when.references);
  }

  override validate(fail: (reason: string) => never): void {
    if (this.options.branches.length === 0) fail('a choice needs at least one branch');
  }

  stateNames(): string[] {
    return [this.name];
  }

  compile(context: StepCompileContext): CompiledStep {
    const o = this.options;
    const state: AslChoiceState = {
      Type: 'Choice',
      ...(o.comment === undefined ? {} : { Comment: o.comment }),
      Choices: o.branches.map((b) => ({ Condition: jsonata(b.when.expression), Next: context.target(b.next) })),
      Default: o.otherwise === undefined ? context.following() : context.target(o.otherwise),
    };
    return { states: { [this.name]: state } };
  }
}

/** Declares a choice step. */
export function choice(name: string, options: ChoiceStepOptions): ChoiceStep {
  return new ChoiceStep(name, options);
}
