import { parseCommandArgs } from '../args';
import { createCliContext } from '../command';
import { commandRunner } from '../command-runner';
import { CliUsageError } from '../errors';
import { printJson, printTable, terminal } from '../output';
import { formatElapsed, formatTime, DEFAULT_RUN_LIST_LIMIT, listRuns, parseRunStatus, RUN_STATUS_FILTERS, WAITING_RUN_FILTER } from '../../operations';

const USAGE = `autosave runs [--workflow <name>] [--status ${RUN_STATUS_FILTERS.join('|')}] [--limit n] [--json]`;

const HELP = [
  `usage: ${USAGE}`,
  '  --status WAITING   runs RUNNING and waiting on a human (an approval), like the console\'s "waiting on a human" filter',
  '  --status <status>  runs whose Step Functions status is <status> (case-insensitive)',
  `  --limit n          the n most recent runs over all workflows (default ${DEFAULT_RUN_LIST_LIMIT})`,
];

/** `autosave runs`: the most recent runs, newest first. */
export const summary = 'list runs, newest first (--workflow, --status incl. WAITING on a human, --limit, --json)';

/** Runs `autosave runs` with its arguments; resolves to the exit code. */
export const run = commandRunner('runs', async (args) => {
  const { values } = parseCommandArgs(args, { workflow: { type: 'string' }, status: { type: 'string' }, limit: { type: 'string' } }, USAGE);
  if (values.help) return void HELP.forEach((line) => terminal().line(line));
  const ctx = createCliContext(values.endpoint, values.config);
  const limit = values.limit ? Number(values.limit) : DEFAULT_RUN_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new CliUsageError(`--limit must be a positive whole number (usage: ${USAGE})`);
  const status = parseRunStatus(values.status);
  const runs = await listRuns(ctx.sfn, { workflow: values.workflow, status, limit }, await ctx.registryNames());
  if (values.json) return void printJson(runs);
  const now = runs.some((r) => !r.stopDate) ? await ctx.engineNow() : undefined;
  printTable(
    ['NAME', 'WORKFLOW', 'STATUS', 'STARTED', 'DURATION'],
    runs.map((r) => [
      r.name,
      r.workflow,
      r.status + (status === WAITING_RUN_FILTER ? ' (waiting on a human)' : '') + (r.redriveCount ? ` (redriven ${r.redriveCount}x)` : ''),
      formatTime(r.startDate),
      formatElapsed(r.startDate, r.stopDate ?? now),
    ]),
  );
});
