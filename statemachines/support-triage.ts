import { defineWorkflow, model, tool } from '@autosave/workflow';

/**
 * A short EXPRESS workflow, run the way AWS runs EXPRESS: `StartSyncExecution` (`npx autosave start
 * support-triage --sync`) answers with the outcome in one call. A model drafts a reply to a customer's
 * message and a tool classifies the message, no human wait, well under five minutes. Nothing in it has a
 * side effect worth a ledger entry twice over: an express run is at-least-once when started
 * asynchronously, and keeps no history.
 */
export const supportTriage = defineWorkflow({
  name: 'support-triage',
  version: '1.0.0',
  type: 'EXPRESS',
  description: "Draft a reply to a customer's message and classify it, answered in one synchronous call",
  exampleInput: {
    ticketId: 'T-1042',
    customerName: 'Ada',
    message: 'I was charged twice for my invoice this month, can I get a refund?',
  },
  steps: [
    model('draft-reply', {
      system: 'You answer customer support messages in three short, friendly sentences. Reply with the answer only.',
      prompt: 'Draft a reply to {customerName}, who wrote: {message}',
    }),
    tool('classify-message', {
      tool: 'classify-text',
      idempotencyKey: 'triage:{ticketId}',
      input: {
        text: '{message}',
        labels: {
          billing: ['invoice', 'charged', 'refund', 'payment', 'price'],
          outage: ['down', 'outage', 'error', 'unavailable', 'slow'],
          account: ['password', 'login', 'email', 'account'],
        },
        otherwise: 'general',
      },
    }),
  ],
});
