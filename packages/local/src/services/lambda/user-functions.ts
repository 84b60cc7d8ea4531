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
  return userFunctions(await loadUserFunctionTable(modulePath), modulePath);
}

/** The table `{ [functionName]: handler }` a module exports (its default export when that is an object, else its named exports). */
export async function loadUserFunctionTable(modulePath: string): Promise<Record<string, unknown>> {
  const mod = await importModule(pathToFileURL(resolve(modulePath)).href);
  const fallback = moduleDefault(mod);
  const table = fallback && typeof fallback === 'object' ? { ...(fallback as Record<string, unknown>) } : { ...mod };
  delete table.default;
  delete table.__esModule;
  return table;
}

/** What Node cannot load by itself: TypeScript (the CLI runs as a JavaScript bundle, or from an installed package). */
const TYPESCRIPT_FILE = /\.[cm]?tsx?$/;

/**
 * Imports a user's module. A TypeScript one is loaded through tsx's `tsImport`, scoped to that import
 * (nothing is registered for the rest of the process), in a CommonJS app as in an ESM one; JavaScript is
 * imported as it is. A CommonJS module's `module.exports` arrives as `default` (and its `exports.default`
 * as `default.default`, which {@link moduleDefault} unwraps).
 */
export async function importModule(url: string): Promise<Record<string, unknown>> {
  if (!TYPESCRIPT_FILE.test(new URL(url).pathname))
    return (await import(/* @vite-ignore */ url)) as Record<string, unknown>;
  const { tsImport } = await import('tsx/esm/api');
  return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
}

/** A module's default export as its author wrote it: `export default x` compiled to CommonJS is imported as `{ default: { default: x } }`. */
export function moduleDefault(mod: Record<string, unknown>): unknown {
  const value = mod.default;
  if (
    value &&
    typeof value === 'object' &&
    'default' in value &&
    (Object.keys(value).length === 1 || (value as { __esModule?: boolean }).__esModule)
  ) {
    return (value as { default: unknown }).default;
  }
  return value;
}

/** Local functions from a table `{ [functionName]: handler | { handler, timeoutSeconds?, memoryMb? } }`. */
export function userFunctions(table: Readonly<Record<string, unknown>>, source = 'functions'): LocalFunction[] {
  return Object.entries(table).map(([name, value]) => {
    const entry = value as UserFunctionExport;
    if (typeof entry === 'function')
      return { name, load: () => entry, timeoutSeconds: DEFAULT_USER_FUNCTION_TIMEOUT_SECONDS };
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
