import { DescribeExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { waitForRunToClose } from '../../api/wait-for-run';
import { commandHelp, commandSpec, parseCommandArgs, requirePositional } from '../args';
import { createCliContext } from '../command';
import { commandRunner } from '../command-runner';
import { printJson, terminal } from '../output';
import { formatElapsed, formatTime, loadRunDetails } from '../../operations';
import { approveCommandLine } from './approve';

/** Between two DescribeExecution calls of `--wait` where the engine's wait is not served (AWS). */
const WAIT_POLL_MILLIS = 1_000;

/** Waits for the run's close: the engine's wait where served, else DescribeExecution polled. */
async function waitUntilClosed(sfn: SFNClient, endpoint: string | undefined, executionArn: string): Promise<void> {
  if (endpoint && (await waitForRunToClose(endpoint, executionArn)) !== undefined) return;
  while ((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status === 'RUNNING')
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MILLIS));
}

export const spec = commandSpec({
  usage: 'autosave describe <run-arn-or-name> [--wait] [--json] [--endpoint <url>]',
  options: {
    wait: {
      type: 'boolean',
      default: false,
      description:
        'first wait until the run closes: on the local engine one request answered at its close\n(GET /_autosave/wait), elsewhere DescribeExecution every second',
    },
  },
  notes: ["<run-arn-or-name>: the run's execution ARN, or its name as `autosave runs` lists it"],
  examples: [
    'npx autosave describe site-4412',
    'npx autosave describe site-4412 --json --endpoint http://127.0.0.1:8083',
  ],
});

/** `autosave describe <run>`: one run's status, where it is, its approval link, input and output. */
export const summary = 'show one run: status, current step, approval link, input and output (--json)';

/** Runs `autosave describe` with its arguments; resolves to the exit code. */
export const run = commandRunner('describe', async (args) => {
  const { values, positionals } = parseCommandArgs(args, spec);
  if (values.help) return void terminal().line(commandHelp(spec));
  const ref = requirePositional(positionals, 0, 'run', spec.usage);
  const ctx = createCliContext(values.endpoint, values.config);
  let details = await loadRunDetails(ctx.sfn, ref, await ctx.registryNames());
  if (values.wait && details.execution.status === 'RUNNING') {
    await waitUntilClosed(ctx.sfn, ctx.sfnTarget.endpoint, details.execution.executionArn!);
    details = await loadRunDetails(ctx.sfn, details.execution.executionArn!, await ctx.registryNames());
  }
  const e = details.execution;
  if (values.json) {
    const { $metadata: _ignored, ...execution } = e;
    return void printJson({
      ...execution,
      workflow: details.workflow,
      currentSteps: details.currentSteps,
      approvals: details.approvals,
    });
  }
  const t = terminal();
  const elapsed = formatElapsed(e.startDate, e.stopDate ?? (await ctx.engineNow()));
  const waiting = details.approvals.length > 0;
  let status = e.status ?? '?';
  if (waiting) status += ` (waiting on a human at ${details.approvals.map((a) => a.step).join(', ')})`;
  else if (details.currentSteps.length > 0 && e.status === 'RUNNING')
    status += ` (at ${details.currentSteps.join(', ')})`;
  const rows: [string, string | undefined][] = [
    ['run', e.name],
    ['arn', e.executionArn],
    [
      'workflow',
      details.workflow + (e.stateMachineVersionArn ? ` (version ${e.stateMachineVersionArn.split(':').pop()})` : ''),
    ],
    ['status', status],
    ['started', formatTime(e.startDate)],
    ['stopped', e.stopDate ? formatTime(e.stopDate) : undefined],
    ['elapsed', elapsed],
    ['redrives', e.redriveCount ? String(e.redriveCount) : undefined],
    [
      'steps',
      `${details.analysis.entries.length} entered, ${details.analysis.entries.filter((s) => s.replayed).length} from the ledger`,
    ],
    ...details.approvals.flatMap((a): [string, string][] => [
      ['approval', `${a.url ?? '(no link recorded)'}${a.expiresAt ? `  (expires ${a.expiresAt})` : ''}`],
      ...(a.approvalId ? [['', `or: ${approveCommandLine(a.approvalId, values.endpoint)}`] as [string, string]] : []),
    ]),
    ['input', e.input],
    ['output', e.output],
    ['error', e.error ? `${e.error}${e.cause ? `: ${e.cause}` : ''}` : undefined],
  ];
  for (const [k, v] of rows) if (v !== undefined) t.line(`${k.padEnd(9)} ${v}`);
});
