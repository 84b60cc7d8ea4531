/**
 * The request and response bodies of each Bedrock model family, as InvokeModel takes and returns them (Amazon
 * Bedrock user guide, "Inference request parameters and response fields for foundation models",
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters.html, one page per family, named on
 * each family below). Bedrock picks the format by model id, never by the body's look, and so does this table:
 * a scripted answer to an `anthropic.` model is an Anthropic body, to a `cohere.command-text` model a Cohere
 * Command body. Text families read the prompt from the request and answer the script's text; embedding and
 * image families answer a deterministic vector or image of the documented shape, since a script of texts has
 * nothing to say to them.
 */
import { createHash } from 'node:crypto';
import type { ModelRequest, ModelResponse } from '@autosave/runtime/models';

/** A request or response body. */
export type Body = Record<string, unknown>;

/** A family whose answer is text: its request's prompt, and its response body around the scripted text. */
export interface TextFamily {
  readonly kind: 'text';
  readonly name: string;
  /** The conversation the request carries, as the scripted provider reads it. */
  request(modelId: string, body: Body): ModelRequest;
  /** The response body with the scripted answer in it. */
  answer(modelId: string, body: Body, response: ModelResponse): Body;
}

/** A family whose answer is data made from the request (an embedding, an image). */
export interface SyntheticFamily {
  readonly kind: 'synthetic';
  readonly name: string;
  answer(modelId: string, body: Body): Body;
}

export type ModelFamily = TextFamily | SyntheticFamily;

/** The text of a message's content: a string, or `{type:'text', text}` / `{text}` blocks. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) =>
      b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string'
        ? (b as { text: string }).text
        : '',
    )
    .join('');
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A request of `messages` (roles user/assistant), with a system prompt as a string or text blocks. */
function messagesRequest(modelId: string, body: Body): ModelRequest {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as { role?: string; content?: unknown }[];
  const systemMessages = messages.filter((m) => m.role === 'system').map((m) => contentText(m.content));
  const system = [typeof body.system === 'string' ? body.system : contentText(body.system), ...systemMessages]
    .filter(Boolean)
    .join('\n');
  return {
    modelId,
    ...(system ? { system } : {}),
    messages: messages
      .filter((m) => m.role !== 'system')
      .map((m) => ({
        role: m.role === 'assistant' ? 'assistant' : 'user',
        content: [{ text: contentText(m.content) }],
      })),
  };
}

/** A request of one prompt text. */
const promptRequest = (modelId: string, text: string): ModelRequest => ({
  modelId,
  messages: [{ role: 'user', content: [{ text }] }],
});

/** The user's words in an Anthropic text-completions prompt (`\n\nHuman: … \n\nAssistant:`). */
function humanTurn(prompt: string): string {
  const m = /Human:([\s\S]*?)(?:\n\nAssistant:|$)/.exec(prompt);
  return (m ? m[1] : prompt).trim();
}

/** A stable id made from the answer, so a replayed run writes the same body. */
const idOf = (prefix: string, ...parts: unknown[]): string =>
  `${prefix}${createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 24)}`;

/** A unit-length vector of `dimensions` numbers, the same for the same text. */
function embeddingOf(text: string, dimensions: number): number[] {
  const values: number[] = [];
  for (let block = 0; values.length < dimensions; block++) {
    const digest = createHash('sha256').update(`${block}:${text}`).digest();
    for (let i = 0; i + 1 < digest.length && values.length < dimensions; i += 2)
      values.push(digest.readUInt16BE(i) / 32767.5 - 1);
  }
  const norm = Math.sqrt(values.reduce((sum, v) => sum + v * v, 0)) || 1;
  return values.map((v) => Math.round((v / norm) * 1e6) / 1e6);
}

/** Tokens of a text as the scripted answers count them when the script gives none: about four characters each. */
const tokensOf = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

/** A 1×1 PNG: the image every scripted image model answers (base64, as the image families return it). */
const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** A seed from the prompt, for the image families that report theirs. */
const seedOf = (body: Body): number =>
  typeof body.seed === 'number'
    ? body.seed
    : createHash('sha256').update(JSON.stringify(body)).digest().readUInt32BE(0);

