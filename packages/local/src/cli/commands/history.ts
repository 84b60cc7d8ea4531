import { commandHelp, commandSpec, parseCommandArgs, requirePositional } from '../args';
import { createCliContext } from '../command';
import { commandRunner } from '../command-runner';
import { printJson, printTable, terminal } from '../output';
import { formatDuration, describeStepOutcome, stepKind, loadRunDetails, runOrigin } from '../../operations';

export const spec = commandSpec({
  usage: 'autosave history <run-arn-or-name> [--events [--type <event-type>]] [--json] [--endpoint <url>]',
  options: {
    events: {
      type: 'boolean',
      default: false,
      description: 'also print the event history: id, time, type and the state each event belongs to',
    },
    type: {
      type: 'string',
      value: '<text>',
      description:
        'with --events: only events whose type contains this text (case-insensitive: Failed, TaskState, Map)',
    },
  },
  notes: ["<run-arn-or-name>: the run's execution ARN, or its name as `autosave runs` lists it"],
  examples: ['npx autosave history site-4412', 'npx autosave history site-4412 --events --type failed'],
});

/** `autosave history <run>`: the run as a timeline of steps. */
export const summary =
  'a run as a timeline: steps, attempts, durations, results taken from the ledger (--json, --events)';

/** Runs `autosave history` with its arguments; resolves to the exit code. */
export const run = commandRunner('history', async (args) => {
  const { values, positionals } = parseCommandArgs(args, spec);
  if (values.help) return void terminal().line(commandHelp(spec));
  const ref = requirePositional(positionals, 0, 'run', spec.usage);
  const ctx = createCliContext(values.endpoint, values.config);
  const details = await loadRunDetails(ctx.sfn, ref, await ctx.registryNames());
  const { analysis, execution } = details;
  if (values.json) {
    return void printJson({
      executionArn: execution.executionArn,
      status: execution.status,
      resumes: analysis.resumes,
      steps: analysis.entries.map((e) => ({
        ...e,
        kind: stepKind(e),
        durationMillis: e.exitedAt ? e.exitedAt.getTime() - e.enteredAt.getTime() : undefined,
      })),
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
      (analysis.resumes > analysis.redrives
        ? `, resumed after ${analysis.resumes - analysis.redrives} engine restart(s)`
        : ''),
  );
  const pulled = await runOrigin(ctx.sfnTarget.endpoint, execution.executionArn as string);
  if (pulled)
    t.line(
      `pulled from ${pulled.source_arn} (account ${pulled.account}, region ${pulled.region}): events 1 to ${pulled.last_imported_id} are its history there`,
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
    rows.splice(mark.afterEntries, 0, [
      '--',
      `redrive ${mark.redriveCount}`,
      '',
      '',
      '',
      `+${formatDuration(mark.at.getTime() - origin)}`,
      '',
      'the run resumes at its failed step',
    ]);
  }
  printTable(['#', 'STEP', 'KIND', 'KEY', 'ATTEMPTS', 'AT', 'TOOK', 'OUTCOME'], rows);
  if (execution.error) t.line(`\nerror: ${execution.error}${execution.cause ? `: ${execution.cause}` : ''}`);
  if (values.events) {
    t.line();
    const type = values.type?.toLowerCase();
    const events = type ? details.events.filter((ev) => ev.type?.toLowerCase().includes(type)) : details.events;
    printTable(
      ['ID', 'TIME', 'TYPE', 'STATE'],
      events.map((ev) => [
        String(ev.id),
        ev.timestamp?.toISOString() ?? '',
        ev.type ?? '',
        (ev.id !== undefined && analysis.stateOfEvent.get(ev.id)) || '-',
      ]),
    );
  }
});
