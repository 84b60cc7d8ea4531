import { InvalidStepInputError } from '@autosave/workflow/errors';
import type { PayloadRef, PayloadStore } from '../payloads';
import {
  assistantMessage,
  type ConversationMessage,
  type ModelToolSpec,
  type TokenUsage,
  type ToolCall,
} from './conversation';
import type { RecordedModelCall } from './recorded-model-call';

/** The model-step Lambda's event (docs/architecture.md §2). */
export interface ModelStepEvent {
  readonly workflow: string;
  readonly executionArn: string;
  readonly step: string;
  /** 0 for a plain model step; the agent-loop turn otherwise. */
  readonly turn: number;
  readonly prompt: string;
  readonly system?: string;
  readonly modelId?: string;
  /** Agent loop only. */
  readonly tools?: readonly ModelToolSpec[];
  /** Agent loop: the conversation so far (always by reference). */
  readonly conversation?: PayloadRef | null;
  /** Agent loop: the previous turn's tool results (possibly by reference). */
  readonly toolResults?:
    readonly { readonly id: string; readonly name: string; readonly result: unknown }[] | PayloadRef;
}

/** The model-step Lambda's result. */
export interface ModelStepResult {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly final: boolean;
  readonly usage: TokenUsage;
  /** Agent loop: the conversation including this turn's answer. */
  readonly conversation?: PayloadRef;
  readonly replayed: boolean;
}

/** What a model step needs. */
export interface ModelStepDeps {
  readonly model: RecordedModelCall;
  readonly payloads: PayloadStore;
}

/**
 * One model turn: rebuild the conversation (from its reference, plus the prompt on the first turn and
 * the previous turn's tool results), make the recorded model call, and store the extended conversation
 * by reference. Content addressing makes a replayed turn produce the same conversation reference.
 */
export async function runModelStep(deps: ModelStepDeps, raw: unknown): Promise<ModelStepResult> {
  const event = parseModelStepEvent(raw);
  const agentLoop = Boolean(event.tools?.length || event.conversation);
  const messages: ConversationMessage[] = event.conversation
    ? [...(await deps.payloads.resolve<ConversationMessage[]>(event.conversation))]
    : [];
  if (messages.length === 0) messages.push({ role: 'user', content: [{ text: event.prompt }] });
  // Tool results may come inline, with references inside, or as one reference (a large batch).
  const results = await deps.payloads.resolveDeep<{ id: string; name: string; result: unknown }[]>(
    event.toolResults ?? [],
  );
  if (results.length) {
    messages.push({
      role: 'user',
      content: results.map((r) => ({ toolResult: { toolUseId: r.id, content: [{ json: r.result }] } })),
    });
  }
  const { response, replayed } = await deps.model.call(
    { workflow: event.workflow, executionArn: event.executionArn, step: event.step, turn: event.turn },
    {
      messages,
      ...(event.system && { system: event.system }),
      ...(event.modelId && { modelId: event.modelId }),
      ...(event.tools && { tools: event.tools }),
    },
  );
  const result: ModelStepResult = { ...response, replayed };
  if (!agentLoop) return result;
  return { ...result, conversation: await deps.payloads.put([...messages, assistantMessage(response)]) };
}

function parseModelStepEvent(raw: unknown): ModelStepEvent {
  const e = raw as Partial<ModelStepEvent> | null;
  if (
    !e ||
    typeof e.executionArn !== 'string' ||
    typeof e.step !== 'string' ||
    typeof e.prompt !== 'string' ||
    !Number.isInteger(e.turn ?? 0)
  ) {
    throw new InvalidStepInputError('A model step needs {workflow, executionArn, step, turn, prompt}');
  }
  return { ...e, workflow: e.workflow ?? '', turn: e.turn ?? 0 } as ModelStepEvent;
}
