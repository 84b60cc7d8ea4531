import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { StartExecutionCommand, StartSyncExecutionCommand } from '@aws-sdk/client-sfn';
import { commandHelp, commandSpec, parseCommandArgs, requirePositional } from '../args';
import { createCliContext } from '../command';
import { commandRunner } from '../command-runner';
import { CliUsageError, EXIT_FAILURE } from '../errors';
import { followRun } from '../follow-run';
import { printJson, terminal } from '../output';
import { findDeployedWorkflow, liveAliasArn } from '../../operations';
import { approveCommandLine } from './approve';
import { cliHint } from '../hints';
import { cliProject } from '../project';

const USAGE =
  'autosave start <workflow> [--input <file|json>] [--name <run-name>] [--test-case <case>] [--wait | --sync] [--json] [--endpoint <url>] [--config <file>]';

export const spec = commandSpec({
  usage: USAGE,
  options: {
    input: {
      type: 'string',
      value: '<file|json>',
      description: "the run's input: inline JSON or a JSON file (default: the workflow's example input)",
    },
    name: {
      type: 'string',
      value: '<run-name>',
      description:
        'the execution name (default: a generated one); starting the same name again is idempotent while it runs',
    },
    'test-case': {
      type: 'string',
      value: '<case>',
      description:
        "run under this test case of the engine's mock config (autosave local --mock-config);\n`autosave start 'workflow#Case'` says the same",
    },
    wait: {
      type: 'boolean',
      default: false,
      description:
        'follow the run until it ends or waits on a human, and print how to approve it\n(an EXPRESS workflow runs in one StartSyncExecution call instead)',
    },
    sync: {
      type: 'boolean',
      default: false,
      description: 'run an EXPRESS workflow in one StartSyncExecution call and print its outcome',
    },
  },
  notes: [
    '<workflow>: a deployed workflow by name (`autosave runs` and the console list them); runs start through its live alias',
  ],
  examples: [
    'npx autosave start clinical-trial-onboarding --input \'{"siteId":"site-4412"}\' --wait',
    'npx autosave start support-triage --input ticket.json --sync',
    'npx autosave start clinical-trial-onboarding --test-case HappyPath --endpoint http://127.0.0.1:8083',
  ],
});

/** `autosave start <workflow>`: starts a run through the workflow's `live` alias. */
export const summary =
  "start a run through the workflow's live alias (--input, --name, --wait follows it, --sync runs an EXPRESS workflow in one call)";

/** The execution input: inline JSON, a JSON file, or the workflow's example input (from the project's config) when none is given. */
export async function readRunInput(value: string | undefined, workflow: string, configFlag?: string): Promise<string> {
  if (value === undefined) {
    const example = (await cliProject(configFlag))?.workflows.find((w) => w.name === workflow)?.exampleInput;
    return JSON.stringify(example ?? {});
  }
  const inline = parseJson(value);
  if (inline.ok) return JSON.stringify(inline.value);
  // Not JSON: a file when it exists or looks like a path, so a missing file says so (not a parse error).
  if (!existsSync(value) && !looksLikePath(value))
    throw new CliUsageError(`--input is neither valid JSON nor a readable JSON file: ${inline.message}`);
  const path = value.replace(/^~(?=$|\/)/, homedir());
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliUsageError(
      code === 'ENOENT'
        ? `--input file ${path} does not exist`
        : `--input file ${path} cannot be read: ${(err as Error).message}`,
      { cause: err },
    );
  }
  const parsed = parseJson(text);
  if (!parsed.ok) throw new CliUsageError(`--input file ${path} is not valid JSON: ${parsed.message}`);
  return JSON.stringify(parsed.value);
}

