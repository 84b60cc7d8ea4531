import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import type { LambdaHandler, LocalFunction } from './lambda-runner';

/**
 * Timeout of a function from `--functions`: user handlers declare none, and Lambda's 3-second default would
 * fail slow but healthy functions, so they get a minute unless they export `{ handler, timeoutSeconds }`.
 */
export const DEFAULT_USER_FUNCTION_TIMEOUT_SECONDS = 60;

/** A user function entry: a bare handler, or a handler with its timeout and memory. */
export type UserFunctionExport = LambdaHandler | { handler: LambdaHandler; timeoutSeconds?: number; memoryMb?: number };

/** Thrown when a `--functions` module exports something that is not a handler. */
export class UserFunctionsModuleError extends Error {
  override readonly name = 'UserFunctionsModuleError';
}

/**
 * Loads user functions from a module exporting `{ [functionName]: handler }` (an object as the default export, or
 * else every named export), so any ASL that calls Lambdas can run locally.
 */
export async function loadUserFunctions(modulePath: string): Promise<LocalFunction[]> {
  const mod = await importModule(pathToFileURL(resolve(modulePath)).href);
  // A default-exported object is the table; otherwise every named export is a function.
  const table = mod.default && typeof mod.default === 'object' ? (mod.default as Record<string, unknown>) : { ...mod };
  delete table.default;
  return userFunctions(table, modulePath);
}

/**
 * Imports a module; a TypeScript one that Node cannot load by itself (the CLI runs as a JavaScript bundle)
 * gets tsx's loader registered first, only then: a JavaScript functions module never loads tsx. (Node
 * remembers the failed URL, so the module is imported again under a query.)
 */
export async function importModule(url: string): Promise<Record<string, unknown>> {
  try {
    return (await import(/* @vite-ignore */ url)) as Record<string, unknown>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;
    const { register } = await import('tsx/esm/api');
    register();
    return (await import(/* @vite-ignore */ `${url}?typescript`)) as Record<string, unknown>;
  }
}

/** Local functions from a table `{ [functionName]: handler | { handler, timeoutSeconds?, memoryMb? } }`. */
export function userFunctions(table: Readonly<Record<string, unknown>>, source = 'functions'): LocalFunction[] {
  return Object.entries(table).map(([name, value]) => {
    const entry = value as UserFunctionExport;
    if (typeof entry === 'function') return { name, load: () => entry, timeoutSeconds: DEFAULT_USER_FUNCTION_TIMEOUT_SECONDS };
    if (entry && typeof entry === 'object' && typeof entry.handler === 'function') {
      return {
        name,
        load: () => entry.handler,
        timeoutSeconds: entry.timeoutSeconds ?? DEFAULT_USER_FUNCTION_TIMEOUT_SECONDS,
        ...(entry.memoryMb !== undefined ? { memoryMb: entry.memoryMb } : {}),
      };
    }
    throw new UserFunctionsModuleError(`${source}: export '${name}' is not a Lambda handler`);
  });
}
