import { parseCommandArgs, requirePositional } from '../args';
import { createCliContext } from '../command';
import { commandRunner } from '../command-runner';
import { printJson, printTable, terminal } from '../output';
import { formatDuration, describeStepOutcome, stepKind, loadRunDetails } from '../../operations';

const USAGE = 'autosave history <run-arn-or-name> [--json] [--events]';

/** `autosave history <run>`: the run as a timeline of steps. */
export const summary = 'a run as a timeline: steps, attempts, durations, results taken from the ledger (--json, --events)';

/** Runs `autosave history` with its arguments; resolves to the exit code. */
export const run = commandRunner('history', async (args) => {
  const { values, positionals } = parseCommandArgs(args, { events: { type: 'boolean', default: false } }, USAGE);
  if (values.help) return void terminal().line(`usage: ${USAGE}`);
  const ref = requirePositional(positionals, 0, 'run', USAGE);
  const ctx = createCliContext(values.endpoint, values.config);
  const details = await loadRunDetails(ctx.sfn, ref, await ctx.registryNames());
  const { analysis, execution } = details;
  if (values.json) {
    return void printJson({
      executionArn: execution.executionArn,
      status: execution.status,
      resumes: analysis.resumes,
      steps: analysis.entries.map((e) => ({ ...e, kind: stepKind(e), durationMillis: e.exitedAt ? e.exitedAt.getTime() - e.enteredAt.getTime() : undefined })),
      ...(values.events ? { events: details.events } : {}),
    });
  }
  const t = terminal();
  const origin = analysis.startedAt?.getTime() ?? execution.startDate?.getTime() ?? 0;
  const end = analysis.closedAt?.getTime() ?? (await ctx.engineNow());
  t.line(
    `${execution.name} (${details.workflow}) ${execution.status}${end === undefined ? '' : ` after ${formatDuration(end - origin)}`}` +
      `, ${details.events.length} events` +
      (analysis.redrives ? `, redriven ${analysis.redrives}x` : '') +
      (analysis.resumes > analysis.redrives ? `, resumed after ${analysis.resumes - analysis.redrives} engine restart(s)` : ''),
  );
  t.line();
  const rows = analysis.entries.map((e, i) => [
      String(i + 1),
      e.name,
      stepKind(e),
      e.idempotencyKey ?? '',
      e.attempts ? String(e.attempts) : '-',
      `+${formatDuration(e.enteredAt.getTime() - origin)}`,
      e.exitedAt ? formatDuration(e.exitedAt.getTime() - e.enteredAt.getTime()) : '…',
      describeStepOutcome(e),
    ]);
  // A redrive shows as a separator row where it happened.
  for (const mark of [...analysis.redriveMarks].reverse()) {
    rows.splice(mark.afterEntries, 0, ['--', `redrive ${mark.redriveCount}`, '', '', '', `+${formatDuration(mark.at.getTime() - origin)}`, '', 'the run resumes at its failed step']);
  }
  printTable(['#', 'STEP', 'KIND', 'KEY', 'ATTEMPTS', 'AT', 'TOOK', 'OUTCOME'], rows);
  if (execution.error) t.line(`\nerror: ${execution.error}${execution.cause ? `: ${execution.cause}` : ''}`);
  if (values.events) {
    t.line();
    for (const ev of details.events) t.line(`${String(ev.id).padStart(4)}  ${ev.timestamp?.toISOString()}  ${ev.type}`);
  }
});
