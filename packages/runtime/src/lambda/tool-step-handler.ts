import {
  requiredToolsOf,
  runToolStep,
  toolRegistryOf,
  type ToolContext,
  type ToolList,
  type ToolRegistry,
} from '../tools';
import {
  emailProvider,
  lambdaHandler,
  ledger,
  offloadingLargeResult,
  payloadStore,
  type LambdaContextLike,
  type Runtime,
} from './runtime';

/** Options of {@link toolStepHandler}. */
export interface ToolStepHandlerOptions {
  /**
   * The tools this function implements: `defineTool(...)` values, the built-in `sendEmailTool`, or a
   * function of the {@link ToolContext} (configured email provider, actions directory) returning them.
   */
  readonly tools: ToolList;
}

/** A tool-step Lambda handler (event, context). */
export type ToolStepHandler = (event: unknown, context?: LambdaContextLike) => Promise<unknown>;

let handlers = 0;

/**
 * Where a {@link toolStepHandler} keeps its tool list on the handler, for {@link toolStepHandlerTools}. A global
 * symbol: the local engine may load a copy of this module other than the user's (sources and built files).
 */
const TOOLS = Symbol.for('autosave.toolStepHandler.tools');

/**
 * The names of the tools a handler made by {@link toolStepHandler} implements, its list made in `context` when it
 * is a function; undefined for any other handler (its tools are known only to itself). The local engine checks the
 * workflows' tools with it when it starts, as the construct does at synth with `toolStep.tools`.
 */
export function toolStepHandlerTools(handler: unknown, context: ToolContext): string[] | undefined {
  const tools = (handler as { [TOOLS]?: ToolList } | undefined)?.[TOOLS];
  if (tools === undefined) return undefined;
  return (typeof tools === 'function' ? tools(context) : tools).map((tool) => tool.name);
}

/**
 * The tool-step Lambda handler over your tools: each call claimed under its idempotency key, executed once,
 * recorded, replayed on retry (docs/architecture.md §2). Export it as `handler` from your tool-step entry
 * and name the file in the construct's `toolStep.entry`.
 *
 * When it starts it compares its tools with the names the deploy says its workflows use
 * (`AUTOSAVE_REQUIRED_TOOLS`, set by the construct) and refuses to start if one is missing: an
 * `UnknownToolError` at the function's first invocation, before any step of a run executes a tool.
 *
 * ```ts
 * export const handler = toolStepHandler({ tools: [issueRefund, lookupOrder] });
 * ```
 */
export function toolStepHandler(options: ToolStepHandlerOptions): ToolStepHandler {
  const id = `tools#${++handlers}`;
  const registryFor = (rt: Runtime): ToolRegistry =>
    rt.part(id, () =>
      toolRegistryOf(options.tools, { emailProvider: emailProvider(rt), actionsDir: rt.config.actionsDir }),
    );
  const checked = new Set<string>();
  const handler: ToolStepHandler = lambdaHandler(
    offloadingLargeResult((event: unknown, rt, context) => {
      const registry = registryFor(rt);
      // Once per required list (the environment of a Lambda container does not change; the local engine's may).
      const required = requiredToolsOf(rt.env);
      const key = required.join(',');
      if (!checked.has(key)) {
        registry.requireTools(required);
        checked.add(key);
      }
      return runToolStep({ ledger: ledger(rt), tools: registry, payloads: payloadStore(rt) }, event, {
        remainingMillis: context?.getRemainingTimeInMillis?.(),
      });
    }),
  );
  Object.defineProperty(handler, TOOLS, { value: options.tools });
  return handler;
}
