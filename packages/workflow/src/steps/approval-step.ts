import { DEFAULT_APPROVAL_TIMEOUT_SECONDS, seconds, type Duration } from '../config';
import { StatesError } from '../errors';
import type { AslChoiceState, AslTaskState, Json } from '../asl-types';
import { jsonata, recordStepResult, stepResult } from '../state-data';
import { renderString, renderValue, templateReferences, valueReferences, type TemplateReference } from '../template';
import { lambdaTask, payloadHeader } from './lambda-task';
import { WorkflowStep, type CompiledStep, type StepCompileContext, type TaskStepOptions } from './step';

/** Default approval timeout (7 days), from lib/config. */
export const DEFAULT_APPROVAL_TIMEOUT: Duration = seconds(DEFAULT_APPROVAL_TIMEOUT_SECONDS);

/** Suffix of the Choice state that routes an approval's decision. */
export const APPROVAL_DECISION_SUFFIX = '-decision';

/** Options of an {@link approval} step. */
export interface ApprovalStepOptions extends TaskStepOptions {
  /** What the approver is asked, a template: `Approve {siteName} ({siteId})?`. */
  readonly title: string;
  /** What the approver sees below the title; strings are templates. @default the execution input */
  readonly details?: Json;
  /** Who may decide (e-mail addresses; templates). @default anyone holding the link */
  readonly approvers?: readonly string[];
  /**
   * How long to wait for a decision. On AWS this is the callback Task's `TimeoutSeconds`; the link
   * expires with it. @default DEFAULT_APPROVAL_TIMEOUT (7 days)
   */
  readonly timeout?: Duration;
  /** Step to run when the approver rejects. @default end the workflow (successfully: a rejection is a decision, not a fault) */
  readonly onRejected?: string;
  /**
   * Step to run when nobody decides in time. @default fail the run at the approval step, so that a
   * redrive asks again with a new token (a timed-out token cannot be revived)
   */
  readonly onTimeout?: string;
}

/**
 * A human decision: the approval-request Lambda is invoked with `.waitForTaskToken`, stores the token
 * and sends a signed link; the run waits (no compute) until SendTaskSuccess delivers
 * `{approved, by, at, comment}`, recorded as the step's result. A Choice then sends `approved: true` on
 * and anything else to the rejection path. The approval never retries `States.Timeout` /
 * `States.HeartbeatTimeout`: those take the timeout path.
 */
export class ApprovalStep extends WorkflowStep<ApprovalStepOptions> {
  readonly kind = 'approval' as const;

  override expressRestriction(): string {
    return 'an approval waits for a task token, which EXPRESS workflows do not support';
  }

  override targets(): string[] {
    return [this.options.onRejected, this.options.onTimeout].filter((t): t is string => t !== undefined);
  }

  override references(): TemplateReference[] {
    return [
      ...templateReferences(this.options.title),
      ...valueReferences(this.options.details),
      ...(this.options.approvers ?? []).flatMap(templateReferences),
    ];
  }

  override validate(fail: (reason: string) => never): void {
    const t = this.timeoutSeconds();
    if (!Number.isInteger(t) || t < 1) fail(`approval timeout must be a whole number of seconds >= 1, got ${t}`);
  }

  /** Name of the Choice state that routes the decision. */
  get decisionState(): string {
    return this.name + APPROVAL_DECISION_SUFFIX;
  }

  stateNames(): string[] {
    return [this.name, this.decisionState];
  }

  private timeoutSeconds(): number {
    return (this.options.timeout ?? DEFAULT_APPROVAL_TIMEOUT).seconds;
  }

  compile(context: StepCompileContext): CompiledStep {
    const o = this.options;
    const timeoutSeconds = this.timeoutSeconds();
    const payload: Record<string, Json> = {
      ...payloadHeader(context.workflow, this.name),
      taskToken: jsonata('$states.context.Task.Token'),
      timeoutSeconds,
      // The link expires with the wait, on the engine's clock (a virtual one too), not the Lambda's.
      requestedAt: jsonata('$states.context.State.EnteredTime'),
      title: renderString(o.title),
      details: o.details === undefined ? jsonata('$states.input.input') : renderValue(o.details),
      ...(o.approvers === undefined ? {} : { approvers: o.approvers.map((a) => renderString(a)) }),
    };
    const request: AslTaskState = {
      ...lambdaTask({
        step: this.name,
        functionArn: 'ApprovalRequestFunctionArn',
        payload,
        waitForTaskToken: true,
        timeoutSeconds,
        // SendTaskSuccess output is the result itself, not a Lambda response envelope.
        output: recordStepResult(this.name, '$states.result'),
        transition: { Next: this.decisionState },
        retry: { ...o, neverRetry: [StatesError.Timeout, StatesError.HeartbeatTimeout] },
        comment: o.comment,
      }),
      ...(o.onTimeout === undefined
        ? {}
        : {
            Catch: [
              {
                ErrorEquals: [StatesError.Timeout, StatesError.HeartbeatTimeout],
                Next: context.target(o.onTimeout),
                Output: recordStepResult(this.name, '{"approved": false, "timedOut": true}'),
              },
            ],
          }),
    };
    const decision: AslChoiceState = {
      Type: 'Choice',
      Choices: [{ Condition: jsonata(`${stepResult(this.name)}.approved = true`), Next: context.following() }],
      Default: o.onRejected === undefined ? context.done() : context.target(o.onRejected),
    };
    return { states: { [this.name]: request, [this.decisionState]: decision } };
  }
}

/** Declares an approval step. */
export function approval(name: string, options: ApprovalStepOptions): ApprovalStep {
  return new ApprovalStep(name, options);
}
