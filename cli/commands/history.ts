import { parseCommandArgs, requirePositional } from '../args';
import { commandRunner, createCliContext } from '../command';
import { formatDuration, printJson, printTable, terminal } from '../output';
import { stepKind, type StepEntry } from '../run-analysis';
import { loadRunDetails } from '../run-details';

const USAGE = 'autosave history <run-arn-or-name> [--json] [--events]';

/** `autosave history <run>`: the run as a timeline of steps. */
export const summary = 'a run as a timeline: steps, attempts, durations, results taken from the ledger (--json, --events)';

/** What the last column says about a step: its outcome, its retries, and where its result came from. */
export function describeStepOutcome(entry: StepEntry): string {
  const notes: string[] = [];
  if (entry.outcome === 'succeeded') notes.push('done');
  else if (entry.outcome === 'waiting') notes.push('waiting on a human');
  else if (entry.outcome === 'running') notes.push('running');
  else notes.push(`FAILED ${entry.error ?? ''}`.trim());
  if (entry.replayed) notes.push(stepKind(entry) === 'model' ? 'recorded model output, no new call' : 'result from the ledger, no new call');
  if (entry.attemptErrors.length > 0 && entry.outcome !== 'failed') notes.push(`retried after ${entry.attemptErrors.join(', ')}`);
  // An attempt that neither failed nor succeeded was cut off: the engine stopped and invoked it again.
  const interrupted = entry.attempts - entry.attemptErrors.length - (entry.outcome === 'succeeded' ? 1 : 0) - (entry.outcome === 'running' || entry.outcome === 'waiting' ? 1 : 0);
  if (interrupted > 0) notes.push(`${interrupted} attempt${interrupted > 1 ? 's' : ''} interrupted (engine restart), invoked again`);
  if (entry.resumeIndex > 0) notes.push(`after redrive ${entry.resumeIndex}`);
  return notes.join('; ');
}

export const run = commandRunner('history', async (args) => {
  const { values, positionals } = parseCommandArgs(args, { events: { type: 'boolean', default: false } }, USAGE);
  if (values.help) return void terminal().line(`usage: ${USAGE}`);
  const ref = requirePositional(positionals, 0, 'run', USAGE);
  const ctx = createCliContext(values.endpoint);
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
  const end = analysis.closedAt?.getTime() ?? Date.now();
  t.line(
    `${execution.name} (${details.workflow}) ${execution.status} after ${formatDuration(end - origin)}` +
      `, ${details.events.length} events` +
      (analysis.resumes ? `, redriven ${analysis.resumes}x` : ''),
  );
  t.line();
  printTable(
    ['#', 'STEP', 'KIND', 'ATTEMPTS', 'AT', 'TOOK', 'OUTCOME'],
    analysis.entries.map((e, i) => [
      String(i + 1),
      e.name,
      stepKind(e),
      e.attempts ? String(e.attempts) : '-',
      `+${formatDuration(e.enteredAt.getTime() - origin)}`,
      e.exitedAt ? formatDuration(e.exitedAt.getTime() - e.enteredAt.getTime()) : '…',
      describeStepOutcome(e),
    ]),
  );
  if (execution.error) t.line(`\nerror: ${execution.error}${execution.cause ? `: ${execution.cause}` : ''}`);
  if (values.events) {
    t.line();
    for (const ev of details.events) t.line(`${String(ev.id).padStart(4)}  ${ev.timestamp?.toISOString()}  ${ev.type}`);
  }
});
