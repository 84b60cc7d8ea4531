import { parseCommandArgs } from '../args';
import { commandRunner, createCliContext } from '../command';
import { CliUsageError } from '../errors';
import { printJson, printTable, terminal } from '../output';
import { formatDuration, formatTime, DEFAULT_RUN_LIST_LIMIT, listRuns, parseRunStatus } from '../../lib/operations';

const USAGE = 'autosave runs [--workflow <name>] [--status RUNNING|SUCCEEDED|FAILED|TIMED_OUT|ABORTED] [--limit n] [--json]';

/** `autosave runs`: the most recent runs, newest first. */
export const summary = 'list runs, newest first (--workflow, --status, --limit, --json)';

/** Runs `autosave runs` with its arguments; resolves to the exit code. */
export const run = commandRunner('runs', async (args) => {
  const { values } = parseCommandArgs(args, { workflow: { type: 'string' }, status: { type: 'string' }, limit: { type: 'string' } }, USAGE);
  if (values.help) return void terminal().line(`usage: ${USAGE}`);
  const ctx = createCliContext(values.endpoint);
  const limit = values.limit ? Number(values.limit) : DEFAULT_RUN_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new CliUsageError(`--limit must be a positive whole number (usage: ${USAGE})`);
  const runs = await listRuns(ctx.sfn, { workflow: values.workflow, status: parseRunStatus(values.status), limit }, await ctx.registryNames());
  if (values.json) return void printJson(runs);
  const now = Date.now();
  printTable(
    ['NAME', 'WORKFLOW', 'STATUS', 'STARTED', 'DURATION'],
    runs.map((r) => [
      r.name,
      r.workflow,
      r.status + (r.redriveCount ? ` (redriven ${r.redriveCount}x)` : ''),
      formatTime(r.startDate),
      r.startDate ? formatDuration((r.stopDate?.getTime() ?? now) - r.startDate.getTime()) : '-',
    ]),
  );
});
