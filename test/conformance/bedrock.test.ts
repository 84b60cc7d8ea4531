/**
 * `bedrock:invokeModel` on the engine's model provider (AWS docs, "Invoke and customize Amazon Bedrock models
 * with Step Functions": the result is `{Body, ContentType}` with the model's answer parsed, as
 * `$.Body.results[0].outputText` reads it for a Titan model). Scripted by default: the answer is the script's
 * entry for the workflow (state machine name) and step (Task state name), written in the request's model
 * family format.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalModels } from '../../packages/local/src/services/models';
import { jsonata, jsonpath } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const scriptFile = join(mkdtempSync(join(tmpdir(), 'autosave-bedrock-')), 'script.json');
writeFileSync(
  scriptFile,
  JSON.stringify({
    responses: [
      { step: 'Summarize', text: 'Summary of: {{prompt}}', usage: { inputTokens: 12, outputTokens: 5 } },
      { step: 'Names', text: 'Ada, Grace, Edsger' },
      { step: 'Family', text: 'Answer to: {{prompt}}', usage: { inputTokens: 7, outputTokens: 3 } },
    ],
  }),
);
const engine = recordedEngine(
  {},
  { engine: { integrations: { models: new LocalModels({ provider: 'scripted', scriptFile }) } } },
);
const unscripted = recordedEngine(
  {},
  { engine: { integrations: { models: new LocalModels({ provider: 'scripted' }) } } },
);

describe('bedrock:invokeModel', () => {
  it("answers {Body, ContentType} in the Anthropic Messages format for an anthropic model, the script's text in content[0]", async () => {
    const def = jsonata({
      Summarize: {
        Type: 'Task',
        Resource: 'arn:aws:states:::bedrock:invokeModel',
        Arguments: {
          ModelId: 'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0',
          Body: {
            anthropic_version: 'bedrock-2023-05-31',
            max_tokens: 200,
            system: 'You summarize.\nBriefly.',
            messages: [{ role: 'user', content: '{% $states.input.text %}' }],
          },
        },
        Output: '{% $states.result.Body.content[0].text %}',
        End: true,
      },
    });
    const run = await engine.run(def, { text: 'a long report' });
    expect(run.types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
    expect(run.events[2].taskScheduledEventDetails).toMatchObject({ resourceType: 'bedrock', resource: 'invokeModel' });
    const result = run.events[4].taskSucceededEventDetails as {
      output: { Body: Record<string, unknown>; ContentType: string };
    };
    expect(result.output.ContentType).toBe('application/json');
    expect(result.output.Body).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'anthropic.claude-3-haiku-20240307-v1:0',
      stop_reason: 'end_turn',
      usage: { input_tokens: 12, output_tokens: 5 },
    });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: 'Summary of: a long report' });
  });

  it("answers a Titan request in Titan's format, read by $.Body.results[0].outputText (the AWS docs example)", async () => {
    const def = jsonpath({
      Names: {
        Type: 'Task',
        Resource: 'arn:aws:states:::bedrock:invokeModel',
        Parameters: {
          ModelId: 'amazon.titan-text-express-v1',
          Body: {
            inputText: 'Generate a list of five first names.',
            textGenerationConfig: { maxTokenCount: 100, temperature: 1 },
          },
        },
        ResultSelector: { 'names.$': '$.Body.results[0].outputText' },
        End: true,
      },
    });
    const run = await engine.run(def, {});
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: { names: 'Ada, Grace, Edsger' } });
  });

  it('a step the script has no answer for fails with Bedrock.ValidationException, which Catch sees', async () => {
    const def = jsonata({
      Other: {
        Type: 'Task',
        Resource: 'arn:aws:states:::bedrock:invokeModel',
        Arguments: {
          ModelId: 'amazon.nova-lite-v1:0',
          Body: { messages: [{ role: 'user', content: [{ text: 'hi' }] }] },
        },
        End: true,
      },
    });
    const run = await engine.run(def, {});
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'Bedrock.ValidationException' });
    expect((run.outcome as { cause: string }).cause).toMatch(
      /^The model script has no response for .*\/Other turn 0: .* \(Service: AmazonBedrockRuntime; Status Code: 400; Error Code: ValidationException; Request ID: /,
    );
    // ...and says which file it read and the entry that would answer this step.
    expect((run.outcome as { cause: string }).cause).toContain(
      `${scriptFile} has no entry for it: add { "workflow": "`,
    );
    expect((run.outcome as { cause: string }).cause).toContain(`", "step": "Other", "text": "..." }`);
  });

  it('with no model script, the failure says where a script comes from and how to call Bedrock itself', async () => {
    const def = jsonata({
      Ask: {
        Type: 'Task',
        Resource: 'arn:aws:states:::bedrock:invokeModel',
        Arguments: {
          ModelId: 'amazon.nova-lite-v1:0',
          Body: { messages: [{ role: 'user', content: [{ text: 'hi' }] }] },
        },
        End: true,
      },
    });
    const run = await unscripted.run(def, {});
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'Bedrock.ValidationException' });
    const cause = (run.outcome as { cause: string }).cause;
    expect(cause).toMatch(
      /^No model script is configured: the local engine answers bedrock:invokeModel from a script file: /,
    );
    expect(cause).toContain(
      'set `model.script` in autosave.config.ts (or AUTOSAVE_MODEL_SCRIPT) to a JSON file { "responses": [{ "workflow": "',
    );
    expect(cause).toContain('", "step": "Ask", "text": "..." }] }');
    expect(cause).toContain('AUTOSAVE_MODEL_PROVIDER=bedrock');
    expect(cause).not.toContain('model-step function');
  });
});

/**
 * Each model family answers in its own body format, chosen by model id as Bedrock does. Every row's request and
 * response are the ones its Amazon Bedrock user guide page gives (https://docs.aws.amazon.com/bedrock/latest/userguide/<page>),
 * the response with the script's text (or, for embeddings and images, a made-up vector or image) in it.
 */
