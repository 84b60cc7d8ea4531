import type { LambdaInvoker } from '@autosave/engine';

/** Retries of an asynchronous Lambda invocation whose function fails (AWS: two, then the event is dropped). */
export const ASYNC_LAMBDA_RETRIES = 2;

/** How an asynchronous invocation ended. */
export type AsyncInvokeOutcome =
  { readonly delivered: true } | { readonly delivered: false; readonly attempts: number; readonly detail: unknown };

/**
 * Invokes a function the way Lambda runs an asynchronous invocation (an SNS subscription, an EventBridge
 * target): a function error or a failed invoke is retried twice, and then the event is dropped, as Lambda
 * drops it without an on-failure destination. `stopping` ends the retries by throwing, so that a caller
 * whose engine is shutting down keeps the event and delivers it at the next start.
 */
export async function invokeAsynchronously(
  invoke: LambdaInvoker,
  functionArn: string,
  payload: unknown,
  stopping: () => boolean = () => false,
): Promise<AsyncInvokeOutcome> {
  let detail: unknown;
  for (let attempt = 0; attempt <= ASYNC_LAMBDA_RETRIES; attempt++) {
    try {
      const result = await invoke({ functionName: functionArn, payload });
      if (!result.functionError) return { delivered: true };
      detail = result.payload;
    } catch (err) {
      detail = err;
    }
    if (stopping()) throw new Error(`${functionArn} failed while the engine stopped`);
  }
  return { delivered: false, attempts: ASYNC_LAMBDA_RETRIES + 1, detail };
}
