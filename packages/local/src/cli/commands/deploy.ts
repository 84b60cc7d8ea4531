import { commandHelp, commandSpec, parseCommandArgs } from '../args';
import { DEFAULT_LOCAL_ENDPOINT } from '../aws-clients';
import { commandRunner } from '../command-runner';
import { CliUsageError } from '../errors';
import { printJson, terminal } from '../output';

/** `autosave deploy --local`: applies the current app to a running engine as a CloudFormation update would. */
export const summary =
  'deploy --local: apply the current app (synthesized, or --app <cdk.out>) to a running engine started with local --stack';

const USAGE = `autosave deploy --local [--endpoint ${DEFAULT_LOCAL_ENDPOINT}] [--app <cdk.out>] [--stack-name <name>] [--json]`;

export const spec = commandSpec({
  usage: USAGE,
  options: {
    local: {
      type: 'boolean',
      default: false,
      description: 'deploy to a running local engine (started with `autosave local --stack`); required',
    },
    app: {
      type: 'string',
      value: '<cdk.out>',
      description: 'a synthesized cloud assembly (default: synthesize the app here)',
    },
    'stack-name': {
      type: 'string',
      value: '<name>',
      description: 'the stack to deploy, when the assembly holds several',
    },
  },
  notes: ['to deploy to AWS: npm run deploy'],
  examples: [
    'npx autosave deploy --local',
    'npx autosave deploy --local --app cdk.out --endpoint http://127.0.0.1:8083',
  ],
  positionals: false,
});

/** Synthesizes (or reads --app), sends the assembly to the engine, prints what changed. */
export const run = commandRunner('deploy', async (args) => {
  const started = Date.now();
  const { values } = parseCommandArgs(args, spec);
  if (values.help) return void terminal().line(commandHelp(spec));
  if (!values.local)
    throw new CliUsageError(`only --local is served here; to deploy to AWS: npm run deploy (usage: ${USAGE})`);
  const { appAssembly } = await import('../stack-assembly');
  const assembly = await appAssembly(values.app);
  if (!values.json) terminal().line(`assembly: ${assembly.origin}`);
  const { deployToLocalEngine } = await import('../local-deploy');
  const body = await deployToLocalEngine(
    values.endpoint ?? DEFAULT_LOCAL_ENDPOINT,
    assembly.directory,
    values['stack-name'],
  );
  if (values.json) return void printJson(body);
  const changed = body.changes.filter((c) => c.change !== 'unchanged');
  terminal().line(
    `deployed stack ${body.stackName}, assembly ${body.assemblyId}: ${changed.length} change(s) in ${body.durationMillis} ms (${Date.now() - started} ms in all)`,
  );
  for (const c of changed)
    terminal().line(`  ${c.change.padEnd(9)} ${c.logicalId} (${c.type})${c.physicalId ? ` ${c.physicalId}` : ''}`);
});
