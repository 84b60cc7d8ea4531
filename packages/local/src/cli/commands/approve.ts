import { userInfo } from 'node:os';
import { parseCommandArgs, requirePositional } from '../args';
import { findPendingApproval, submitApprovalDecision, ApprovalNotFoundError } from '../../operations';
import { createCliContext } from '../command';
import { commandRunner } from '../command-runner';
import { printJson, terminal } from '../output';

const USAGE = 'autosave approve [--reject] [--comment <text>] [--by <name>] [--] <approval-id|run|link>';

/**
 * The command line that approves `approvalId`, as the CLI prints it. Ids issued today never start with
 * `-`; one issued before (base64url) may, and then goes after `--` so it is not read as an option.
 */
export function approveCommandLine(approvalId: string): string {
  return `npx autosave approve ${approvalId.startsWith('-') ? `[--reject] [--comment "..."] -- ${approvalId}` : `${approvalId} [--reject] [--comment "..."]`}`;
}

/** `autosave approve <id>`: decides an approval through its signed link, as the web page does. */
export const summary = 'approve (or --reject) a pending approval through its signed link, like the web page';

/** Runs `autosave approve` with its arguments; resolves to the exit code. */
export const run = commandRunner('approve', async (args) => {
  const { values, positionals } = parseCommandArgs(args, { reject: { type: 'boolean', default: false }, comment: { type: 'string' }, by: { type: 'string' } }, USAGE);
  if (values.help) return void terminal().line(`usage: ${USAGE}`);
  const ref = requirePositional(positionals, 0, 'approval id', USAGE);
  let url: string;
  let label = ref;
  if (/^https?:\/\//.test(ref)) url = ref;
  else {
    const ctx = createCliContext(values.endpoint, values.config);
    const approval = await findPendingApproval(ctx.sfn, ref, await ctx.registryNames());
    if (!approval.url) throw new ApprovalNotFoundError(`run ${approval.runName} waits at ${approval.step} but no approval link was recorded`);
    url = approval.url;
    label = `${approval.approvalId ?? approval.step} (run ${approval.runName})`;
  }
  const response = await submitApprovalDecision(url, { approve: !values.reject, comment: values.comment, by: values.by ?? `${userInfo().username} (autosave CLI)` });
  if (values.json) return void printJson({ approval: label, decision: values.reject ? 'rejected' : 'approved', ...response });
  terminal().line(`${values.reject ? 'rejected' : 'approved'} ${label}: ${response.message}`);
});
