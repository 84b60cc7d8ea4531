import { commandHelp, commandSpec, parseCommandArgs, requirePositional } from '../args';
import { createCliContext } from '../command';
import { commandRunner } from '../command-runner';
import {
  DeadLetterNotFoundError,
  deadLetterMatches,
  readDeadLetters,
  redriveDeadLetters,
  resolveDeadLetterQueueUrl,
} from '../../operations';
import { CliUsageError } from '../errors';
import { printJson, printTable, terminal } from '../output';

const USAGE =
  'autosave dlq list [--json] | autosave dlq redrive <message-id|run|execution-arn> | autosave dlq redrive --all';

export const spec = commandSpec({
  usage: USAGE,
  options: { all: { type: 'boolean', default: false, description: 'with redrive: every dead letter in the queue' } },
  notes: [
    'dlq list                  the runs that failed and were dead-lettered, with their failed state and error',
    'dlq redrive <ref>         resume one at its failed step (<ref>: the message id, the run name or its ARN)',
  ],
  examples: [
    'npx autosave dlq list',
    'npx autosave dlq redrive site-4412',
    'npx autosave dlq redrive --all --endpoint http://127.0.0.1:8083',
  ],
});

/** `autosave dlq`: the dead-letter queue of failed runs, and redriving them. */
export const summary = 'dead-lettered runs: `dlq list` (--json), `dlq redrive <id>|--all` (resume at the failed step)';

const SUBCOMMANDS = ['list', 'redrive'];

/** `dlq list` or `dlq redrive` when the arguments name one, so errors read `autosave dlq redrive: ...` like other commands'. */
function commandName(args: string[]): string {
  try {
    const sub = parseCommandArgs(args, spec).positionals[0];
    return SUBCOMMANDS.includes(sub) ? `dlq ${sub}` : 'dlq';
  } catch {
    return 'dlq';
  }
}

/** Runs `autosave dlq` with its arguments; resolves to the exit code. */
export const run = (args: string[]): Promise<number> => commandRunner(commandName(args), body)(args);

async function body(args: string[]): Promise<number | void> {
  const { values, positionals } = parseCommandArgs(args, spec);
  if (values.help) return void terminal().line(commandHelp(spec));
  const sub = requirePositional(positionals, 0, "'list' or 'redrive'", USAGE);
  const ctx = createCliContext(values.endpoint, values.config);
  const queueUrl = await resolveDeadLetterQueueUrl(ctx.sqs());
  const t = terminal();
  if (sub === 'list') {
    const letters = await readDeadLetters(ctx.sqs(), queueUrl);
    if (values.json) return void printJson(letters.map(({ receiptHandle: _r, ...m }) => m));
    printTable(
      ['MESSAGE', 'RUN', 'WORKFLOW', 'STATUS', 'FAILED STATE', 'ERROR', 'AT'],
      letters.map((m) => [
        m.messageId,
        m.runName,
        m.letter.workflow,
        m.letter.status,
        m.letter.failedState ?? '-',
        m.letter.error ?? '-',
        m.letter.at,
      ]),
    );
    return;
  }
  if (sub !== 'redrive') throw new CliUsageError(`unknown dlq command '${sub}' (usage: ${USAGE})`);
  const ref = positionals[1];
  if (!values.all && !ref) throw new CliUsageError(`say which dead letter to redrive, or --all (usage: ${USAGE})`);
  if (values.all && ref) throw new CliUsageError('give either an id or --all, not both');
  const outcomes = await redriveDeadLetters(
    ctx.sfn,
    ctx.sqs(),
    queueUrl,
    (m) => values.all || deadLetterMatches(m, ref!),
  );
  if (!values.all && outcomes.length === 0)
    throw new DeadLetterNotFoundError(`no dead letter '${ref}' (see \`autosave dlq list\`)`);
  if (values.json) printJson(outcomes);
  else if (outcomes.length === 0) t.line('the dead-letter queue is empty');
  else
    for (const o of outcomes)
      t.line(o.redriven ? `redriven ${o.runName}: it resumes at its failed step` : `dropped ${o.runName}: ${o.reason}`);
}
