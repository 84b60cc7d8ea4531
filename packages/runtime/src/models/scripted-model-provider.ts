import { readFileSync } from 'node:fs';
import type { ModelCallSite, ModelRequest, ModelResponse, ToolCall } from './conversation';
import { ModelScriptExhaustedError } from './errors';
import type { ModelProvider } from './model-provider';

/**
 * One scripted answer. It matches a call when every field it names (`workflow`, `step`, `turn`) equals
 * the call's; unnamed fields match anything. The first matching entry answers.
 */
export interface ScriptedResponse {
  readonly workflow?: string;
  readonly step?: string;
  readonly turn?: number;
  /** The answer's text; `{{prompt}}` is replaced by the first user text of the conversation. */
  readonly text?: string;
  readonly toolCalls?: readonly ToolCall[];
  /** @default estimated at 4 characters a token */
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
}

/** A script file: `{ "responses": [ScriptedResponse, ...] }`. */
export interface ModelScript {
  readonly responses: readonly ScriptedResponse[];
}

/** Characters per token in the scripted provider's usage estimate. */
export const SCRIPTED_CHARS_PER_TOKEN = 4;

/**
 * A deterministic model for local runs and tests: answers from a script, by workflow, step and turn, so
 * an answer does not depend on how many times (or in which order) the model was called.
 */
export class ScriptedModelProvider implements ModelProvider {
  readonly name = 'scripted';
  /** How many times the provider was called (tests assert "called once"). */
  calls = 0;

  constructor(private readonly script: ModelScript) {}

  /**
   * The provider when no script is configured: every call fails (non-retryable) saying where a script is
   * set, rather than reading a file from wherever the process happens to run.
   */
  static unconfigured(): ModelProvider {
    return {
      name: 'scripted',
      converse: async () => {
        throw new ModelScriptExhaustedError(
          'No model script is configured: set `model.script` in autosave.config.ts (AUTOSAVE_MODEL_SCRIPT), or give the model-step function a provider of its own',
        );
      },
    };
  }

  /** A provider reading its script from a JSON file. */
  static fromFile(path: string): ScriptedModelProvider {
    return new ScriptedModelProvider(JSON.parse(readFileSync(path, 'utf8')) as ModelScript);
  }

  async converse(request: ModelRequest, site: ModelCallSite): Promise<ModelResponse> {
    this.calls++;
    const entry = this.script.responses.find(
      (r) =>
        (r.workflow === undefined || r.workflow === site.workflow) &&
        (r.step === undefined || r.step === site.step) &&
        (r.turn === undefined || r.turn === site.turn),
    );
    if (!entry) {
      throw new ModelScriptExhaustedError(
        `The model script has no response for ${site.workflow}/${site.step} turn ${site.turn}`,
      );
    }
    const prompt = firstUserText(request);
    const text = (entry.text ?? '').replaceAll('{{prompt}}', prompt);
    const toolCalls = entry.toolCalls ?? [];
    const inputChars = JSON.stringify(request.messages).length + (request.system?.length ?? 0);
    return {
      text,
      toolCalls,
      final: toolCalls.length === 0,
      usage: entry.usage ?? {
        inputTokens: Math.ceil(inputChars / SCRIPTED_CHARS_PER_TOKEN),
        outputTokens: Math.ceil((text.length + JSON.stringify(toolCalls).length) / SCRIPTED_CHARS_PER_TOKEN),
      },
    };
  }
}

function firstUserText(request: ModelRequest): string {
  for (const message of request.messages) {
    if (message.role !== 'user') continue;
    for (const block of message.content) if ('text' in block) return block.text;
  }
  return '';
}
