/**
 * `bedrock:invokeModel` on the engine's model provider: scripted by default (the runtime's
 * ScriptedModelProvider and its script file, `AUTOSAVE_MODEL_SCRIPT`), real Bedrock when configured
 * (`AUTOSAVE_MODEL_PROVIDER=bedrock`: the request goes to Bedrock's InvokeModel unchanged, through the
 * pass-through). A scripted answer is looked up by workflow (the state machine's name), step (the Task
 * state's name) and turn 0, and written in the body format of the model's family (model-families.ts); a
 * model id of no family the engine knows is refused with ValidationException, naming the families it knows.
 */
import { ScriptedModelProvider, type ModelResponse } from '@autosave/runtime/models';
import {
  ServiceFault,
  type ModelInvocation,
  type ModelInvoker,
  type PassThrough,
  type TaskCallContext,
} from '@autosave/engine';
import { KNOWN_MODEL_PREFIXES, modelFamily, type Body } from './model-families';

/** Options of {@link LocalModels}. */
export type LocalModelsOptions =
  /** `scriptFile` absent: no step is answered; each call fails saying where a script is set. */
  | { readonly provider: 'scripted'; readonly scriptFile?: string }
  | { readonly provider: 'bedrock'; readonly passThrough: PassThrough };

export class LocalModels implements ModelInvoker {
  private scripted?: ScriptedModelProvider;

  constructor(private readonly options: LocalModelsOptions) {}

  async invokeModel(
    request: ModelInvocation,
    context: TaskCallContext,
  ): Promise<{ body: unknown; contentType: string }> {
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
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw new ServiceFault('ValidationException', 'The provided request body is not valid JSON for the model', 400);
    const family = modelFamily(request.modelId, body);
    if (!family) {
      throw new ServiceFault(
        'ValidationException',
        `The local model provider does not know the request and response format of model '${request.modelId}'; it knows the model ids starting ${KNOWN_MODEL_PREFIXES.join(', ')}`,
        400,
      );
    }
    if (family.kind === 'synthetic')
      return { body: family.answer(request.modelId, body), contentType: 'application/json' };
    const workflow = context.stateMachineArn.slice(context.stateMachineArn.lastIndexOf(':') + 1);
    // The entry that would answer this step, in the words a user pastes into the script.
    const entry = `{ "workflow": ${JSON.stringify(workflow)}, "step": ${JSON.stringify(context.state)}, "text": "..." }`;
    const { scriptFile } = this.options;
    if (!scriptFile) {
      throw new ServiceFault(
        'ValidationException',
        `No model script is configured: the local engine answers bedrock:invokeModel from a script file: ` +
          `set \`model.script\` in autosave.config.ts (or AUTOSAVE_MODEL_SCRIPT) to a JSON file { "responses": [${entry}] }, ` +
          `or start the engine with AUTOSAVE_MODEL_PROVIDER=bedrock to call Amazon Bedrock itself (real calls, real cost)`,
        400,
      );
    }
    this.scripted ??= ScriptedModelProvider.fromFile(scriptFile);
    let response: ModelResponse;
    try {
      response = await this.scripted.converse(family.request(request.modelId, body), {
        workflow,
        executionArn: context.executionArn,
        step: context.state,
        turn: 0,
      });
    } catch (err) {
      throw new ServiceFault(
        'ValidationException',
        `${(err as Error).message}: ${scriptFile} has no entry for it: add ${entry}`,
        400,
      );
    }
    return { body: family.answer(request.modelId, body, response), contentType: 'application/json' };
  }
}
