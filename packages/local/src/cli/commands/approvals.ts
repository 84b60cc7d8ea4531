import { commandHelp, commandSpec, parseCommandArgs } from '../args';
import { listPendingApprovals, formatElapsed } from '../../operations';
import { createCliContext } from '../command';
import { commandRunner } from '../command-runner';
import { printJson, printTable, terminal } from '../output';

export const spec = commandSpec({
  usage: 'autosave approvals [--json] [--endpoint <url>]',
  options: {},
  examples: ['npx autosave approvals', 'npx autosave approvals --json --endpoint http://127.0.0.1:8083'],
  positionals: false,
});

/** `autosave approvals`: every run waiting on a human, with its link. */
export const summary = 'list runs waiting on a human, with their approval links (--json)';

/** Runs `autosave approvals` with its arguments; resolves to the exit code. */
export const run = commandRunner('approvals', async (args) => {
  const { values } = parseCommandArgs(args, spec);
  if (values.help) return void terminal().line(commandHelp(spec));
  const ctx = createCliContext(values.endpoint, values.config);
  const approvals = await listPendingApprovals(ctx.sfn, await ctx.registryNames());
  if (values.json) return void printJson(approvals);
  const now = approvals.length > 0 ? await ctx.engineNow() : undefined;
  printTable(
    ['APPROVAL', 'RUN', 'WORKFLOW', 'STEP', 'WAITING', 'LINK'],
    approvals.map((a) => [
      a.approvalId ?? '-',
      a.runName,
      a.workflow,
      a.step,
      formatElapsed(a.since, now),
      a.url ?? '(no link recorded)',
    ]),
  );
});
