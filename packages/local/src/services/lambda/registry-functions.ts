import { functions, LOCAL_FUNCTION_PREFIX, localFunctionName } from '@autosave/runtime/handlers';
import type { LambdaHandler, LocalFunction } from './lambda-runner';

/** The function the EventBridge emulation calls when a run closes. */
export const RUN_MONITOR_FUNCTION = localFunctionName('run-monitor');
/** The function that runs the workflows' tool steps. */
export const TOOL_STEP_FUNCTION = localFunctionName('tool-step');
/** The function behind the approval pages (a Function URL on AWS). */
export const APPROVAL_ENDPOINT_FUNCTION = localFunctionName('approval-endpoint');
export { LOCAL_FUNCTION_PREFIX };

/**
 * The runtime functions of lambdas/index.ts as local functions named `autosave-<name>`, with their timeouts
 * and memory. Handler modules load on first invoke, after the local environment is set.
 */
export function registryFunctions(): LocalFunction[] {
  return functions.map((spec) => ({
    name: localFunctionName(spec.name),
    load: async () => (await spec.load()) as LambdaHandler,
    timeoutSeconds: spec.timeoutSeconds,
    memoryMb: spec.memoryMb,
  }));
}
