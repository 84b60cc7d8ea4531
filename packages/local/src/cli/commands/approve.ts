import { userInfo } from 'node:os';
import { commandHelp, commandSpec, parseCommandArgs, requirePositional } from '../args';
import { findApproval, submitApprovalDecision, ApprovalNotFoundError } from '../../operations';
import { createCliContext } from '../command';
import { commandRunner } from '../command-runner';
import { printJson, terminal } from '../output';

export const spec = commandSpec({
  usage: 'autosave approve [--reject] [--comment <text>] [--by <name>] [--endpoint <url>] [--] <approval-id|run|link>',
  options: {
    reject: { type: 'boolean', default: false, description: 'reject instead of approving' },
    comment: { type: 'string', value: '<text>', description: 'a comment recorded with the decision' },
    by: {
      type: 'string',
      value: '<name>',
      description: 'who decides, as recorded (default: your user name, "(autosave CLI)")',
    },
  },
  notes: [
    "<approval-id|run|link>: the approval id `autosave approvals` lists, the waiting run's name, or the signed link itself",
  ],
  examples: [
    'npx autosave approve 5f0c2a9e',
    'npx autosave approve site-4412 --reject --comment "IRB document missing"',
    'npx autosave approve --endpoint http://127.0.0.1:8083 -- -x9Qa',
  ],
});
const USAGE = spec.usage;

/**
 * The command line that approves `approvalId`, as the CLI prints it. Ids issued today never start with
 * `-`; one issued before (base64url) may, and then goes after `--` so it is not read as an option.
 */
export function approveCommandLine(approvalId: string, endpoint?: string): string {
  const options = `[--reject] [--comment "..."]${endpoint ? ` --endpoint ${endpoint}` : ''}`;
  return `npx autosave approve ${approvalId.startsWith('-') ? `${options} -- ${approvalId}` : `${approvalId} ${options}`}`;
}

/** `autosave approve <id>`: decides an approval through its signed link, as the web page does. */
export const summary = 'approve (or --reject) a pending approval through its signed link, like the web page';

/** Runs `autosave approve` with its arguments; resolves to the exit code. */
export const run = commandRunner('approve', async (args) => {
  const { values, positionals } = parseCommandArgs(args, spec);
  if (values.help) return void terminal().line(commandHelp(spec));
  const ref = requirePositional(positionals, 0, 'approval id', USAGE);
  let url: string;
  let label = ref;
  if (/^https?:\/\//.test(ref)) url = ref;
  else {
    const ctx = createCliContext(values.endpoint, values.config);
    const approval = await findApproval(ctx.sfn, ref, await ctx.registryNames());
    if (!approval.url)
      throw new ApprovalNotFoundError(
        `run ${approval.runName} waits at ${approval.step} but no approval link was recorded`,
      );
    url = approval.url;
    label = `${approval.approvalId ?? approval.step} (run ${approval.runName})`;
  }
  const response = await submitApprovalDecision(url, {
    approve: !values.reject,
    comment: values.comment,
    by: values.by ?? `${userInfo().username} (autosave CLI)`,
  });
  if (values.json)
    return void printJson({ approval: label, decision: values.reject ? 'rejected' : 'approved', ...response });
  terminal().line(`${values.reject ? 'rejected' : 'approved'} ${label}: ${response.message}`);
});
