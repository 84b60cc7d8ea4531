import { commandHelp, commandSpec, parseCommandArgs } from '../args';
import { createCliContext } from '../command';
import { commandRunner } from '../command-runner';
import { CliUsageError } from '../errors';
import { printJson, printTable, terminal } from '../output';
import {
  formatElapsed,
  formatTime,
  DEFAULT_RUN_LIST_LIMIT,
  listRuns,
  parseRunStatus,
  RUN_STATUS_FILTERS,
  WAITING_RUN_FILTER,
} from '../../operations';

export const spec = commandSpec({
  usage: `autosave runs [--workflow <name>] [--status ${RUN_STATUS_FILTERS.join('|')}] [--limit n] [--json] [--endpoint <url>]`,
  options: {
    workflow: { type: 'string', value: '<name>', description: "only this workflow's runs" },
    status: {
      type: 'string',
      value: '<status>',
      description: `only runs with this status (case-insensitive): ${RUN_STATUS_FILTERS.join(', ')}
WAITING: runs RUNNING and waiting on a human (an approval), like the console's "waiting on a human" filter`,
    },
    limit: {
      type: 'string',
      value: '<n>',
      description: `the n most recent runs over all workflows (default ${DEFAULT_RUN_LIST_LIMIT})`,
    },
  },
  examples: [
    'npx autosave runs',
    'npx autosave runs --workflow clinical-trial-onboarding --status WAITING',
    'npx autosave runs --status failed --limit 10 --json',
  ],
  positionals: false,
});

/** `autosave runs`: the most recent runs, newest first. */
export const summary = 'list runs, newest first (--workflow, --status incl. WAITING on a human, --limit, --json)';

/** Runs `autosave runs` with its arguments; resolves to the exit code. */
export const run = commandRunner('runs', async (args) => {
  const { values } = parseCommandArgs(args, spec);
  if (values.help) return void terminal().line(commandHelp(spec));
  const ctx = createCliContext(values.endpoint, values.config);
  const limit = values.limit ? Number(values.limit) : DEFAULT_RUN_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1)
    throw new CliUsageError(`--limit must be a positive whole number (usage: ${spec.usage})`);
  const status = parseRunStatus(values.status);
  const runs = await listRuns(ctx.sfn, { workflow: values.workflow, status, limit }, await ctx.registryNames());
  if (values.json) return void printJson(runs);
  const now = runs.some((r) => !r.stopDate) ? await ctx.engineNow() : undefined;
  printTable(
    ['NAME', 'WORKFLOW', 'STATUS', 'STARTED', 'DURATION'],
    runs.map((r) => [
      r.name,
      r.workflow,
      r.status +
        (status === WAITING_RUN_FILTER ? ' (waiting on a human)' : '') +
        (r.redriveCount ? ` (redriven ${r.redriveCount}x)` : ''),
      formatTime(r.startDate),
      formatElapsed(r.startDate, r.stopDate ?? now),
    ]),
  );
});
