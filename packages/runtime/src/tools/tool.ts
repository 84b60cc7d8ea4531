import type { ReconcileResult } from '../idempotency';

/** A JSON Schema object describing a tool's input (shown to models in the agent loop). */
export type JsonSchema = Record<string, unknown>;

/**
 * A side-effecting action a workflow step or an agent can take. Every implementation passes
 * `idempotencyKey` to its provider, so the provider itself can refuse a second action under one key.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds tools of every input type
export interface Tool<I = any, O = unknown> {
  /** The registry name (docs/architecture.md §6), e.g. `send-email`. */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  /** Performs the action. Throw ToolRejectedError for a request that can never succeed. */
  execute(input: I, idempotencyKey: string): Promise<O>;
  /**
   * Asks the provider whether an action under `idempotencyKey` already happened, and with what result.
   * Called when a step finds an expired in-progress claim (a crash between acting and recording).
   * A tool without it is at-least-once across such crashes.
   */
  reconcile?(idempotencyKey: string): Promise<ReconcileResult<O>>;
}