/** Anthropic Claude Messages API (model-parameters-anthropic-claude-messages.html). */
const anthropicMessages: TextFamily = {
  kind: 'text',
  name: 'Anthropic Claude Messages',
  request: messagesRequest,
  answer: (modelId, _body, r) => ({
    id: idOf('msg_bdrk_', modelId, r.text),
    type: 'message',
    role: 'assistant',
    model: modelId,
    content: [{ type: 'text', text: r.text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: r.usage.inputTokens, output_tokens: r.usage.outputTokens },
  }),
};

/** Anthropic Claude Text Completions API (model-parameters-anthropic-claude-text-completion.html): `{completion, stop_reason, stop}`. */
const anthropicText: TextFamily = {
  kind: 'text',
  name: 'Anthropic Claude Text Completions',
  request: (modelId, body) => promptRequest(modelId, humanTurn(str(body.prompt))),
  answer: (_modelId, _body, r) => ({ completion: ` ${r.text}`, stop_reason: 'stop_sequence', stop: '\n\nHuman:' }),
};

/** Meta Llama (model-parameters-meta.html): `{generation, prompt_token_count, generation_token_count, stop_reason}`. */
const metaLlama: TextFamily = {
  kind: 'text',
  name: 'Meta Llama',
  request: (modelId, body) => promptRequest(modelId, str(body.prompt)),
  answer: (_modelId, _body, r) => ({
    generation: r.text,
    prompt_token_count: r.usage.inputTokens,
    generation_token_count: r.usage.outputTokens,
    stop_reason: 'stop',
  }),
};

/**
 * Mistral AI: text completion (model-parameters-mistral-text-completion.html), `{outputs: [{text, stop_reason}]}`
 * for a `prompt`; chat completion (model-parameters-mistral-chat-completion.html),
 * `{choices: [{index, message: {role, content}, stop_reason}]}` for `messages`.
 */
const mistral: TextFamily = {
  kind: 'text',
  name: 'Mistral AI',
  request: (modelId, body) =>
    Array.isArray(body.messages) ? messagesRequest(modelId, body) : promptRequest(modelId, str(body.prompt)),
  answer: (_modelId, body, r) =>
    Array.isArray(body.messages)
      ? { choices: [{ index: 0, message: { role: 'assistant', content: r.text }, stop_reason: 'stop' }] }
      : { outputs: [{ text: r.text, stop_reason: 'stop' }] },
};

/** Cohere Command (model-parameters-cohere-command.html): `{generations: [{finish_reason, id, text}], id, prompt}`. */
const cohereCommand: TextFamily = {
  kind: 'text',
  name: 'Cohere Command',
  request: (modelId, body) => promptRequest(modelId, str(body.prompt)),
  answer: (modelId, body, r) => ({
    generations: [{ finish_reason: 'COMPLETE', id: idOf('', modelId, 'generation', r.text), text: r.text }],
    id: idOf('', modelId, r.text),
    prompt: str(body.prompt),
  }),
};

/**
 * Cohere Command R and R+ (model-parameters-cohere-command-r-plus.html): a `message` with an optional
 * `chat_history` and `preamble`; `{response_id, text, generation_id, chat_history, finish_reason}`.
 */
const cohereCommandR: TextFamily = {
  kind: 'text',
  name: 'Cohere Command R',
  request: (modelId, body) => {
    const history = (Array.isArray(body.chat_history) ? body.chat_history : []) as {
      role?: string;
      message?: unknown;
    }[];
    return {
      modelId,
      ...(typeof body.preamble === 'string' ? { system: body.preamble } : {}),
      messages: [
        ...history.map((m) => ({
          role: m.role === 'CHATBOT' ? ('assistant' as const) : ('user' as const),
          content: [{ text: str(m.message) }],
        })),
        { role: 'user' as const, content: [{ text: str(body.message) }] },
      ],
    };
  },
  answer: (modelId, body, r) => ({
    response_id: idOf('', modelId, 'response', r.text),
    text: r.text,
    generation_id: idOf('', modelId, 'generation', r.text),
    chat_history: [
      ...(Array.isArray(body.chat_history) ? body.chat_history : []),
      { role: 'USER', message: str(body.message) },
      { role: 'CHATBOT', message: r.text },
    ],
    finish_reason: 'COMPLETE',
  }),
};

/**
 * AI21 Labs: Jurassic-2 (model-parameters-jurassic2.html), `{id, prompt: {text, tokens}, completions: [{data:
 * {text, tokens}, finishReason: {reason}}]}`; Jamba (model-parameters-jamba.html), OpenAI-style
 * `{id, choices: [{index, message: {role, content}, finish_reason}], usage}`.
 */
const ai21: TextFamily = {
  kind: 'text',
  name: 'AI21 Labs',
  request: (modelId, body) =>
    Array.isArray(body.messages) ? messagesRequest(modelId, body) : promptRequest(modelId, str(body.prompt)),
  answer: (modelId, body, r) =>
    modelId.startsWith('ai21.jamba')
      ? {
          id: idOf('chatcmpl-', modelId, r.text),
          choices: [{ index: 0, message: { role: 'assistant', content: r.text }, finish_reason: 'stop' }],
          usage: {
            prompt_tokens: r.usage.inputTokens,
            completion_tokens: r.usage.outputTokens,
            total_tokens: r.usage.inputTokens + r.usage.outputTokens,
          },
        }
      : {
          id: 1234,
          prompt: { text: str(body.prompt), tokens: [] },
          completions: [{ data: { text: r.text, tokens: [] }, finishReason: { reason: 'endoftext' } }],
        },
};

/** Amazon Titan Text (model-parameters-titan-text.html): `{inputTextTokenCount, results: [{tokenCount, outputText, completionReason}]}`. */
const titanText: TextFamily = {
  kind: 'text',
  name: 'Amazon Titan Text',
  request: (modelId, body) => promptRequest(modelId, str(body.inputText)),
  answer: (_modelId, _body, r) => ({
    inputTextTokenCount: r.usage.inputTokens,
    results: [{ tokenCount: r.usage.outputTokens, outputText: r.text, completionReason: 'FINISH' }],
  }),
};

/** Amazon Nova understanding models (model-parameters-nova.html, "Invoke API"): `{output: {message}, stopReason, usage}`. */
const nova: TextFamily = {
  kind: 'text',
  name: 'Amazon Nova',
  request: messagesRequest,
  answer: (_modelId, _body, r) => ({
    output: { message: { role: 'assistant', content: [{ text: r.text }] } },
    stopReason: 'end_turn',
    usage: {
      inputTokens: r.usage.inputTokens,
      outputTokens: r.usage.outputTokens,
      totalTokens: r.usage.inputTokens + r.usage.outputTokens,
    },
  }),
};

/**
 * Amazon Titan Embeddings (model-parameters-titan-embed-text.html, model-parameters-titan-embed-mm.html):
 * `{embedding, inputTextTokenCount}`; Text V2 also `embeddingsByType` and takes `dimensions` (default 1,024),
 * G1 Text answers 1,536 numbers, Multimodal takes `embeddingConfig.outputEmbeddingLength` (default 1,024).
 */
const titanEmbeddings: SyntheticFamily = {
  kind: 'synthetic',
  name: 'Amazon Titan Embeddings',
  answer: (modelId, body) => {
    const text = str(body.inputText);
    const config = (body.embeddingConfig ?? {}) as { outputEmbeddingLength?: unknown };
    const dimensions =
      typeof body.dimensions === 'number'
        ? body.dimensions
        : typeof config.outputEmbeddingLength === 'number'
          ? config.outputEmbeddingLength
          : modelId.startsWith('amazon.titan-embed-text-v1')
            ? 1536
            : 1024;
    const embedding = embeddingOf(text, dimensions);
    if (modelId.startsWith('amazon.titan-embed-text-v2'))
      return { embedding, embeddingsByType: { float: embedding }, inputTextTokenCount: tokensOf(text) };
    return { embedding, inputTextTokenCount: tokensOf(text) };
  },
};

/** Cohere Embed (model-parameters-embed.html): `{embeddings, id, response_type, texts}`, 1,024 numbers per text. */
const cohereEmbed: SyntheticFamily = {
  kind: 'synthetic',
  name: 'Cohere Embed',
  answer: (modelId, body) => {
    const texts = (Array.isArray(body.texts) ? body.texts : []).map(str);
    return {
      embeddings: texts.map((t) => embeddingOf(t, 1024)),
      id: idOf('', modelId, texts),
      response_type: 'embeddings_floats',
      texts,
    };
  },
};

/** Amazon Titan Image Generator and Nova Canvas (model-parameters-titan-image.html, Nova Canvas request and response): `{images, error}`. */
const amazonImage: SyntheticFamily = {
  kind: 'synthetic',
  name: 'Amazon image generation',
  answer: (_modelId, body) => {
    const config = (body.imageGenerationConfig ?? {}) as { numberOfImages?: unknown };
    const count = typeof config.numberOfImages === 'number' && config.numberOfImages > 0 ? config.numberOfImages : 1;
    return { images: Array.from({ length: count }, () => PIXEL_PNG), error: null };
  },
};

/**
 * Stability AI: Stable Diffusion XL (model-parameters-diffusion-1-0-text-image.html), `{result, artifacts: [{seed,
 * base64, finishReason}]}`; Stable Image Core, Ultra and SD3 (model-parameters-diffusion-stable-image-*.html,
 * model-parameters-diffusion-3-5-large.html), `{seeds, finish_reasons, images}`.
 */
const stability: SyntheticFamily = {
  kind: 'synthetic',
  name: 'Stability AI',
  answer: (modelId, body) =>
    modelId.startsWith('stability.stable-diffusion-xl')
      ? { result: 'success', artifacts: [{ seed: seedOf(body), base64: PIXEL_PNG, finishReason: 'SUCCESS' }] }
      : { seeds: [seedOf(body)], finish_reasons: [null], images: [PIXEL_PNG] },
};

/** Model id prefixes, longest first where one prefix contains another, and the family each names. */
const BY_PREFIX: readonly (readonly [string, ModelFamily | ((body: Body) => ModelFamily)])[] = [
  ['anthropic.', (body) => (Array.isArray(body.messages) ? anthropicMessages : anthropicText)],
  ['meta.llama', metaLlama],
  ['mistral.', mistral],
  ['cohere.command-r', cohereCommandR],
  ['cohere.command', cohereCommand],
  ['cohere.embed', cohereEmbed],
  ['ai21.', ai21],
  ['amazon.titan-text', titanText],
  ['amazon.titan-tg1', titanText],
  ['amazon.titan-embed', titanEmbeddings],
  ['amazon.titan-image-generator', amazonImage],
  ['amazon.nova-canvas', amazonImage],
  ['amazon.nova-', nova],
  ['stability.', stability],
];

/** The model families the local provider knows, for error messages. */
export const KNOWN_MODEL_PREFIXES: readonly string[] = BY_PREFIX.map(([prefix]) => prefix);

/** A cross-region inference profile's id is the model id behind a geography (`us.anthropic.claude-…`). */
const INFERENCE_PROFILE = /^(?:us|eu|apac|us-gov|global|jp|au|ca)\./;

/** The model id without an inference profile's geography. */
export const baseModelId = (modelId: string): string => modelId.replace(INFERENCE_PROFILE, '');

/** The family of a model id, or undefined when the local provider does not know its format. */
export function modelFamily(modelId: string, body: Body): ModelFamily | undefined {
  const id = baseModelId(modelId);
  const entry = BY_PREFIX.find(([prefix]) => id.startsWith(prefix));
  if (!entry) return undefined;
  return typeof entry[1] === 'function' ? entry[1](body) : entry[1];
}
