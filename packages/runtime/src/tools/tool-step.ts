import { InvalidStepInputError } from '@autosave/workflow/errors';
import { leaseFor, type IdempotencyLedger, type ReconcileResult, type RunSource } from '../idempotency';
import type { PayloadRef, PayloadStore } from '../payloads';
import type { ToolRegistry } from './tool-registry';

/** A single tool step (docs/architecture.md §2). */
export interface ToolStepEvent {
  readonly workflow: string;
  readonly executionArn: string;
  readonly step: string;
  readonly tool: string;
  readonly idempotencyKey: string;
  readonly input: unknown;
}

/** One agent-loop turn's tool calls, each with its own key. */
export interface ToolBatchEvent {
  readonly workflow: string;
  readonly executionArn: string;
  readonly step: string;
  readonly turn: number;
  readonly calls: readonly {
    readonly id: string;
    readonly tool: string;
    readonly idempotencyKey: string;
    readonly input: unknown;
  }[];
}

/**
 * What one tool call returns (docs/architecture.md §2): the tool's result and where it came from —
 * `executed` (the tool acted now), `replayed` (the ledger's stored result, no new call) or `reconciled`
 * (the provider already had a record of the action). The state machine records only `result` as the
 * step's result; `source` stays in the history's TaskSucceeded event for `autosave history` and the console.
 */
export interface ToolCallResult {
  readonly result: unknown;
  readonly source: RunSource;
}

/**
 * Room a tool's result leaves under the inline limit for its envelope (`{"result":…,"source":"reconciled"}`
 * adds 32 bytes): a result that only just fits would otherwise push the envelope over the limit, and the
 * handler would offload the whole result instead of its largest values.
 */
export const TOOL_RESULT_ENVELOPE_BYTES = 64;

/** One call of a batch, in call order. */
export interface ToolBatchEntry extends ToolCallResult {
  readonly id: string;
  readonly name: string;
}

/** Result of a batch: one entry per call, in call order. */
export interface ToolBatchResult {
  /** In call order; a reference to the array when the batch is over the inline limit. */
  readonly results: ToolBatchEntry[] | PayloadRef;
}

/** What a tool step needs. */
export interface ToolStepDeps {
  readonly ledger: IdempotencyLedger;
  readonly tools: ToolRegistry;
  readonly payloads: PayloadStore;
}

/** Per-invocation options of a tool step. */
export interface ToolStepOptions {
  /**
   * The invocation's remaining time (Lambda context) when the step starts: the claim's lease follows it,
   * and the tool does not act once it has run out. @default unknown
   */
  readonly remainingMillis?: number;
}

/** Options of one {@link runToolCall}. */
export interface ToolCallOptions extends ToolStepOptions {
  /**
   * The asking run's execution ARN, the ledger's `owner`: a key COMPLETED by another execution means the
   * run was restarted from scratch instead of being redriven. @default none (never counted as a restart)
   */
  readonly executionArn?: string;
}

/**
 * Runs one tool call exactly once per key: claim → if the claim took over an expired in-progress claim,
 * reconcile with the provider and act only if it has no record → execute → complete. Inputs may hold
 * payload references (resolved and hash-checked); a result over the inline limit has its largest values
 * stored by reference ({@link PayloadStore.shrinkToFit}), and it is that shrunk result the ledger keeps.
 * Resolves to the result and its source (the ledger's), so the history can tell a replay from a new call.
 */
export async function runToolCall(
  deps: ToolStepDeps,
  call: { readonly tool: string; readonly idempotencyKey: string; readonly input: unknown },
  options: ToolCallOptions = {},
): Promise<ToolCallResult> {
  const tool = deps.tools.get(call.tool);
  const key = call.idempotencyKey;
  const input = await deps.payloads.resolveDeep(call.input);
  const reconcile = tool.reconcile?.bind(tool);
  const fit = { reserveBytes: TOOL_RESULT_ENVELOPE_BYTES };
  const deadlineMillis = options.remainingMillis === undefined ? undefined : Date.now() + options.remainingMillis;
  const { result, source } = await deps.ledger.run({
    key,
    // Hash what the state machine sent (references are content-addressed, so they hash stably).
    payload: { tool: call.tool, input: call.input },
    leaseMillis: leaseFor(options.remainingMillis),
    deadlineMillis,
    owner: options.executionArn,
    act: async () => deps.payloads.shrinkToFit(await tool.execute(input, key), fit),
    ...(reconcile && {
      reconcile: async (): Promise<ReconcileResult<unknown>> => {
        const known = await reconcile(key);
        return known.found ? { found: true, result: await deps.payloads.shrinkToFit(known.result, fit) } : known;
      },
    }),
  });
  return { result, source };
}

/**
 * Runs a single tool step (resolves to a {@link ToolCallResult} envelope) or an agent-loop batch (a
 * {@link ToolBatchResult}; calls run concurrently; a failed call fails the batch, the others replay on retry).
 * The envelope stays inline: the tool's result was already shrunk to fit, by reference inside `result`.
 */
export async function runToolStep(
  deps: ToolStepDeps,
  event: unknown,
  options: ToolStepOptions = {},
): Promise<ToolCallResult | ToolBatchResult | PayloadRef> {
  if (isBatch(event)) {
    const callOptions = { ...options, executionArn: event.executionArn };
    const results = await Promise.all(
      event.calls.map(async (call): Promise<ToolBatchEntry> => ({
        id: call.id,
        name: call.tool,
        ...(await runToolCall(deps, call, callOptions)),
      })),
    );
    // The machine reads `results` inline; if the batch is too large, the results travel by reference.
    return deps.payloads.shrinkToFit<ToolBatchResult>({ results });
  }
  const single = parseSingle(event);
  return runToolCall(deps, single, { ...options, executionArn: single.executionArn });
}

function isBatch(event: unknown): event is ToolBatchEvent {
  if (!event || typeof event !== 'object' || !('calls' in event)) return false;
  const calls = (event as ToolBatchEvent).calls;
  if (
    !Array.isArray(calls) ||
    calls.some(
      (c) => !c || typeof c.tool !== 'string' || typeof c.idempotencyKey !== 'string' || typeof c.id !== 'string',
    )
  ) {
    throw new InvalidStepInputError('A tool batch needs calls: [{id, tool, idempotencyKey, input}]');
  }
  return true;
}

function parseSingle(event: unknown): ToolStepEvent {
  const e = event as Partial<ToolStepEvent> | null;
  if (!e || typeof e.tool !== 'string' || typeof e.idempotencyKey !== 'string' || e.idempotencyKey === '') {
    throw new InvalidStepInputError('A tool step needs {tool, idempotencyKey, input}');
  }
  return e as ToolStepEvent;
}
