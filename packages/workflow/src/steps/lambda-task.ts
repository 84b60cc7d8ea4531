import type { AslTaskState, AslTransition, Json } from '../asl-types';
import { placeholder, type PlaceholderName } from '../placeholders';
import { retryPolicy, type RetryPolicyOptions } from '../retry-policy';
import { jsonata, recordStepResult } from '../state-data';

/** The optimised Lambda integration: the result arrives as `$states.result.Payload`. */
export const LAMBDA_INVOKE = 'arn:aws:states:::lambda:invoke';
/** The callback form: the result is whatever SendTaskSuccess sends, as `$states.result`. */
export const LAMBDA_INVOKE_WAIT_FOR_TASK_TOKEN = 'arn:aws:states:::lambda:invoke.waitForTaskToken';

/** The fields that open every Lambda payload (docs/architecture.md §2). */
export function payloadHeader(workflow: string, step: string): Record<string, Json> {
  return { workflow, executionArn: jsonata('$states.context.Execution.Id'), step };
}

/** Inputs of {@link lambdaTask}. */
export interface LambdaTaskOptions {
  readonly step: string;
  readonly functionArn: PlaceholderName;
  readonly payload: Record<string, Json>;
  readonly transition: AslTransition;
  readonly retry: RetryPolicyOptions & { readonly neverRetry?: readonly string[] };
  /** @default records `$states.result.Payload` as the step's result */
  readonly output?: string;
  /** @default false */
  readonly waitForTaskToken?: boolean;
  readonly timeoutSeconds?: number;
  readonly comment?: string;
}

/** A Task state invoking one of our Lambdas, with the house retry policy. */
export function lambdaTask(o: LambdaTaskOptions): AslTaskState {
  const nonRetryableErrors = [...(o.retry.neverRetry ?? []), ...(o.retry.nonRetryableErrors ?? [])];
  return {
    Type: 'Task',
    ...(o.comment === undefined ? {} : { Comment: o.comment }),
    Resource: o.waitForTaskToken ? LAMBDA_INVOKE_WAIT_FOR_TASK_TOKEN : LAMBDA_INVOKE,
    Arguments: { FunctionName: placeholder(o.functionArn), Payload: o.payload },
    ...(o.timeoutSeconds === undefined ? {} : { TimeoutSeconds: o.timeoutSeconds }),
    Output: o.output ?? recordStepResult(o.step, '$states.result.Payload'),
    Retry: retryPolicy({ retry: o.retry.retry, nonRetryableErrors }),
    ...o.transition,
  };
}
