import { parseArgs } from 'node:util';
import { DEFAULT_LOCAL_ENDPOINT } from '../aws-clients';

/** `autosave deploy --local`: applies the current app to a running engine as a CloudFormation update would. */
export const summary = 'deploy --local: apply the current app (synthesized, or --app <cdk.out>) to a running engine started with local --stack';

const USAGE = `usage: autosave deploy --local [--endpoint ${DEFAULT_LOCAL_ENDPOINT}] [--app <cdk.out>] [--stack-name <name>] [--json]
  (to deploy to AWS: npm run deploy)`;

/** Synthesizes (or reads --app), sends the assembly to the engine, prints what changed. */
export async function run(args: string[]): Promise<number> {
  const started = Date.now();
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: {
        local: { type: 'boolean', default: false },
        endpoint: { type: 'string', default: DEFAULT_LOCAL_ENDPOINT },
        app: { type: 'string' },
        'stack-name': { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    console.error(`autosave deploy: ${(err as Error).message.split('\n')[0]}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (!values.local) {
    console.error(`autosave deploy: only --local is served here\n${USAGE}`);
    return 2;
  }
  const { appAssembly } = await import('../stack-assembly');
  const assembly = await appAssembly(values.app);
  if (!values.json) console.log(`assembly: ${assembly.origin}`);
  const assemblyDir = assembly.directory;
  const { deployToLocalEngine } = await import('../local-deploy');
  const body = await deployToLocalEngine(values.endpoint, assemblyDir, values['stack-name']);
  if (values.json) {
    console.log(JSON.stringify(body, null, 2));
    return 0;
  }
  const changed = body.changes.filter((c) => c.change !== 'unchanged');
  console.log(`deployed stack ${body.stackName}, assembly ${body.assemblyId}: ${changed.length} change(s) in ${body.durationMillis} ms (${Date.now() - started} ms in all)`);
  for (const c of changed) console.log(`  ${c.change.padEnd(9)} ${c.logicalId} (${c.type})${c.physicalId ? ` ${c.physicalId}` : ''}`);
  return 0;
}
