import type { Json } from '../asl-types';
import { INPUT_ROOT, jsonata, recordStepResult } from '../state-data';
import {
  isRawJsonata,
  keyExpression,
  parseTemplate,
  renderValue,
  templateReferences,
  valueReferences,
  type TemplateReference,
} from '../template';
import { lambdaTask, payloadHeader } from './lambda-task';
import { WorkflowStep, type CompiledStep, type StepCompileContext, type TaskStepOptions } from './step';

/** Options of a {@link tool} step. */
export interface ToolStepOptions extends TaskStepOptions {
  /** Tool name in the tool registry, e.g. `send-email`. */
  readonly tool: string;
  /**
   * Idempotency key template, mandatory: `{siteId}:welcome`, `renewal:{contractId}:{version}`. It is
   * computed in the state machine, so every retry and redrive of this step sends the same key, and it
   * must reference the input or a step result (a constant key would let one run's side effect suppress
   * every later run's). A reference that resolves to nothing fails the step rather than shorten the key.
   */
  readonly idempotencyKey: string;
  /** The tool's input; strings are templates. @default the execution input */
  readonly input?: Json;
}

/**
 * A side effect through the tool-step Lambda, claimed under its idempotency key so that it happens once
 * across retries, crashes and redrives. Result: whatever the tool returns. The Lambda answers
 * `{result, source}` (docs/architecture.md §2); the step records only `result`, so templates and
 * conditions read the tool's own fields, while `source` (executed, replayed, reconciled) stays in the
 * history's TaskSucceeded event for `autosave history` and the console.
 */
export class ToolStep extends WorkflowStep<ToolStepOptions> {
  readonly kind = 'tool' as const;

  override references(): TemplateReference[] {
    return [...templateReferences(this.options.idempotencyKey ?? ''), ...valueReferences(this.options.input)];
  }

  override validate(fail: (reason: string) => never): void {
    const key = this.options.idempotencyKey;
    if (typeof key !== 'string' || key.trim() === '') {
      fail(`tool step '${this.name}' has no idempotency key template (e.g. '{siteId}:${this.name}')`);
    }
    if (!isRawJsonata(key) && !parseTemplate(key).some((p) => 'ref' in p)) {
      fail(`idempotency key '${key}' references nothing: every run would share it (add e.g. {siteId})`);
    }
    if (!this.options.tool) fail(`tool step '${this.name}' names no tool`);
  }

  stateNames(): string[] {
    return [this.name];
  }

  compile(context: StepCompileContext): CompiledStep {
    const o = this.options;
    const payload: Record<string, Json> = {
      ...payloadHeader(context.workflow, this.name),
      tool: o.tool,
      idempotencyKey: jsonata(keyExpression(o.idempotencyKey, this.name)),
      input: o.input === undefined ? jsonata(INPUT_ROOT) : renderValue(o.input),
    };
    const task = lambdaTask({
      step: this.name,
      functionArn: 'ToolStepFunctionArn',
      payload,
      output: recordStepResult(this.name, '$states.result.Payload.result'),
      transition: context.transition,
      retry: o,
      comment: o.comment,
    });
    return { states: { [this.name]: task } };
  }
}

/** Declares a tool step. */
export function tool(name: string, options: ToolStepOptions): ToolStep {
  return new ToolStep(name, options);
}
