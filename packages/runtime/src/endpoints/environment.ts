/**
 * The environment a handler reads its configuration from. On AWS that is `process.env`: each Lambda
 * function has a process of its own. The local engine runs every function in one process (and, under the
 * test environment, inside the user's test process), so it gives each invocation the function's
 * environment in an asynchronous scope instead of writing it into `process.env`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * One scope for the whole process, kept on `globalThis`: an app that loads this package twice (its
 * CommonJS build from a jest test, its ESM build from the engine) still shares it.
 */
const SCOPE_KEY = Symbol.for('@autosave/runtime.environment');
const scope: AsyncLocalStorage<NodeJS.ProcessEnv> = ((globalThis as Record<symbol, unknown>)[SCOPE_KEY] ??=
  new AsyncLocalStorage<NodeJS.ProcessEnv>()) as AsyncLocalStorage<NodeJS.ProcessEnv>;

/** Where {@link setProcessRuntimeEnvironment} keeps its environment, on `globalThis` for the same reason. */
const PROCESS_ENVIRONMENT_KEY = Symbol.for('@autosave/runtime.processEnvironment');
const globals = globalThis as Record<symbol, NodeJS.ProcessEnv | undefined>;

/**
 * The environment of the invocation in progress: the scope's when a local engine set one, else the process's
 * runtime environment when a local engine set that, else `process.env`.
 */
export function runtimeEnvironment(): NodeJS.ProcessEnv {
  return scope.getStore() ?? globals[PROCESS_ENVIRONMENT_KEY] ?? process.env;
}

/**
 * Makes `env` the runtime's environment for everything this process runs outside a scope, leaving `process.env`
 * alone; `undefined` removes it. For a process that runs one local engine and nothing else (`autosave local`):
 * the first {@link withRuntimeEnvironment} turns on an async hook that every promise of the process then pays
 * for, for good (Node 20's AsyncLocalStorage), which was a fifth of the engine's CPU through its API.
 */
export function setProcessRuntimeEnvironment(env: NodeJS.ProcessEnv | undefined): void {
  globals[PROCESS_ENVIRONMENT_KEY] = env;
}

/** Runs `fn` (and everything it awaits) with `env` as the runtime's environment, leaving `process.env` alone. */
export function withRuntimeEnvironment<T>(env: NodeJS.ProcessEnv, fn: () => T): T {
  return scope.run(env, fn);
}