/** Whether an `--input` value names a file rather than inline JSON: `./x`, `../x`, `/x`, `~/x` or `*.json`. */
export function looksLikePath(value: string): boolean {
  return /^(\.{1,2}\/|\/|~(\/|$))/.test(value) || /\.json$/i.test(value);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/** `wf#Case` or `--test-case Case`: the workflow and the mock config's test case to run it under, if any. */
export function splitTestCase(target: string, flag: string | undefined): { workflow: string; testCase?: string } {
  const at = target.indexOf('#');
  const workflow = at < 0 ? target : target.slice(0, at);
  const named = at < 0 ? undefined : target.slice(at + 1);
  if (named !== undefined && flag !== undefined && named !== flag)
    throw new CliUsageError(`'${target}' and --test-case ${flag} name two test cases; give one`);
  const testCase = flag ?? named;
  if (testCase === '') throw new CliUsageError(`the test case after '#' is empty (usage: ${USAGE})`);
  return { workflow, testCase };
}

/** Runs `autosave start` with its arguments; resolves to the exit code. */
export const run = commandRunner('start', async (args) => {
  const { values, positionals } = parseCommandArgs(args, spec);
  if (values.help) return void terminal().line(commandHelp(spec));
  const { workflow, testCase } = splitTestCase(
    requirePositional(positionals, 0, 'workflow', USAGE),
    values['test-case'],
  );
  if (values.sync && values.wait)
    throw new CliUsageError(`--sync and --wait do not go together (--sync already waits)\nusage: ${USAGE}`);
  const ctx = createCliContext(values.endpoint, values.config);
  const input = await readRunInput(values.input, workflow, values.config);
  const machine = await findDeployedWorkflow(ctx.sfn, workflow, await ctx.registryNames());
  // A mocked run is started as Step Functions Local starts one: `<state machine or alias ARN>#<TestCase>`.
  const target = `${liveAliasArn(machine.stateMachineArn)}${testCase === undefined ? '' : `#${testCase}`}`;
  // An EXPRESS run keeps no record that DescribeExecution could follow: --wait runs it in one synchronous call.
  if (values.sync || (values.wait && machine.type === 'EXPRESS')) {
    // StartSyncExecution: the EXPRESS run's outcome in the answer (a STANDARD workflow gets StateMachineTypeNotSupported).
    const done = await ctx.sfn.send(
      new StartSyncExecutionCommand({ stateMachineArn: target, input, name: values.name }),
    );
    const syncName = done.executionArn?.split(':').at(-2) ?? '';
    if (values.json) {
      printJson({
        executionArn: done.executionArn,
        name: syncName,
        status: done.status,
        output: done.output,
        error: done.error,
        cause: done.cause,
        billingDetails: done.billingDetails,
      });
    } else {
      const billed = done.billingDetails?.billedDurationInMilliseconds;
      const t = terminal();
      t.line(`${done.status} ${syncName} (${workflow}, express${billed !== undefined ? `, billed ${billed} ms` : ''})`);
      if (done.status === 'SUCCEEDED') t.line(`  output: ${done.output ?? 'null'}`);
      else t.line(`  ${done.error ?? ''}${done.cause ? `: ${done.cause}` : ''}`);
    }
    return done.status === 'SUCCEEDED' ? 0 : EXIT_FAILURE;
  }
  const started = await ctx.sfn.send(new StartExecutionCommand({ stateMachineArn: target, input, name: values.name }));
  const arn = started.executionArn!;
  const name = arn.split(':').pop()!;
  const t = terminal();
  if (!values.wait) {
    if (values.json) return void printJson({ executionArn: arn, name, startDate: started.startDate });
    t.line(`started ${name}${testCase === undefined ? '' : ` (test case ${testCase})`}`);
    t.line(`  arn: ${arn}`);
    t.line(`  follow it: ${cliHint(`describe ${name}`, values.endpoint)}   (or start with --wait)`);
    return;
  }
  if (!values.json) t.line(`started ${name} (${workflow}${testCase === undefined ? '' : `, test case ${testCase}`})`);
  const outcome = await followRun(ctx.sfn, arn, { engineNow: ctx.engineNow });
  const e = outcome.execution;
  if (values.json) {
    printJson({
      executionArn: arn,
      name,
      status: e.status,
      output: e.output,
      error: e.error,
      cause: e.cause,
      approvals: outcome.approvals,
    });
  } else if (outcome.approvals.length > 0) {
    for (const a of outcome.approvals) {
      t.line(`waiting on a human at ${a.step}${a.expiresAt ? ` (link expires ${a.expiresAt})` : ''}`);
      if (a.url) t.line(`  approve in a browser: ${a.url}`);
      if (a.approvalId) t.line(`  or here:             ${approveCommandLine(a.approvalId, values.endpoint)}`);
    }
  } else if (e.status === 'SUCCEEDED') {
    t.line(`SUCCEEDED  output: ${e.output ?? 'null'}`);
  } else {
    t.line(`${e.status}  ${e.error ?? ''}${e.cause ? `: ${e.cause}` : ''}`);
  }
  return e.status === 'RUNNING' || e.status === 'SUCCEEDED' ? 0 : EXIT_FAILURE;
});
