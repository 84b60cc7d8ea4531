/**
 * `autosave.config.ts`: what the user's project runs on the local engine — its workflows, its own Lambda
 * handlers, its model script — given by value, as the construct takes them on AWS.
 */
import type { Workflow } from '@autosave/workflow';
import type { UserFunctionExport } from '../services/lambda/user-functions';

/**
 * Lambda handlers by function name. `tool-step` and `model-step` (and any other runtime function name)
 * replace the built-in handler of that function — on AWS, the construct's `toolStep`/`modelStep` entries;
 * any other name is one more function, invoked by that name.
 */
export type AutosaveFunctions = Readonly<Record<string, UserFunctionExport>>;

/** The scripted model the local engine answers model steps with (built-in model-step handler). */
export interface AutosaveModelConfig {
  /**
   * A JSON file `{ "responses": [{ "workflow"?, "step"?, "turn"?, "text"?, "toolCalls"? }] }`, relative to
   * the config file. @default none: a model step fails with `ModelScriptMissingError` naming this option
   */
  readonly script?: string;
}

/** The project's configuration: the default export of `autosave.config.ts` (or `.mts`, `.cts`, `.js`, `.mjs`, `.cjs`). */
export interface AutosaveConfig {
  /** The workflows `autosave local` deploys, each behind its `live` alias, and `compile`/`start` know. */
  readonly workflows: readonly Workflow[];
  /**
   * Your handlers, as a table or as the path of a module exporting one (its default export, or else its
   * named exports), relative to the config file. @default the built-in handlers only
   */
  readonly functions?: AutosaveFunctions | string;
  /** @default no model script */
  readonly model?: AutosaveModelConfig;
  /** More environment variables for the functions (as a Lambda function's variables). @default none */
  readonly environment?: Readonly<Record<string, string>>;
}

/** Types an `autosave.config.ts` (it returns its argument). */
export function defineConfig(config: AutosaveConfig): AutosaveConfig {
  return config;
}
