import type { EmailProvider } from '../tools';
import type { ApprovalNotifier } from './approval-service';

/** The idempotency key of the email announcing an approval: one email per approval, however often requested. */
export const approvalEmailKey = (approvalId: string): string => `approval:${approvalId}`;

/**
 * A notifier that emails the approval link to the request's approvers (nobody when it names none). The
 * email carries the signed link and never the task token; its key makes a retried request send nothing new.
 */
export function emailApprovers(provider: EmailProvider): ApprovalNotifier {
  return async (approval, url) => {
    if (approval.approvers.length === 0) return;
    await provider.send(
      {
        to: approval.approvers,
        subject: `Approval needed: ${approval.title}`,
        body: [
          approval.title,
          '',
          `Workflow ${approval.workflow}, step ${approval.step}.`,
          `Review and decide: ${url}`,
          '',
          `The link expires at ${new Date(approval.expiresAtSeconds * 1000).toISOString()}.`,
        ].join('\n'),
      },
      approvalEmailKey(approval.id),
    );
  };
}
