import { parseCommandArgs } from '../args';
import { DEFAULT_LOCAL_ENDPOINT } from '../aws-clients';
import { commandRunner } from '../command-runner';
import { CliUsageError } from '../errors';
import { printJson, terminal } from '../output';

/** `autosave deploy --local`: applies the current app to a running engine as a CloudFormation update would. */
export const summary = 'deploy --local: apply the current app (synthesized, or --app <cdk.out>) to a running engine started with local --stack';

const USAGE = `autosave deploy --local [--endpoint ${DEFAULT_LOCAL_ENDPOINT}] [--app <cdk.out>] [--stack-name <name>] [--json]`;

/** Synthesizes (or reads --app), sends the assembly to the engine, prints what changed. */
export const run = commandRunner('deploy', async (args) => {
  const started = Date.now();
  const { values } = parseCommandArgs(args, { local: { type: 'boolean', default: false }, app: { type: 'string' }, 'stack-name': { type: 'string' } }, USAGE, { positionals: false });
  if (values.help) return void terminal().line(`usage: ${USAGE}\n  (to deploy to AWS: npm run deploy)`);
  if (!values.local) throw new CliUsageError(`only --local is served here; to deploy to AWS: npm run deploy (usage: ${USAGE})`);
  const { appAssembly } = await import('../stack-assembly');
  const assembly = await appAssembly(values.app);
  if (!values.json) terminal().line(`assembly: ${assembly.origin}`);
  const { deployToLocalEngine } = await import('../local-deploy');
  const body = await deployToLocalEngine(values.endpoint ?? DEFAULT_LOCAL_ENDPOINT, assembly.directory, values['stack-name']);
  if (values.json) return void printJson(body);
  const changed = body.changes.filter((c) => c.change !== 'unchanged');
  terminal().line(`deployed stack ${body.stackName}, assembly ${body.assemblyId}: ${changed.length} change(s) in ${body.durationMillis} ms (${Date.now() - started} ms in all)`);
  for (const c of changed) terminal().line(`  ${c.change.padEnd(9)} ${c.logicalId} (${c.type})${c.physicalId ? ` ${c.physicalId}` : ''}`);
});
