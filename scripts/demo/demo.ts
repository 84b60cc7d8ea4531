import { commandHelp, commandSpec, parseCommandArgs } from '../../packages/local/src/cli/args';
import { commandRunner } from '../../packages/local/src/cli/command-runner';
import { DEMO_WORKFLOW, runCrashDemo } from './crash-demo';
import { requireProject } from '../../packages/local/src/cli/project';
import { CliUsageError } from '../../packages/local/src/cli/errors';
import { EXIT_FAILURE } from '../../packages/local/src/cli/errors';
import { printJson, terminal } from '../../packages/local/src/cli/output';

export const spec = commandSpec({
  usage: 'npm run demo -- [--keep] [--verbose] [--json] [--config <file>]',
  options: {
    keep: {
      type: 'boolean',
      default: false,
      description: "keep the demo's data directory, to look at the run in the console afterwards",
    },
    verbose: { type: 'boolean', default: false, description: "print the demo engine's own output too" },
  },
  examples: ['npm run demo', 'npm run demo -- --keep'],
  positionals: false,
  common: ['json', 'config', 'help'],
});

/**
 * `npm run demo`: the crash demo, end to end, on a throw-away data directory. A tool of this repository (it starts
 * the repository's bin/ on the example app's workflow), so not a command of the published CLI.
 */
export const summary = 'the crash demo: kill the engine right after the welcome email, restart, prove it was sent once';

/** Runs the demo with its arguments; resolves to the exit code. */
export const run = commandRunner('demo', async (args) => {
  const { values } = parseCommandArgs(args, spec);
  if (values.help) return void terminal().line(commandHelp(spec));
  const project = await requireProject(values.config, 'demo');
  const workflow = project.workflows.find((w) => w.name === DEMO_WORKFLOW);
  if (!workflow)
    throw new CliUsageError(
      `npm run demo runs the example app's ${DEMO_WORKFLOW} workflow; ${project.configFile} has none`,
    );
  const t = terminal();
  const say = values.json ? () => undefined : (line: string) => t.line(line);
  const proof = await runCrashDemo({
    workflow,
    configFile: project.configFile,
    say,
    keepData: values.keep,
    onEngineOutput: values.verbose ? (line) => t.line(`   | ${line}`) : undefined,
  });
  if (values.json) printJson(proof);
  else {
    t.line('');
    t.line('Proof:');
    for (const c of proof.checks) t.line(`  ${c.holds ? '✔' : '✘'} ${c.claim}  (${c.evidence})`);
    t.line('');
    t.line(
      proof.holds
        ? 'The welcome email was sent exactly once across a SIGKILL, and the run finished.'
        : 'THE PROOF DOES NOT HOLD.',
    );
    if (values.keep)
      t.line(
        `See it in the console: npx autosave local --data ${proof.dataDir} --port 0   (then open the URL it prints)`,
      );
  }
  return proof.holds ? 0 : EXIT_FAILURE;
});
