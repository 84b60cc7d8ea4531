import { existsSync, readFileSync } from 'node:fs';
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { parseCommandArgs, requirePositional } from '../args';
import { commandRunner, createCliContext } from '../command';
import { CliUsageError, EXIT_FAILURE } from '../errors';
import { followRun } from '../follow-run';
import { printJson, terminal } from '../output';
import { findDeployedWorkflow, liveAliasArn } from '../../lib/operations';

const USAGE = 'autosave start <workflow> [--input <file|json>] [--name <run-name>] [--wait] [--json]';

/** `autosave start <workflow>`: starts a run through the workflow's `live` alias. */
export const summary = "start a run through the workflow's live alias (--input, --name, --wait follows it)";

/** The execution input: inline JSON, a JSON file, or the workflow's example input when none is given. */
export async function readRunInput(value: string | undefined, workflow: string): Promise<string> {
  if (value === undefined) {
    const registry = await import('../../statemachines/index').catch(() => undefined);
    const example = registry?.findWorkflow(workflow)?.exampleInput;
    return JSON.stringify(example ?? {});
  }
  const text = /^\s*[[{"]/.test(value) || !existsSync(value) ? value : readFileSync(value, 'utf8');
  try {
    return JSON.stringify(JSON.parse(text));
  } catch (err) {
    throw new CliUsageError(`--input is neither valid JSON nor a readable JSON file: ${(err as Error).message}`);
  }
}

/** Runs `autosave start` with its arguments; resolves to the exit code. */
export const run = commandRunner('start', async (args) => {
  const { values, positionals } = parseCommandArgs(args, { input: { type: 'string' }, name: { type: 'string' }, wait: { type: 'boolean', default: false } }, USAGE);
  if (values.help) return void terminal().line(`usage: ${USAGE}`);
  const workflow = requirePositional(positionals, 0, 'workflow', USAGE);
  const ctx = createCliContext(values.endpoint);
  const input = await readRunInput(values.input, workflow);
  const machine = await findDeployedWorkflow(ctx.sfn, workflow, await ctx.registryNames());
  const started = await ctx.sfn.send(new StartExecutionCommand({ stateMachineArn: liveAliasArn(machine.stateMachineArn), input, name: values.name }));
  const arn = started.executionArn!;
  const name = arn.split(':').pop()!;
  const t = terminal();
  if (!values.wait) {
    if (values.json) return void printJson({ executionArn: arn, name, startDate: started.startDate });
    t.line(`started ${name}`);
    t.line(`  arn: ${arn}`);
    t.line(`  follow it: npx autosave describe ${name}   (or start with --wait)`);
    return;
  }
  if (!values.json) t.line(`started ${name} (${workflow})`);
  const outcome = await followRun(ctx.sfn, arn);
  const e = outcome.execution;
  if (values.json) {
    printJson({ executionArn: arn, name, status: e.status, output: e.output, error: e.error, cause: e.cause, approvals: outcome.approvals });
  } else if (outcome.approvals.length > 0) {
    for (const a of outcome.approvals) {
      t.line(`waiting on a human at ${a.step}${a.expiresAt ? ` (link expires ${a.expiresAt})` : ''}`);
      if (a.url) t.line(`  approve in a browser: ${a.url}`);
      if (a.approvalId) t.line(`  or here:             npx autosave approve ${a.approvalId} [--reject] [--comment "..."]`);
    }
  } else if (e.status === 'SUCCEEDED') {
    t.line(`SUCCEEDED  output: ${e.output ?? 'null'}`);
  } else {
    t.line(`${e.status}  ${e.error ?? ''}${e.cause ? `: ${e.cause}` : ''}`);
  }
  return e.status === 'RUNNING' || e.status === 'SUCCEEDED' ? 0 : EXIT_FAILURE;
});
