/**
 * The example app's own functions: they replace Autosave's built-in function of the same registry name.
 * The construct bundles each `entry` (infra/), the local engine runs each `load` as `autosave-<name>`.
 */
import { fileURLToPath } from 'node:url';

/** One function of the example app that replaces a built-in one. */
export interface ExampleFunction {
  /** Registry name of the built-in function it replaces (`tool-step`). */
  readonly name: string;
  /** Absolute path of its source (what the construct bundles). */
  readonly entry: string;
  /** Imports its handler on first use. */
  readonly load: () => Promise<(event: any, context?: any) => Promise<unknown>>;
}

/** The example's tool-step: the built-in handler over the example's tools (lib/tools). */
export const functions: readonly ExampleFunction[] = [
  { name: 'tool-step', entry: fileURLToPath(new URL('./tool-step.ts', import.meta.url)), load: async () => (await import('./tool-step')).handler },
];
