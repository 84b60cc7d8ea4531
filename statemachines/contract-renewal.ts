import { defineWorkflow, model, tool } from '@autosave/workflow';

/**
 * A model drafts a contract-renewal email; `send-email` sends it once per contract version, under the
 * key `renewal:{contractId}:{version}` (a retried or redriven send, or a second run for the same
 * version, does not email the customer twice). The draft is recorded, so a retry sends the same text.
 */
export const contractRenewal = defineWorkflow({
  name: 'contract-renewal',
  version: '1.0.0',
  description: 'Draft a contract-renewal email with a model and send it once per contract version',
  exampleInput: {
    contractId: 'C-2291',
    version: 3,
    customerName: 'Northwind Labs',
    customerEmail: 'procurement@northwind.example.com',
    endsOn: '2027-01-31',
    terms: '12 months at the current price, 30 days notice',
  },
  steps: [
    model('draft-renewal-email', {
      system: 'You write short, friendly, plain-text business emails. Reply with the email body only.',
      prompt:
        'Draft an email to {customerName} proposing to renew contract {contractId} (version {version}), ' +
        'which ends on {endsOn}, on these terms: {terms}.',
    }),
    tool('send-renewal-email', {
      tool: 'send-email',
      idempotencyKey: 'renewal:{contractId}:{version}',
      input: {
        to: '{customerEmail}',
        subject: 'Renewing contract {contractId}',
        body: '{steps.draft-renewal-email.text}',
      },
    }),
  ],
});
