import { runToolStep } from '../tools';
import { lambdaHandler, ledger, offloadingLargeResult, payloadStore, toolRegistry } from './runtime';

/** tool-step: one tool call (or an agent-loop batch), each side effect once per idempotency key. */
export const handler = lambdaHandler(
  offloadingLargeResult((event: unknown, rt, context) =>
    runToolStep(
      { ledger: ledger(rt), tools: toolRegistry(rt), payloads: payloadStore(rt) },
      event,
      { remainingMillis: context?.getRemainingTimeInMillis?.() },
    ),
  ),
);
