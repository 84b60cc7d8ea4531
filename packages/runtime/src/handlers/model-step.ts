import { runModelStep } from '../models';
import { lambdaHandler, modelCall, offloadingLargeResult, payloadStore } from '../lambda';

/**
 * model-step over the configured provider (`AUTOSAVE_MODEL_PROVIDER`: Bedrock on AWS, the scripted model
 * locally): the construct's default when no `modelStep.entry` is given. One model turn, recorded before it
 * is returned and replayed on retry.
 */
export const handler = lambdaHandler(
  offloadingLargeResult((event: unknown, rt) =>
    runModelStep({ model: modelCall(rt), payloads: payloadStore(rt) }, event),
  ),
);
