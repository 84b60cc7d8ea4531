import { parseCommandArgs, requirePositional } from '../args';
import { commandRunner, createCliContext } from '../command';
import { deadLetterMatches, readDeadLetters, redriveDeadLetters, resolveDeadLetterQueueUrl } from '../../lib/operations';
import { CliUsageError, EXIT_FAILURE } from '../errors';
import { printJson, printTable, terminal } from '../output';

const USAGE = 'autosave dlq list [--json] | autosave dlq redrive <message-id|run|execution-arn> | autosave dlq redrive --all';

/** `autosave dlq`: the dead-letter queue of failed runs, and redriving them. */
export const summary = 'dead-lettered runs: `dlq list` (--json), `dlq redrive <id>|--all` (resume at the failed step)';

/** Runs `autosave dlq` with its arguments; resolves to the exit code. */
export const run = commandRunner('dlq', async (args) => {
  const { values, positionals } = parseCommandArgs(args, { all: { type: 'boolean', default: false } }, USAGE);
  if (values.help) return void terminal().line(`usage: ${USAGE}`);
  const sub = requirePositional(positionals, 0, "'list' or 'redrive'", USAGE);
  const ctx = createCliContext(values.endpoint);
  const queueUrl = await resolveDeadLetterQueueUrl(ctx.sqs());
  const t = terminal();
  if (sub === 'list') {
    const letters = await readDeadLetters(ctx.sqs(), queueUrl);
    if (values.json) return void printJson(letters.map(({ receiptHandle: _r, ...m }) => m));
    printTable(
      ['MESSAGE', 'RUN', 'WORKFLOW', 'STATUS', 'FAILED STATE', 'ERROR', 'AT'],
      letters.map((m) => [m.messageId, m.runName, m.letter.workflow, m.letter.status, m.letter.failedState ?? '-', m.letter.error ?? '-', m.letter.at]),
    );
    return;
  }
  if (sub !== 'redrive') throw new CliUsageError(`unknown dlq command '${sub}' (usage: ${USAGE})`);
  const ref = positionals[1];
  if (!values.all && !ref) throw new CliUsageError(`say which dead letter to redrive, or --all (usage: ${USAGE})`);
  if (values.all && ref) throw new CliUsageError('give either an id or --all, not both');
  const outcomes = await redriveDeadLetters(ctx.sfn, ctx.sqs(), queueUrl, (m) => values.all || deadLetterMatches(m, ref!));
  if (values.json) printJson(outcomes);
  else if (outcomes.length === 0) t.line(values.all ? 'the dead-letter queue is empty' : `no dead letter '${ref}' (see \`autosave dlq list\`)`);
  else for (const o of outcomes) t.line(o.redriven ? `redriven ${o.runName}: it resumes at its failed step` : `dropped ${o.runName}: ${o.reason}`);
  return !values.all && outcomes.length === 0 ? EXIT_FAILURE : 0;
});
