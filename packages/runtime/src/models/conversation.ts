/**
 * The agent loop's conversation, in the shape of Bedrock Converse messages (so the Bedrock provider maps
 * it one to one). It lives in S3 and travels by reference.
 */
export type ContentBlock =
  | { readonly text: string }
  | { readonly toolUse: { readonly toolUseId: string; readonly name: string; readonly input: unknown } }
  | { readonly toolResult: { readonly toolUseId: string; readonly content: readonly { readonly json: unknown }[] } };

/** One message of a conversation. */
export interface ConversationMessage {
  readonly role: 'user' | 'assistant';
  readonly content: readonly ContentBlock[];
}

/** A tool a model may call. */
export interface ModelToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: object;
}

/** A tool call the model asked for. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

/** Token usage of one model call. */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** What a model is asked. */
export interface ModelRequest {
  readonly modelId?: string;
  readonly system?: string;
  readonly messages: readonly ConversationMessage[];
  readonly tools?: readonly ModelToolSpec[];
}

/** What a model answered. `final` is true when it asked for no tool calls. */
export interface ModelResponse {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly final: boolean;
  readonly usage: TokenUsage;
}

/** Where in a run a model call happens: the recording key and the scripted provider's lookup key. */
export interface ModelCallSite {
  readonly workflow: string;
  readonly executionArn: string;
  readonly step: string;
  readonly turn: number;
}

/** The assistant message that records a response in the conversation. */
export function assistantMessage(response: ModelResponse): ConversationMessage {
  return {
    role: 'assistant',
    content: [
      ...(response.text ? [{ text: response.text }] : []),
      ...response.toolCalls.map((c) => ({ toolUse: { toolUseId: c.id, name: c.name, input: c.input } })),
    ],
  };
}
