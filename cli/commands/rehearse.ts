import { parseArgs } from 'node:util';

/** `autosave rehearse`: the deploy rehearsal with runs in flight (see cli/rehearsal.ts). */
export const summary = 'rehearse a code-changing deploy on the local engine with runs waiting on approvals, and print what happened to them';

const USAGE = `usage: autosave rehearse [--runs 1000] [--runs-after <n>] [--enforce-iam [--drop-old-version-grants]] [--json]
  --enforce-iam               judge every Task call against its state machine role (IAM policy simulator)
  --drop-old-version-grants   deploy a v2 whose roles may invoke only the Lambda versions v2 publishes
                              (with --enforce-iam, the runs in flight fail with AccessDenied: exit 1)`;

export async function run(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: {
        runs: { type: 'string', default: '1000' },
        'runs-after': { type: 'string' },
        'enforce-iam': { type: 'boolean', default: false },
        'drop-old-version-grants': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    console.error(`autosave rehearse: ${(err as Error).message.split('\n')[0]}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const runsBefore = Number(values.runs);
  const runsAfter = values['runs-after'] === undefined ? undefined : Number(values['runs-after']);
  if (!Number.isInteger(runsBefore) || runsBefore < 1 || (runsAfter !== undefined && (!Number.isInteger(runsAfter) || runsAfter < 1))) {
    console.error(`autosave rehearse: --runs and --runs-after take a positive whole number\n${USAGE}`);
    return 2;
  }
  const { rehearse } = await import('../rehearsal');
  const report = await rehearse({
    runsBefore,
    runsAfter,
    enforceIam: values['enforce-iam'],
    dropOldVersionGrants: values['drop-old-version-grants'],
    log: values.json ? undefined : (line) => console.log(line),
  });
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else {
    console.log('');
    console.log(`runs in flight at the deploy   ${report.runsInFlightAtDeploy}`);
    console.log(`deploy --local                 ${report.deployMillis} ms (assembly ${report.assemblies.before} -> ${report.assemblies.after})`);
    console.log(`IAM                            ${report.iamEnforced ? 'enforced' : 'not enforced'}${report.oldVersionGrantsDropped ? '; v2 roles grant only the Lambda versions v2 publishes' : ''}`);
    console.log('runs finished per state machine version');
    for (const [v, n] of Object.entries(report.finishedPerStateMachineVersion)) console.log(`  ${v}  ${n}`);
    for (const [error, n] of Object.entries(report.failedPerError)) console.log(`runs failed with ${error}`.padEnd(31) + ` ${n}`);
    console.log('Lambda invocations per version');
    for (const [v, n] of Object.entries(report.invocationsPerLambdaVersion).sort()) console.log(`  ${v}  ${n}`);
    console.log(`peak RSS                       ${report.peakRssMiB} MiB (engine, sandboxes and driver in one process)`);
    console.log(`rehearsal took                 ${report.totalMillis} ms`);
    console.log(report.problems.length === 0 ? 'every run finished on the versions it started on' : `${report.problems.length} problem(s):`);
    for (const p of report.problems.slice(0, 50)) console.log(`  ${p}`);
  }
  return report.problems.length === 0 ? 0 : 1;
}
