/**
 * `arn:aws:states:::bedrock:invokeModel` on the engine's model provider (scripted by default, Bedrock
 * itself when configured), as the integration answers (AWS docs, "Invoke and customize Amazon Bedrock
 * models with Step Functions"): the request's `Body` goes to the model as its JSON, and the result is
 * `{Body, ContentType}` with the model's answer parsed (`$.Body.results[0].outputText` for a Titan model).
 * `ModelId` may be a model id or any Bedrock model ARN. An error is `Bedrock.<Code>Exception`.
 */
import { StatesError } from '@autosave/workflow/errors';
import { argsObject, notServed, optimizedFault, type ServedIntegration } from './served-integration';
import { failure } from './task-outcome';

/** The model id of a `ModelId` written as an ARN (`arn:aws:bedrock:<region>::foundation-model/<id>`, an inference profile's, ...). */
const modelIdOf = (value: string): string =>
  value.startsWith('arn:') ? value.slice(value.lastIndexOf('/') + 1) : value;

export const bedrockIntegration: ServedIntegration = {
  service: 'bedrock',
  actions: { invokeModel: ['request'] },
  async run({ ports, context }, _action, args) {
    if (!ports.models)
      return notServed(
        'model provider',
        'start it with the local services (autosave local: AUTOSAVE_MODEL_PROVIDER scripted or bedrock), or pass integrations.models to the Engine',
      );
    const input = argsObject(args);
    if (typeof input.ModelId !== 'string' || input.ModelId === '')
      return failure('Bedrock.ValidationException', 'The field ModelId is required');
    // An S3 input or output moves the body through S3; the local model provider takes the body inline only.
    if (input.Input !== undefined || input.Output !== undefined)
      return failure(
        StatesError.TaskFailed,
        'The local engine takes a bedrock:invokeModel Body inline; Input/Output S3 URIs are not served',
      );
    const body = typeof input.Body === 'string' ? parseOrKeep(input.Body) : input.Body;
    try {
      const answer = await ports.models.invokeModel(
        {
          modelId: modelIdOf(input.ModelId),
          body,
          ...(typeof input.ContentType === 'string' ? { contentType: input.ContentType } : {}),
          ...(typeof input.Accept === 'string' ? { accept: input.Accept } : {}),
        },
        context,
      );
      return { ok: true, value: { Body: answer.body, ContentType: answer.contentType } };
    } catch (err) {
      return optimizedFault('Bedrock', 'AmazonBedrockRuntime', err);
    }
  },
};

function parseOrKeep(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