describe('bedrock:invokeModel answers each model family in its own body format', () => {
  const invoke = async (modelId: string, body: object) => {
    const def = jsonata({
      Family: {
        Type: 'Task',
        Resource: 'arn:aws:states:::bedrock:invokeModel',
        Arguments: { ModelId: modelId, Body: body },
        End: true,
      },
    });
    const run = await engine.run(def, {});
    expect(run.outcome).toMatchObject({ status: 'SUCCEEDED' });
    return (run.outcome as { output: { Body: Record<string, any>; ContentType: string } }).output;
  };
  const ID = expect.any(String);

  it.each([
    [
      'Anthropic Claude Text Completions (model-parameters-anthropic-claude-text-completion.html): {completion, stop_reason, stop}',
      'anthropic.claude-v2:1',
      { prompt: '\n\nHuman: Name a colour\n\nAssistant:', max_tokens_to_sample: 200 },
      { completion: ' Answer to: Name a colour', stop_reason: 'stop_sequence', stop: '\n\nHuman:' },
    ],
    [
      'Anthropic Claude Messages (model-parameters-anthropic-claude-messages.html), through a cross-region inference profile',
      'us.anthropic.claude-3-5-sonnet-20240620-v1:0',
      {
        anthropic_version: 'bedrock-2023-05-31',
        max_tokens: 100,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Name a colour' }] }],
      },
      {
        id: ID,
        type: 'message',
        role: 'assistant',
        model: 'us.anthropic.claude-3-5-sonnet-20240620-v1:0',
        content: [{ type: 'text', text: 'Answer to: Name a colour' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 7, output_tokens: 3 },
      },
    ],
    [
      'Meta Llama (model-parameters-meta.html): {generation, prompt_token_count, generation_token_count, stop_reason}',
      'meta.llama3-8b-instruct-v1:0',
      { prompt: 'Name a colour', max_gen_len: 128, temperature: 0.5 },
      { generation: 'Answer to: Name a colour', prompt_token_count: 7, generation_token_count: 3, stop_reason: 'stop' },
    ],
    [
      'Mistral AI text completion (model-parameters-mistral-text-completion.html): {outputs: [{text, stop_reason}]}',
      'mistral.mistral-7b-instruct-v0:2',
      { prompt: 'Name a colour', max_tokens: 100 },
      { outputs: [{ text: 'Answer to: Name a colour', stop_reason: 'stop' }] },
    ],
    [
      'Mistral AI chat completion (model-parameters-mistral-chat-completion.html): {choices: [{index, message, stop_reason}]}',
      'mistral.mistral-large-2407-v1:0',
      { messages: [{ role: 'user', content: 'Name a colour' }], max_tokens: 100 },
      {
        choices: [
          { index: 0, message: { role: 'assistant', content: 'Answer to: Name a colour' }, stop_reason: 'stop' },
        ],
      },
    ],
    [
      'Cohere Command (model-parameters-cohere-command.html): {generations: [{finish_reason, id, text}], id, prompt}',
      'cohere.command-text-v14',
      { prompt: 'Name a colour', max_tokens: 100 },
      {
        generations: [{ finish_reason: 'COMPLETE', id: ID, text: 'Answer to: Name a colour' }],
        id: ID,
        prompt: 'Name a colour',
      },
    ],
    [
      'Cohere Command R (model-parameters-cohere-command-r-plus.html): {response_id, text, generation_id, chat_history, finish_reason}',
      'cohere.command-r-plus-v1:0',
      {
        message: 'Name a colour',
        chat_history: [
          { role: 'USER', message: 'Hello' },
          { role: 'CHATBOT', message: 'Hi' },
        ],
      },
      // The script's {{prompt}} is the conversation's first user text, here the history's.
      {
        response_id: ID,
        text: 'Answer to: Hello',
        generation_id: ID,
        chat_history: [
          { role: 'USER', message: 'Hello' },
          { role: 'CHATBOT', message: 'Hi' },
          { role: 'USER', message: 'Name a colour' },
          { role: 'CHATBOT', message: 'Answer to: Hello' },
        ],
        finish_reason: 'COMPLETE',
      },
    ],
    [
      'AI21 Jurassic-2 (model-parameters-jurassic2.html): {id, prompt, completions: [{data: {text}, finishReason}]}',
      'ai21.j2-ultra-v1',
      { prompt: 'Name a colour', maxTokens: 100 },
      {
        id: expect.anything(),
        prompt: { text: 'Name a colour', tokens: [] },
        completions: [
          { data: { text: 'Answer to: Name a colour', tokens: [] }, finishReason: { reason: 'endoftext' } },
        ],
      },
    ],
    [
      'AI21 Jamba (model-parameters-jamba.html): {id, choices: [{index, message, finish_reason}], usage}',
      'ai21.jamba-1-5-large-v1:0',
      { messages: [{ role: 'user', content: 'Name a colour' }], max_tokens: 100 },
      {
        id: ID,
        choices: [
          { index: 0, message: { role: 'assistant', content: 'Answer to: Name a colour' }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
      },
    ],
    [
      'Amazon Titan Text (model-parameters-titan-text.html): {inputTextTokenCount, results: [{tokenCount, outputText, completionReason}]}',
      'amazon.titan-text-premier-v1:0',
      { inputText: 'Name a colour', textGenerationConfig: { maxTokenCount: 100 } },
      {
        inputTextTokenCount: 7,
        results: [{ tokenCount: 3, outputText: 'Answer to: Name a colour', completionReason: 'FINISH' }],
      },
    ],
    [
      'Amazon Nova (model-parameters-nova.html): {output: {message}, stopReason, usage}',
      'amazon.nova-pro-v1:0',
      {
        schemaVersion: 'messages-v1',
        system: [{ text: 'Be brief.' }],
        messages: [{ role: 'user', content: [{ text: 'Name a colour' }] }],
        inferenceConfig: { maxTokens: 100 },
      },
      {
        output: { message: { role: 'assistant', content: [{ text: 'Answer to: Name a colour' }] } },
        stopReason: 'end_turn',
        usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 },
      },
    ],
  ])('%s', async (_family, modelId, body, expected) => {
    expect(await invoke(modelId, body)).toEqual({ Body: expected, ContentType: 'application/json' });
  });

  it.each([
    [
      'Titan Embeddings G1 Text: 1,536 numbers (model-parameters-titan-embed-text.html)',
      'amazon.titan-embed-text-v1',
      { inputText: 'a colour' },
      1536,
      ['embedding', 'inputTextTokenCount'],
    ],
    [
      'Titan Text Embeddings V2: the requested dimensions, and embeddingsByType',
      'amazon.titan-embed-text-v2:0',
      { inputText: 'a colour', dimensions: 256, normalize: true },
      256,
      ['embedding', 'embeddingsByType', 'inputTextTokenCount'],
    ],
  ])('%s', async (_name, modelId, body, dimensions, keys) => {
    const { Body } = await invoke(modelId, body);
    expect(Object.keys(Body).sort()).toEqual(keys);
    expect(Body.embedding).toHaveLength(dimensions);
    expect(Body.embedding.every((v: unknown) => typeof v === 'number')).toBe(true);
    expect(Body.inputTextTokenCount).toBeGreaterThan(0);
    // The same text gives the same vector (a replayed run writes the same history), another text another one.
    expect((await invoke(modelId, body)).Body.embedding).toEqual(Body.embedding);
    expect((await invoke(modelId, { ...body, inputText: 'a number' })).Body.embedding).not.toEqual(Body.embedding);
  });

  it('Stable Diffusion XL (model-parameters-diffusion-1-0-text-image.html): {result, artifacts: [{seed, base64, finishReason}]}', async () => {
    const { Body } = await invoke('stability.stable-diffusion-xl-v1', {
      text_prompts: [{ text: 'a lighthouse', weight: 1 }],
      cfg_scale: 7,
      seed: 42,
      steps: 30,
    });
    expect(Body).toEqual({
      result: 'success',
      artifacts: [{ seed: 42, base64: expect.any(String), finishReason: 'SUCCESS' }],
    });
    expect(Buffer.from(Body.artifacts[0].base64, 'base64').subarray(1, 4).toString()).toBe('PNG');
  });

  it('Stable Image Ultra and SD3 (model-parameters-diffusion-stable-image-ultra.html): {seeds, finish_reasons, images}', async () => {
    const { Body } = await invoke('stability.stable-image-ultra-v1:0', { prompt: 'a lighthouse', seed: 7 });
    expect(Body).toEqual({ seeds: [7], finish_reasons: [null], images: [expect.any(String)] });
  });

  it('Titan Image Generator (model-parameters-titan-image.html): {images, error}', async () => {
    const { Body } = await invoke('amazon.titan-image-generator-v2:0', {
      taskType: 'TEXT_IMAGE',
      textToImageParams: { text: 'a lighthouse' },
      imageGenerationConfig: { numberOfImages: 2 },
    });
    expect(Body).toEqual({ images: [expect.any(String), expect.any(String)], error: null });
  });

  it('a model id of no family the engine knows fails with Bedrock.ValidationException naming the families it knows', async () => {
    const def = jsonata({
      Family: {
        Type: 'Task',
        Resource: 'arn:aws:states:::bedrock:invokeModel',
        Arguments: { ModelId: 'acme.unknown-model-v1', Body: { prompt: 'hi' } },
        End: true,
      },
    });
    const run = await engine.run(def, {});
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'Bedrock.ValidationException' });
    expect((run.outcome as { cause: string }).cause).toMatch(
      /^The local model provider does not know the request and response format of model 'acme\.unknown-model-v1'; it knows the model ids starting anthropic\., meta\.llama/,
    );
  });
});
