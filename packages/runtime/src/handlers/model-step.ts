import { runModelStep } from '../models';
import { lambdaHandler, modelCall, offloadingLargeResult, payloadStore } from './runtime';

/** model-step: one model turn, recorded before it is returned and replayed on retry. */
export const handler = lambdaHandler(offloadingLargeResult((event: unknown, rt) => runModelStep({ model: modelCall(rt), payloads: payloadStore(rt) }, event)));
