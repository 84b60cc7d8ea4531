/**
 * `bedrock:invokeModel` on the engine's model provider: scripted by default (the runtime's
 * ScriptedModelProvider and its script file, `AUTOSAVE_MODEL_SCRIPT`), real Bedrock when configured
 * (`AUTOSAVE_MODEL_PROVIDER=bedrock`: the request goes to Bedrock's InvokeModel unchanged, through the
 * pass-through). A scripted answer is looked up by workflow (the state machine's name), step (the Task
 * state's name) and turn 0, and written in the family format the request was in: Anthropic Messages
 * (`messages` + `anthropic_version`), Amazon Titan Text (`inputText`), Amazon Nova / Converse-style
 * (`messages` with `{text}` blocks), or a plain `prompt` (Llama, Mistral, Cohere).
 */
import { ScriptedModelProvider, type ModelProvider, type ModelRequest, type ModelResponse } from '@autosave/runtime/models';
import { ServiceFault, type ModelInvocation, type ModelInvoker, type PassThrough, type TaskCallContext } from '../../engine';

/** Options of {@link LocalModels}. */
export type LocalModelsOptions =
  /** `scriptFile` absent: the runtime's unconfigured script, which answers no step (each call fails, saying so). */
  | { readonly provider: 'scripted'; readonly scriptFile?: string }
  | { readonly provider: 'bedrock'; readonly passThrough: PassThrough };

type Body = Record<string, unknown>;

/** The text of a message's content: a string, or `{type:'text', text}` / `{text}` blocks. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string' ? (b as { text: string }).text : '')).join('');
}

/** The request as the scripted provider reads it. */
function modelRequest(modelId: string, body: Body): ModelRequest {
  if (Array.isArray(body.messages)) {
    const system = typeof body.system === 'string' ? body.system : Array.isArray(body.system) ? contentText(body.system) : undefined;
    return {
      modelId,
      ...(system ? { system } : {}),
      messages: (body.messages as { role?: string; content?: unknown }[]).map((m) => ({ role: m.role === 'assistant' ? 'assistant' : 'user', content: [{ text: contentText(m.content) }] })),
    };
  }
  const prompt = typeof body.inputText === 'string' ? body.inputText : typeof body.prompt === 'string' ? body.prompt : typeof body.message === 'string' ? body.message : JSON.stringify(body);
  return { modelId, messages: [{ role: 'user', content: [{ text: prompt }] }] };
}

/** A scripted answer in the format of the family the request was written for. */
function familyAnswer(modelId: string, body: Body, r: ModelResponse): Body {
  const usage = r.usage;
  if (Array.isArray(body.messages) && (typeof body.anthropic_version === 'string' || modelId.includes('anthropic.'))) {
    return {
      id: `msg_local_${modelId.length}${usage.outputTokens}`,
      type: 'message',
      role: 'assistant',
      model: modelId,
      content: [{ type: 'text', text: r.text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
    };
  }
  if (Array.isArray(body.messages)) {
    return {
      output: { message: { role: 'assistant', content: [{ text: r.text }] } },
      stopReason: 'end_turn',
      usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.inputTokens + usage.outputTokens },
    };
  }
  if (typeof body.inputText === 'string') {
    return { inputTextTokenCount: usage.inputTokens, results: [{ tokenCount: usage.outputTokens, outputText: r.text, completionReason: 'FINISH' }] };
  }
  return { generation: r.text, prompt_token_count: usage.inputTokens, generation_token_count: usage.outputTokens, stop_reason: 'stop' };
}

export class LocalModels implements ModelInvoker {
  private scripted?: ModelProvider;

  constructor(private readonly options: LocalModelsOptions) {}

  async invokeModel(request: ModelInvocation, context: TaskCallContext): Promise<{ body: unknown; contentType: string }> {
    if (this.options.provider === 'bedrock') {
      const out = await this.options.passThrough.call('bedrockruntime', 'InvokeModel', {
        modelId: request.modelId,
        body: JSON.stringify(request.body),
        contentType: request.contentType ?? 'application/json',
        accept: request.accept ?? 'application/json',
      });
      const text = out.body instanceof Uint8Array ? Buffer.from(out.body).toString('utf8') : String(out.body);
      return { body: JSON.parse(text) as unknown, contentType: String(out.contentType ?? 'application/json') };
    }
    const body = (request.body ?? {}) as Body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ServiceFault('ValidationException', 'The provided request body is not valid JSON for the model', 400);
    this.scripted ??= this.options.scriptFile ? ScriptedModelProvider.fromFile(this.options.scriptFile) : ScriptedModelProvider.unconfigured();
    const workflow = context.stateMachineArn.slice(context.stateMachineArn.lastIndexOf(':') + 1);
    let response: ModelResponse;
    try {
      response = await this.scripted.converse(modelRequest(request.modelId, body), { workflow, executionArn: context.executionArn, step: context.state, turn: 0 });
    } catch (err) {
      throw new ServiceFault('ValidationException', (err as Error).message, 400);
    }
    return { body: familyAnswer(request.modelId, body, response), contentType: 'application/json' };
  }
}
