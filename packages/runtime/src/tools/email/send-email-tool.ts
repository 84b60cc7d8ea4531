import { InvalidStepInputError } from '@autosave/workflow/errors';
import type { ReconcileResult } from '../../idempotency';
import type { Tool } from '../tool';
import type { EmailMessage, EmailProvider, SentEmail } from './email-provider';

/** Input of `send-email`: `to` may be one address or several. */
export interface SendEmailInput {
  readonly to: string | readonly string[];
  readonly subject: string;
  readonly body: string;
  readonly from?: string;
}

/** The `send-email` tool over any {@link EmailProvider}; its result is the provider's {@link SentEmail}. */
export function sendEmailTool(provider: EmailProvider): Tool<SendEmailInput, SentEmail> {
  const find = provider.find?.bind(provider);
  return {
    name: 'send-email',
    description: 'Sends a plain-text email.',
    inputSchema: {
      type: 'object',
      required: ['to', 'subject', 'body'],
      properties: {
        to: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
        subject: { type: 'string' },
        body: { type: 'string' },
      },
    },
    execute: async (input, idempotencyKey) => provider.send(parseEmail(input), idempotencyKey),
    ...(find && {
      async reconcile(idempotencyKey: string): Promise<ReconcileResult<SentEmail>> {
        const sent = await find(idempotencyKey);
        return sent ? { found: true, result: sent } : { found: false };
      },
    }),
  };
}

function parseEmail(input: SendEmailInput): EmailMessage {
  const to = typeof input?.to === 'string' ? [input.to] : input?.to;
  if (!Array.isArray(to) || to.length === 0 || typeof input.subject !== 'string' || typeof input.body !== 'string') {
    throw new InvalidStepInputError('send-email needs {to, subject, body}');
  }
  return { to: [...to], subject: input.subject, body: input.body, ...(input.from ? { from: input.from } : {}) };
}
