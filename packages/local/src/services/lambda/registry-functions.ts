import { functions, LOCAL_FUNCTION_PREFIX, localFunctionName } from '@autosave/runtime/handlers';
import type { LambdaHandler, LocalFunction } from './lambda-runner';

/** The function the EventBridge emulation calls when a run closes. */
export const RUN_MONITOR_FUNCTION = localFunctionName('run-monitor');
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

/**
 * An app's own versions of registry functions (its tool-step over its tools), as local functions under the
 * registry's names, timeouts and memory: listed after {@link registryFunctions}, they replace the built-in ones.
 */
export function replacingFunctions(own: readonly { readonly name: string; readonly load: () => Promise<unknown> }[]): LocalFunction[] {
  return own.map((fn) => {
    const spec = functions.find((f) => f.name === fn.name);
    if (!spec) throw new Error(`"${fn.name}" is not a registry function; known: ${functions.map((f) => f.name).join(', ')}`);
    return { name: localFunctionName(spec.name), load: async () => (await fn.load()) as LambdaHandler, timeoutSeconds: spec.timeoutSeconds, memoryMb: spec.memoryMb };
  });
}
