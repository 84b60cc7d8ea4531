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
import { jsonata, jsonpath } from '../unit/local/engine/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const scriptFile = join(mkdtempSync(join(tmpdir(), 'autosave-bedrock-')), 'script.json');
writeFileSync(scriptFile, JSON.stringify({ responses: [{ step: 'Summarize', text: 'Summary of: {{prompt}}', usage: { inputTokens: 12, outputTokens: 5 } }, { step: 'Names', text: 'Ada, Grace, Edsger' }] }));
const engine = recordedEngine({}, { engine: { integrations: { models: new LocalModels({ provider: 'scripted', scriptFile }) } } });

describe('bedrock:invokeModel', () => {
  it('answers {Body, ContentType} in the Anthropic Messages format for an anthropic model, the script\'s text in content[0]', async () => {
    const def = jsonata({
      Summarize: {
        Type: 'Task',
        Resource: 'arn:aws:states:::bedrock:invokeModel',
        Arguments: {
          ModelId: 'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0',
          Body: { anthropic_version: 'bedrock-2023-05-31', max_tokens: 200, system: 'You summarize.\nBriefly.', messages: [{ role: 'user', content: '{% $states.input.text %}' }] },
        },
        Output: '{% $states.result.Body.content[0].text %}',
        End: true,
      },
    });
    const run = await engine.run(def, { text: 'a long report' });
    expect(run.types).toEqual(['ExecutionStarted', 'TaskStateEntered', 'TaskScheduled', 'TaskStarted', 'TaskSucceeded', 'TaskStateExited', 'ExecutionSucceeded']);
    expect(run.events[2].taskScheduledEventDetails).toMatchObject({ resourceType: 'bedrock', resource: 'invokeModel' });
    const result = run.events[4].taskSucceededEventDetails as { output: { Body: Record<string, unknown>; ContentType: string } };
    expect(result.output.ContentType).toBe('application/json');
    expect(result.output.Body).toMatchObject({ type: 'message', role: 'assistant', model: 'anthropic.claude-3-haiku-20240307-v1:0', stop_reason: 'end_turn', usage: { input_tokens: 12, output_tokens: 5 } });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: 'Summary of: a long report' });
  });

  it('answers a Titan request in Titan\'s format, read by $.Body.results[0].outputText (the AWS docs example)', async () => {
    const def = jsonpath({
      Names: {
        Type: 'Task',
        Resource: 'arn:aws:states:::bedrock:invokeModel',
        Parameters: { ModelId: 'amazon.titan-text-express-v1', Body: { inputText: 'Generate a list of five first names.', textGenerationConfig: { maxTokenCount: 100, temperature: 1 } } },
        ResultSelector: { 'names.$': '$.Body.results[0].outputText' },
        End: true,
      },
    });
    const run = await engine.run(def, {});
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: { names: 'Ada, Grace, Edsger' } });
  });

  it('a step the script has no answer for fails with Bedrock.ValidationException, which Catch sees', async () => {
    const def = jsonata({
      Other: { Type: 'Task', Resource: 'arn:aws:states:::bedrock:invokeModel', Arguments: { ModelId: 'amazon.nova-lite-v1:0', Body: { messages: [{ role: 'user', content: [{ text: 'hi' }] }] } }, End: true },
    });
    const run = await engine.run(def, {});
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'Bedrock.ValidationException' });
    expect((run.outcome as { cause: string }).cause).toMatch(/^The model script has no response for .*\/Other turn 0 \(Service: AmazonBedrockRuntime; Status Code: 400; Error Code: ValidationException; Request ID: /);
  });
});
