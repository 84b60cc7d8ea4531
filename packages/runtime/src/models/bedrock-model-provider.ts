import {
  ConverseCommand,
  type BedrockRuntimeClient,
  type ConverseCommandOutput,
  type Message,
  type Tool,
} from '@aws-sdk/client-bedrock-runtime';
import type { DocumentType } from '@smithy/types';
import type { ConversationMessage, ModelRequest, ModelResponse, ToolCall } from './conversation';
import { BEDROCK_PERMANENT_ERRORS, ModelRequestRejectedError } from './errors';
import type { ModelProvider } from './model-provider';

/**
 * Amazon Bedrock through the Converse API. `modelId` may be a foundation model id, a cross-region
 * inference profile id (`us.`, `eu.`, `apac.`, `global.`, ...) or either's ARN; Bedrock's permanent
 * refusals become {@link ModelRequestRejectedError} (never retried), everything else keeps its name.
 */
export class BedrockModelProvider implements ModelProvider {
  readonly name = 'bedrock';

  constructor(
    private readonly client: BedrockRuntimeClient,
    private readonly defaultModelId: string,
  ) {}

  async converse(request: ModelRequest): Promise<ModelResponse> {
    const modelId = request.modelId ?? this.defaultModelId;
    const out = await this.send(
      modelId,
      new ConverseCommand({
        modelId,
        messages: request.messages.map(toBedrockMessage),
        ...(request.system ? { system: [{ text: request.system }] } : {}),
        ...(request.tools?.length
          ? {
              toolConfig: {
                tools: request.tools.map((t): Tool => ({
                  toolSpec: {
                    name: t.name,
                    description: t.description,
                    inputSchema: { json: t.inputSchema as DocumentType },
                  },
                })),
              },
            }
          : {}),
      }),
    );
    const content = out.output?.message?.content ?? [];
    const text = content.map((b) => b.text ?? '').join('');
    const toolCalls: ToolCall[] = content
      .filter((b) => b.toolUse)
      .map((b) => ({ id: b.toolUse!.toolUseId!, name: b.toolUse!.name!, input: b.toolUse!.input }));
    return {
      text,
      toolCalls,
      final: toolCalls.length === 0,
      usage: { inputTokens: out.usage?.inputTokens ?? 0, outputTokens: out.usage?.outputTokens ?? 0 },
    };
  }

  private async send(modelId: string, command: ConverseCommand): Promise<ConverseCommandOutput> {
    try {
      return await this.client.send(command);
    } catch (error) {
      const name = (error as Error | undefined)?.name ?? '';
      if (!BEDROCK_PERMANENT_ERRORS.includes(name)) throw error;
      throw new ModelRequestRejectedError(`Bedrock refused model "${modelId}" (${name}): ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}

function toBedrockMessage(message: ConversationMessage): Message {
  return {
    role: message.role,
    content: message.content.map((block) => {
      if ('text' in block) return { text: block.text };
      if ('toolUse' in block) {
        return {
          toolUse: {
            toolUseId: block.toolUse.toolUseId,
            name: block.toolUse.name,
            input: block.toolUse.input as DocumentType,
          },
        };
      }
      return {
        toolResult: {
          toolUseId: block.toolResult.toolUseId,
          // Converse wants a JSON object per result block: wrap scalars and arrays.
          content: block.toolResult.content.map((c) => ({
            json: (c.json && typeof c.json === 'object' && !Array.isArray(c.json)
              ? c.json
              : { result: c.json }) as DocumentType,
          })),
        },
      };
    }) as Message['content'],
  };
}
