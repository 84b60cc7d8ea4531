/**
 * The shape of an `autosave.config.ts` default export, checked key by key before anything runs: a wrong
 * value (`functions: 42`, a `model.script` that is not there) used to start the engine silently and fail
 * later, or never. Each check answers the first problem in words that name the key.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { inspect } from 'node:util';
import type { AutosaveConfig } from './config';

/** A value as a message quotes it: short, on one line. */
function quoted(value: unknown): string {
  return inspect(value, { depth: 1, breakLength: Infinity, maxStringLength: 60, maxArrayLength: 5 });
}

/** Whether an entry of the `functions` table is a handler, or `{ handler, timeoutSeconds?, memoryMb? }`. */
function isHandlerEntry(value: unknown): boolean {
  return (
    typeof value === 'function' ||
    (value !== null && typeof value === 'object' && typeof (value as { handler?: unknown }).handler === 'function')
  );
}

/** The first problem of a `functions` table (from the config, or from the module it names), or undefined. */
export function functionsTableProblem(table: Readonly<Record<string, unknown>>, where: string): string | undefined {
  for (const [name, value] of Object.entries(table)) {
    if (!isHandlerEntry(value))
      return `\`${where}['${name}']\` is not a Lambda handler (a function, or { handler, timeoutSeconds?, memoryMb? }); it is ${quoted(value)}`;
  }
  return undefined;
}

/**
 * The first problem of the config's `functions`, `model` and `environment` keys, or undefined.
 * `baseDir` is the config file's folder, which a relative `model.script` is taken from.
 */
export function configKeysProblem(config: AutosaveConfig, baseDir: string): string | undefined {
  const { functions, model, environment } = config as { functions?: unknown; model?: unknown; environment?: unknown };
  if (functions !== undefined && typeof functions !== 'string') {
    if (functions === null || typeof functions !== 'object' || Array.isArray(functions)) {
      return `\`functions\` must be a table of handlers ({ 'my-function': handler }) or the path of a module exporting one; it is ${quoted(functions)}`;
    }
    const problem = functionsTableProblem(functions as Record<string, unknown>, 'functions');
    if (problem) return problem;
  }
  if (model !== undefined) {
    if (model === null || typeof model !== 'object')
      return `\`model\` must be { script?: '<file>.json' }; it is ${quoted(model)}`;
    const script = (model as { script?: unknown }).script;
    if (script !== undefined) {
      if (typeof script !== 'string' || script === '')
        return `\`model.script\` must be the path of a JSON file of scripted answers, relative to the config file; it is ${quoted(script)}`;
      const file = resolve(baseDir, script);
      if (!existsSync(file))
        return `\`model.script\` names ${file}, which does not exist (a JSON file { "responses": [{ "workflow", "step", "text" }] })`;
    }
  }
  if (environment !== undefined) {
    if (environment === null || typeof environment !== 'object' || Array.isArray(environment))
      return `\`environment\` must be a table of strings ({ NAME: 'value' }); it is ${quoted(environment)}`;
    for (const [name, value] of Object.entries(environment)) {
      if (typeof value !== 'string')
        return `\`environment.${name}\` must be a string, as a Lambda function's variables are; it is ${quoted(value)}`;
    }
  }
  return undefined;
}
