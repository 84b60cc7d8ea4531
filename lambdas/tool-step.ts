import { runToolStep } from '../lib/tools';
import { lambdaHandler } from './runtime';

/** tool-step: one tool call (or an agent-loop batch), each side effect once per idempotency key. */
export const handler = lambdaHandler(
  (event: unknown, rt, context) =>
    runToolStep(
      { ledger: rt.ledger, tools: rt.tools, payloads: rt.payloads },
      event,
      { remainingMillis: context?.getRemainingTimeInMillis?.() },
    ),
  { offloadLargeResult: true },
);
