import { runModelStep } from '../lib/models';
import { lambdaHandler } from './runtime';

/** model-step: one model turn, recorded before it is returned and replayed on retry. */
export const handler = lambdaHandler((event: unknown, rt) => runModelStep({ model: rt.model, payloads: rt.payloads }, event), {
  offloadLargeResult: true,
});
