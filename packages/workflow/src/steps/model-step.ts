import type { Json } from '../asl-types';
import { renderString, templateReferences, type TemplateReference } from '../template';
import { lambdaTask, payloadHeader } from './lambda-task';
import { WorkflowStep, type CompiledStep, type StepCompileContext, type TaskStepOptions } from './step';

/** Options of a {@link model} step. */
export interface ModelStepOptions extends TaskStepOptions {
  /** The prompt, a template: `Draft a renewal for {customerName}: {steps.fetch-contract.terms}`. */
  readonly prompt: string;
  /** System prompt, a template. @default none (the provider's default) */
  readonly system?: string;
  /** Model to call, e.g. a Bedrock model id. @default the model-step Lambda's configured model */
  readonly modelId?: string;
}

/**
 * One model call through the model-step Lambda. The Lambda records the output under
 * `<executionArn>#<step>#0` before returning it, so a retried or redriven step gets the same text
 * back instead of a second, different generation. Result: `ModelStepResult` (docs/architecture.md §2).
 */
export class ModelStep extends WorkflowStep<ModelStepOptions> {
  readonly kind = 'model' as const;

  override references(): TemplateReference[] {
    return [this.options.prompt, this.options.system ?? ''].flatMap(templateReferences);
  }

  stateNames(): string[] {
    return [this.name];
  }

  compile(context: StepCompileContext): CompiledStep {
    const o = this.options;
    const payload: Record<string, Json> = {
      ...payloadHeader(context.workflow, this.name),
      turn: 0,
      prompt: renderString(o.prompt),
      ...(o.system === undefined ? {} : { system: renderString(o.system) }),
      ...(o.modelId === undefined ? {} : { modelId: o.modelId }),
    };
    const task = lambdaTask({
      step: this.name,
      functionArn: 'ModelStepFunctionArn',
      payload,
      transition: context.transition,
      retry: o,
      comment: o.comment,
    });
    return { states: { [this.name]: task } };
  }
}

/** Declares a model step. */
export function model(name: string, options: ModelStepOptions): ModelStep {
  return new ModelStep(name, options);
}
