import { RedriveExecutionCommand } from '@aws-sdk/client-sfn';
import { commandHelp, commandSpec, parseCommandArgs, requirePositional } from '../args';
import { createCliContext } from '../command';
import { commandRunner } from '../command-runner';
import { printJson, terminal } from '../output';
import { resolveRun } from '../../operations';

export const spec = commandSpec({
  usage: 'autosave redrive <run-arn-or-name> [--endpoint <url>] [--json]',
  options: {},
  notes: ["<run-arn-or-name>: the run's execution ARN, or its name as `autosave pull` or `autosave runs` printed it"],
  examples: ['npx autosave redrive run-42'],
});

/** `autosave redrive <run>`: RedriveExecution of a failed, timed-out or aborted run (a pulled one too). */
export const summary = 'resume a failed run at its failed state (RedriveExecution): succeeded steps are not run again';

/** Runs `autosave redrive` with its arguments; resolves to the exit code. */
export const run = commandRunner('redrive', async (args) => {
  const { values, positionals } = parseCommandArgs(args, spec);
  if (values.help) return void terminal().line(commandHelp(spec));
  const ref = requirePositional(positionals, 0, 'run', spec.usage);
  const ctx = createCliContext(values.endpoint, values.config);
  const execution = await resolveRun(ctx.sfn, ref, await ctx.registryNames());
  const out = await ctx.sfn.send(new RedriveExecutionCommand({ executionArn: execution.executionArn }));
  if (values.json) return void printJson({ executionArn: execution.executionArn, redriveDate: out.redriveDate });
  terminal().line(
    `redriven ${execution.name}: it resumes at its failed state (follow it with autosave history ${execution.name})`,
  );
});
