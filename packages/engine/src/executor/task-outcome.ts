/**
 * What one Task attempt's service call comes to, shared by the integrations (task-integrations.ts and
 * the `aws-sdk:` modules it calls, which cannot import it back).
 */

/**
 * A Task outcome: the result, or an ASL error name with its cause. `text` is the result as JSON text
 * (`JSON.stringify(value)`) when the integration had it already, so the result is not serialized again
 * for its event and its size check.
 */
export type TaskOutcome =
  | { readonly ok: true; readonly value: unknown; readonly text?: string }
  | { readonly ok: false; readonly error: string; readonly cause: string };

/** A failed outcome. */
export const failure = (error: string, cause: string): TaskOutcome => ({ ok: false, error, cause });

/** An SDK integration's error name always ends in `Exception`, even where the service's own name does not. */
export const exceptionName = (name: string): string => (name.endsWith('Exception') ? name : `${name}Exception`);
