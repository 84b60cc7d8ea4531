import type { ReconcileResult } from '../idempotency';
import { ToolDefinitionError } from './errors';
import type { JsonSchema, Tool } from './tool';

/**
 * A tool name: what Bedrock Converse accepts as a tool name (`[a-zA-Z0-9_-]`, 1 to 64 characters), since
 * an agent loop hands every tool to the model under its name.
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** The input schema of a tool that declares none: any JSON object. */
export const DEFAULT_TOOL_INPUT_SCHEMA: JsonSchema = Object.freeze({ type: 'object' });

/** What {@link defineTool} takes: a {@link Tool} whose description and input schema may be left out. */
export interface ToolDefinition<I, O> {
  /** The name workflows use (`tool('x', { tool: '<name>' })`, agent-loop tools). {@link TOOL_NAME_PATTERN}. */
  readonly name: string;
  /** What the tool does, in a line (shown to the model in an agent loop). @default the name */
  readonly description?: string;
  /** JSON Schema of the input (shown to the model in an agent loop). @default {@link DEFAULT_TOOL_INPUT_SCHEMA} */
  readonly inputSchema?: JsonSchema;
  /**
   * Performs the action, once per `idempotencyKey` as far as the ledger can tell: pass the key on to the
   * provider (an `Idempotency-Key` header, a client token) so it can refuse a second action under it too.
   * Throw `ToolRejectedError` for a request that can never succeed (not retried).
   */
  execute(input: I, idempotencyKey: string): Promise<O>;
  /**
   * Asks the provider whether an action under `idempotencyKey` already happened, and its result. Called
   * when a step finds an expired in-progress claim (a crash between acting and recording). Without it the
   * tool acts again in that case (at-least-once across such crashes). @default none
   */
  reconcile?(idempotencyKey: string): Promise<ReconcileResult<O>>;
}

/**
 * Declares a tool for `toolStepHandler({ tools })`: typed input and output, `execute` and an optional
 * `reconcile` (see {@link Tool}). Checks the declaration now, so a bad one fails where it is written.
 *
 * ```ts
 * export const issueRefund = defineTool({
 *   name: 'issue-refund',
 *   description: 'Refunds an order.',
 *   inputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
 *   execute: async (input: { orderId: string }, key) => payments.refund(input.orderId, { idempotencyKey: key }),
 *   reconcile: async (key) => { const r = await payments.findRefund(key); return r ? { found: true, result: r } : { found: false }; },
 * });
 * ```
 * @throws ToolDefinitionError for a name Bedrock refuses or a missing `execute`
 */
export function defineTool<I, O>(definition: ToolDefinition<I, O>): Tool<I, O> {
  const { name } = definition;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw new ToolDefinitionError(
      `Tool name ${JSON.stringify(name)} must be 1 to 64 letters, digits, '-' or '_' (what Bedrock accepts as a tool name)`,
    );
  }
  if (typeof definition.execute !== 'function')
    throw new ToolDefinitionError(`Tool "${name}" has no execute(input, idempotencyKey) function`);
  if (definition.reconcile !== undefined && typeof definition.reconcile !== 'function') {
    throw new ToolDefinitionError(`Tool "${name}": reconcile must be a function (idempotencyKey) => { found, result }`);
  }
  const reconcile = definition.reconcile?.bind(definition);
  return Object.freeze({
    name,
    description: definition.description ?? name,
    inputSchema: definition.inputSchema ?? DEFAULT_TOOL_INPUT_SCHEMA,
    execute: definition.execute.bind(definition),
    ...(reconcile && { reconcile }),
  });
}
