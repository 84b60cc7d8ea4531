import { commandHelp, commandSpec, parseCommandArgs } from '../../packages/local/src/cli/args';
import { commandRunner } from '../../packages/local/src/cli/command-runner';
import { CliUsageError, EXIT_FAILURE } from '../../packages/local/src/cli/errors';
import { printJson, terminal } from '../../packages/local/src/cli/output';

/**
 * `npm run rehearse`: the deploy rehearsal with runs in flight (see rehearsal.ts), a tool of this repository (it
 * text-edits the example app's sources), so not a command of the published CLI.
 */
export const summary =
  'rehearse a code-changing deploy on the local engine with runs waiting on approvals, and print what happened to them';

const USAGE =
  'npm run rehearse -- [--runs 1000] [--runs-after <n>] [--enforce-iam [--drop-old-version-grants]] [--json]';

export const spec = commandSpec({
  usage: USAGE,
  options: {
    runs: {
      type: 'string',
      value: '<n>',
      default: '1000',
      description: 'runs started, each waiting on an approval, before the deploy',
    },
    'runs-after': {
      type: 'string',
      value: '<n>',
      description: 'runs started after the deploy (default: a tenth of --runs)',
    },
    'enforce-iam': {
      type: 'boolean',
      default: false,
      description: 'judge every Task call against its state machine role (IAM policy simulator)',
    },
    'drop-old-version-grants': {
      type: 'boolean',
      default: false,
      description:
        'deploy a v2 whose roles may invoke only the Lambda versions v2 publishes\n(with --enforce-iam, the runs in flight fail with AccessDenied: exit 1)',
    },
  },
  examples: ['npm run rehearse -- --runs 100', 'npm run rehearse -- --runs 1000 --enforce-iam --json'],
  positionals: false,
  common: ['json', 'help'],
});

/** The engine process's peak RSS goal (issue 23: 400 MB), in MiB. */
export const ENGINE_PEAK_RSS_GOAL_MIB = Math.floor(400e6 / 2 ** 20);

/** A positive whole number of runs, or a usage error naming the flag. */
function runCount(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliUsageError(`${flag} takes a positive whole number (usage: ${USAGE})`);
  return n;
}

/** Runs the rehearsal with its arguments; resolves to the exit code. */
export const run = commandRunner('rehearse', async (args) => {
  const { values } = parseCommandArgs(args, spec);
  if (values.help) return void terminal().line(commandHelp(spec));
  const runsBefore = runCount(values.runs, '--runs');
  const runsAfter = values['runs-after'] === undefined ? undefined : runCount(values['runs-after'], '--runs-after');
  const { rehearse } = await import('./rehearsal');
  const out = terminal();
  const report = await rehearse({
    runsBefore,
    runsAfter,
    enforceIam: values['enforce-iam'],
    dropOldVersionGrants: values['drop-old-version-grants'],
    log: values.json ? undefined : (line) => out.line(line),
  });
  if (values.json) printJson(report);
  else {
    out.line('');
    out.line(`runs in flight at the deploy   ${report.runsInFlightAtDeploy}`);
    out.line(
      `deploy --local                 ${report.deployMillis} ms (assembly ${report.assemblies.before} -> ${report.assemblies.after})`,
    );
    out.line(
      `IAM                            ${report.iamEnforced ? 'enforced' : 'not enforced'}${report.oldVersionGrantsDropped ? '; v2 roles grant only the Lambda versions v2 publishes' : ''}`,
    );
    out.line('runs finished per state machine version');
    for (const [v, n] of Object.entries(report.finishedPerStateMachineVersion)) out.line(`  ${v}  ${n}`);
    for (const [error, n] of Object.entries(report.failedPerError))
      out.line(`${`runs failed with ${error}`.padEnd(30)} ${n}`);
    out.line('Lambda invocations per version');
    for (const [v, n] of Object.entries(report.invocationsPerLambdaVersion).sort()) out.line(`  ${v}  ${n}`);
    const engine = report.peakRssMiB.engine;
    out.line(
      `peak RSS, engine process       ${engine === undefined ? 'not measured (Linux /proc only)' : `${engine} MiB`} (autosave local: engine and Lambda sandboxes; MALLOC_ARENA_MAX=${report.engineMallocArenas ?? 'unset'})`,
    );
    if (engine !== undefined)
      out.line(
        `peak RSS goal, engine process  <= ${ENGINE_PEAK_RSS_GOAL_MIB} MiB (400 MB): ${engine <= ENGINE_PEAK_RSS_GOAL_MIB ? 'met' : 'NOT met'}`,
      );
    out.line(
      `peak RSS, driver process       ${report.peakRssMiB.driver} MiB (this process: synthesizes, starts, approves and checks the runs through the API)`,
    );
    out.line(`rehearsal took                 ${report.totalMillis} ms`);
    out.line(
      report.problems.length === 0
        ? 'every run finished on the versions it started on'
        : `${report.problems.length} problem(s):`,
    );
    for (const p of report.problems.slice(0, 50)) out.line(`  ${p}`);
  }
  return report.problems.length === 0 ? 0 : EXIT_FAILURE;
});
