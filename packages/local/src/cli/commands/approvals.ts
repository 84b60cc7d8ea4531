import { parseCommandArgs } from '../args';
import { listPendingApprovals, formatElapsed } from '../../operations';
import { createCliContext } from '../command';
import { commandRunner } from '../command-runner';
import { printJson, printTable, terminal } from '../output';

const USAGE = 'autosave approvals [--json]';

/** `autosave approvals`: every run waiting on a human, with its link. */
export const summary = 'list runs waiting on a human, with their approval links (--json)';

/** Runs `autosave approvals` with its arguments; resolves to the exit code. */
export const run = commandRunner('approvals', async (args) => {
  const { values } = parseCommandArgs(args, {}, USAGE);
  if (values.help) return void terminal().line(`usage: ${USAGE}`);
  const ctx = createCliContext(values.endpoint, values.config);
  const approvals = await listPendingApprovals(ctx.sfn, await ctx.registryNames());
  if (values.json) return void printJson(approvals);
  const now = approvals.length > 0 ? await ctx.engineNow() : undefined;
  printTable(
    ['APPROVAL', 'RUN', 'WORKFLOW', 'STEP', 'WAITING', 'LINK'],
    approvals.map((a) => [a.approvalId ?? '-', a.runName, a.workflow, a.step, formatElapsed(a.since, now), a.url ?? '(no link recorded)']),
  );
});
