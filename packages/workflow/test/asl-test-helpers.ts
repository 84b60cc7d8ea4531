import { createRequire } from 'node:module';
import jsonata from 'jsonata';
import type { AslDefinition, AslState, AslTaskState } from '@autosave/workflow';

const require = createRequire(import.meta.url);

interface AslValidationResult {
  readonly isValid: boolean;
  errorsText(separator?: string): string;
}
// asl-validator 4.0.0 is CommonJS without types: `module.exports = function validator(definition, opts)`.
const aslValidator = require('asl-validator') as (
  definition: unknown,
  options?: { checkPaths?: boolean; checkArn?: boolean },
) => AslValidationResult;

/** Validates a definition with asl-validator (on a deep copy: the validator writes into its input). */
export function validateAsl(definition: AslDefinition): AslValidationResult {
  return aslValidator(structuredClone(definition));
}

/** Every Task state of a definition, with its name. */
export function taskStates(definition: AslDefinition): [string, AslTaskState][] {
  return Object.entries(definition.States).filter((e): e is [string, AslTaskState] => e[1].Type === 'Task');
}

/** One state, typed by its `Type`. */
export function stateOf<T extends AslState['Type']>(
  definition: AslDefinition,
  name: string,
  type: T,
): Extract<AslState, { Type: T }> {
  const state = definition.States[name];
  if (!state) throw new Error(`no state '${name}' in ${Object.keys(definition.States).join(', ')}`);
  if (state.Type !== type) throw new Error(`state '${name}' is a ${state.Type}, not a ${type}`);
  return state as Extract<AslState, { Type: T }>;
}

/** The `$states` binding a JSONata field sees in Step Functions. */
export interface StatesBinding {
  readonly input: unknown;
  readonly result?: unknown;
  readonly context?: unknown;
}

/** Evaluates an ASL `{% ... %}` string with the `jsonata` package, as Step Functions would. */
export async function evaluateField(field: unknown, states: StatesBinding): Promise<unknown> {
  if (typeof field !== 'string' || !field.startsWith('{%') || !field.endsWith('%}')) {
    throw new Error(`not a JSONata field: ${JSON.stringify(field)}`);
  }
  return jsonata(field.slice(2, -2)).evaluate({}, { states });
}
