import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  DescribeStateMachineAliasCommand,
  DescribeStateMachineCommand,
  ListExecutionsCommand,
  type ExecutionListItem,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { compileWorkflow, type Workflow } from '@autosave/workflow';
import { requireProject } from '../project';
import { commandHelp, commandSpec, parseCommandArgs } from '../args';
import { createCliContext } from '../command';
import { commandRunner } from '../command-runner';
import { compareDefinitions, type DefinitionComparison, listDeployedWorkflows, liveAliasArn } from '../../operations';
import { printJson, printTable, terminal } from '../output';
import {
  assessDeploy,
  createIamEvaluator,
  inFlightFromTemplate,
  publishedVersionsBetween,
  readCloudAssembly,
  resolveAwsDeployment,
  stackOf,
  stateMachinesOf,
  type DeploymentRecord,
  type InFlightVersion,
  type PublishedVersion,
  type ResolvedDeployment,
  type WorkflowDeployImpact,
} from '../../cloud-assembly';

/** Where `npm run synth` writes the assembly `--to` defaults to. */
const DEFAULT_ASSEMBLY = 'cdk.out';

export const spec = commandSpec({
  usage:
    'autosave deploy-check [--to <cdk.out>] [--from <deployed cdk.out>] [--stack <name>] [--json] [--endpoint <url>]',
  options: {
    to: {
      type: 'string',
      value: '<cdk.out>',
      description: `the assembly you are about to deploy (default: ${DEFAULT_ASSEMBLY}, as \`npm run synth\` writes it)`,
    },
    from: {
      type: 'string',
      value: '<cdk.out>',
      description: 'compare with this deployed assembly instead of asking the endpoint what runs are in flight',
    },
    stack: { type: 'string', value: '<name>', description: 'the stack to check, when the assembly holds several' },
  },
  examples: [
    'npm run synth && npx autosave deploy-check',
    'npx autosave deploy-check --from deployed.out --to cdk.out',
  ],
  positionals: false,
});

/** `autosave deploy-check`: what a deploy of the current code would change. */
export const summary =
  'the deploy question: per workflow a new version?, runs in flight per version, and whether the new template still lets them finish (IAM simulated; exit 1 if a deploy would strand runs)';

/** One workflow's verdict. */
export interface DeployCheck {
  readonly workflow: string;
  readonly codeVersion: string;
  /** `create` (not deployed), `new-version` (definition differs) or `unchanged`. */
  readonly action: 'create' | 'new-version' | 'unchanged';
  /** The version the `live` alias routes to now (ARN), if deployed. */
  readonly liveVersionArn?: string;
  /** Runs in flight (on any deployed version): each finishes on the version it started on, whatever the deploy does. */
  readonly runsInFlight: number;
  /** Runs in flight on any version, by version ARN. */
  readonly runsInFlightByVersion: Readonly<Record<string, number>>;
  readonly diff?: DefinitionComparison;
}

async function runningExecutions(sfn: SFNClient, stateMachineArn: string): Promise<ExecutionListItem[]> {
  const out: ExecutionListItem[] = [];
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(
      new ListExecutionsCommand({ stateMachineArn, statusFilter: 'RUNNING', maxResults: 1000, nextToken }),
    );
    out.push(...(page.executions ?? []));
    nextToken = page.nextToken;
  } while (nextToken);
  return out;
}

/** Compares every workflow of the project (autosave.config.ts) with its deployed `live` version. */
export async function checkDeploy(sfn: SFNClient, workflows: readonly Workflow[]): Promise<DeployCheck[]> {
  const deployed = await listDeployedWorkflows(
    sfn,
    workflows.map((w) => w.name),
  );
  return Promise.all(
    workflows.map(async (w): Promise<DeployCheck> => {
      const compiled = compileWorkflow(w) as unknown as Parameters<typeof compareDefinitions>[0];
      const machine = deployed.find((d) => d.workflow === w.name);
      if (!machine)
        return {
          workflow: w.name,
          codeVersion: w.version,
          action: 'create',
          runsInFlight: 0,
          runsInFlightByVersion: {},
        };
      const alias = await sfn
        .send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn: liveAliasArn(machine.stateMachineArn) }))
        .catch(() => undefined);
      // The version taking most new starts is the live one (an alias may split traffic during a rollout).
      const liveVersionArn = [...(alias?.routingConfiguration ?? [])].sort(
        (a, b) => (b.weight ?? 0) - (a.weight ?? 0),
      )[0]?.stateMachineVersionArn;
      const live = await sfn.send(
        new DescribeStateMachineCommand({ stateMachineArn: liveVersionArn ?? machine.stateMachineArn }),
      );
      const diff = compareDefinitions(compiled, JSON.parse(live.definition ?? '{}'));
      const byVersion: Record<string, number> = {};
      // An express run has nothing to keep across a deploy (and the service does not list them).
      for (const e of machine.type === 'EXPRESS' ? [] : await runningExecutions(sfn, machine.stateMachineArn)) {
        const v = e.stateMachineVersionArn ?? machine.stateMachineArn;
        byVersion[v] = (byVersion[v] ?? 0) + 1;
      }
      return {
        workflow: w.name,
        codeVersion: w.version,
        action: diff.same ? 'unchanged' : 'new-version',
        liveVersionArn,
        runsInFlight: Object.values(byVersion).reduce((a, b) => a + b, 0),
        runsInFlightByVersion: byVersion,
        diff,
      };
    }),
  );
}

function describeInFlight(c: DeployCheck): string {
  const versions = Object.entries(c.runsInFlightByVersion);
  if (versions.length === 0) return '0';
  return `${c.runsInFlight} (${versions.map(([arn, n]) => `${n} on v${arn.split(':').pop()}`).join(', ')})`;
}

function describeDiff(d: DefinitionComparison | undefined): string {
  if (!d || d.same) return '';
  const parts = [
    d.changedFields.length ? `fields ${d.changedFields.join(', ')}` : '',
    d.addedStates.length ? `new states ${d.addedStates.join(', ')}` : '',
    d.removedStates.length ? `removed ${d.removedStates.join(', ')}` : '',
    d.changedStates.length ? `changed ${d.changedStates.join(', ')}` : '',
  ].filter(Boolean);
  return parts.join('; ');
}

/** The stack of an assembly directory, resolved as a deploy on AWS after `previous`. */
function resolveAssembly(dir: string, stack: string | undefined, previous?: DeploymentRecord): ResolvedDeployment {
  const artifact = stackOf(readCloudAssembly(dir), stack);
  return resolveAwsDeployment(artifact.template, { stackName: artifact.stackName, previous });
}

/** Offline: the template deployed now (`from`) against the one a deploy would apply (`to`). */
export async function checkTemplates(from: string, to: string, stack?: string): Promise<WorkflowDeployImpact[]> {
  const before = resolveAssembly(from, stack);
  const after = resolveAssembly(to, stack, before.record);
  return assessDeploy({
    after,
    inFlight: inFlightFromTemplate(before),
    publishes: publishedVersionsBetween(before, after),
    iam: await createIamEvaluator(),
  });
}

/** The registry name a deployed function name stands for: `autosave-<name>` (local engine) or CDK's `<stack>-Functions<Pascal>...` (AWS). */
function registryNameOfFunction(functionName: string, registry: readonly string[]): string | undefined {
  const local = /^autosave-(.+)$/.exec(functionName)?.[1];
  if (local && registry.includes(local)) return local;
  return registry.find((name) =>
    functionName.includes(
      `Functions${name
        .split('-')
        .map((p) => p[0].toUpperCase() + p.slice(1))
        .join('')}`,
    ),
  );
}

/**
 * Against an endpoint (AWS or the local engine): the versions runs are on, read from the service, judged
 * against the new template. Deployed ARNs are translated to the template's (functions by registry name,
 * same qualifier; the role by the workflow's state machine), and the template is resolved as if the
 * deploy changed every function's code (each pinned function gets a version after the highest one in
 * use): the worst case a deploy can be.
 */
export async function checkStranding(
  sfn: SFNClient,
  checks: readonly DeployCheck[],
  to: string,
  stack?: string,
): Promise<WorkflowDeployImpact[]> {
  const plain = resolveAssembly(to, stack);
  const fns = plain.resolver.logicalIds('AWS::Lambda::Function').map((id) => ({
    id,
    name: String(plain.resolver.property(id, 'Description') ?? '').replace(/^Autosave /, ''),
    arn: String(plain.resolver.context.getAtt(id, 'Arn', plain.resolver)),
  }));
  const registry = fns.map((f) => f.name);
  const machines = stateMachinesOf(plain.resolver);
  const seen: PublishedVersion[] = [];
  const inFlight = new Map<string, InFlightVersion[]>();
  for (const check of checks) {
    const machine = machines.find((m) => m.name === check.workflow || m.name.endsWith(`-${check.workflow}`));
    if (!machine) continue;
    const versions: InFlightVersion[] = [];
    for (const [versionArn, runs] of Object.entries(check.runsInFlightByVersion)) {
      const described = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: versionArn }));
      const text = (described.definition ?? '{}').replace(
        /arn:[^:"]+:lambda:[^:"]*:[^:"]*:function:([A-Za-z0-9_-]+)(:[A-Za-z0-9$_-]+)?/g,
        (whole, name: string, qualifier = '') => {
          const fn = fns.find((f) => f.name === registryNameOfFunction(name, registry));
          if (!fn) return whole;
          const number = Number(qualifier.slice(1));
          if (Number.isInteger(number) && number > 0)
            seen.push({
              logicalId: `deployed:${fn.arn}:${number}`,
              parentArn: fn.arn,
              number,
              arn: `${fn.arn}:${number}`,
              fingerprint: '',
              retainedOnDelete: true,
              retainedOnReplace: true,
            });
          return fn.arn + qualifier;
        },
      );
      versions.push({
        versionArn,
        definition: JSON.parse(text) as Record<string, unknown>,
        roleArn: machine.roleArn,
        runs,
      });
    }
    inFlight.set(machine.name, versions);
  }
  const lastVersionNumber: Record<string, number> = {};
  for (const v of seen) lastVersionNumber[v.parentArn] = Math.max(lastVersionNumber[v.parentArn] ?? 0, v.number);
  const previous: DeploymentRecord = {
    environment: plain.record.environment,
    stackName: plain.record.stackName,
    versions: seen,
    lastVersionNumber,
    parents: plain.record.parents,
    templateVersions: {},
  };
  const after = resolveAssembly(to, stack, previous);
  const byName = new Map(
    checks.map((c) => [machines.find((m) => m.name === c.workflow || m.name.endsWith(`-${c.workflow}`))?.name, c]),
  );
  return assessDeploy({
    after,
    inFlight,
    publishes: (name) => byName.get(name)?.action !== 'unchanged',
    iam: await createIamEvaluator(),
  });
}

function printImpacts(impacts: readonly WorkflowDeployImpact[]): void {
  for (const impact of impacts) {
    for (const s of impact.stranded) {
      terminal().line(
        `STRANDED ${impact.stateMachine} ${s.versionArn.split(':').pop()}: ${s.request.state} ${s.request.action} on ${s.request.resource} -> ${s.result}`,
      );
    }
  }
  const stranded = impacts.filter((i) => i.stranded.length > 0);
  terminal().line(
    stranded.length === 0
      ? 'Every version in flight can still make every call its definition makes under the new template.'
      : `A deploy now would strand runs of ${stranded.map((i) => i.stateMachine).join(', ')}: do not deploy this template.`,
  );
}

/** Runs `autosave deploy-check` with its arguments; resolves to the exit code (1: the deploy would strand runs). */
export const run = commandRunner('deploy-check', async (args) => {
  const { values } = parseCommandArgs(args, spec);
  if (values.help) return void terminal().line(commandHelp(spec));
  const to = (values.to as string | undefined) ?? DEFAULT_ASSEMBLY;
  const stack = values.stack as string | undefined;
  if (values.from) {
    const impacts = await checkTemplates(values.from as string, to, stack);
    if (values.json) printJson(impacts);
    else {
      printTable(
        ['STATE MACHINE', 'ON DEPLOY', 'VERSIONS CHECKED', 'STRANDED CALLS'],
        impacts.map((i) => [
          i.stateMachine,
          i.publishesNewVersion ? 'NEW VERSION' : 'unchanged',
          i.versions.map((v) => v.versionArn.split(':').pop()).join(', '),
          String(i.stranded.length),
        ]),
      );
      printImpacts(impacts);
    }
    return impacts.some((i) => i.stranded.length > 0) ? 1 : 0;
  }
  const ctx = createCliContext(values.endpoint, values.config);
  const checks = await checkDeploy(ctx.sfn, (await requireProject(values.config, 'deploy-check')).workflows);
  // The roles can only be judged against a synthesized template: an explicit --to must exist; without one,
  // the definitions and runs in flight are still reported and the reader is told the roles were not checked.
  const assemblyPresent = existsSync(join(to, 'manifest.json'));
  if (!assemblyPresent && values.to) throw new Error(`no cloud assembly at ${to} (npm run synth writes cdk.out)`);
  const impacts = assemblyPresent ? await checkStranding(ctx.sfn, checks, to, stack) : undefined;
  const strands = impacts?.some((i) => i.stranded.length > 0) ?? false;
  if (values.json) {
    printJson({ workflows: checks, impacts: impacts ?? null, rolesChecked: assemblyPresent });
    return strands ? 1 : 0;
  }
  printTable(
    ['WORKFLOW', 'CODE', 'LIVE', 'ON DEPLOY', 'RUNS IN FLIGHT (keep their version)', 'WHAT DIFFERS'],
    checks.map((c) => [
      c.workflow,
      c.codeVersion,
      c.liveVersionArn
        ? `v${c.liveVersionArn.split(':').pop()!}`
        : c.action === 'create'
          ? 'not deployed'
          : 'unversioned',
      c.action === 'create' ? 'CREATE' : c.action === 'new-version' ? 'NEW VERSION' : 'unchanged',
      c.action === 'create' ? '-' : describeInFlight(c),
      describeDiff(c.diff),
    ]),
  );
  const changing = checks.filter((c) => c.action !== 'unchanged');
  terminal().line(
    changing.length === 0
      ? '\nA deploy now changes no workflow definition.'
      : `\nA deploy now publishes ${changing.length} new version(s); runs in flight keep the version they started on.`,
  );
  if (impacts) printImpacts(impacts);
  else
    terminal().line(
      `Roles not checked: no cloud assembly at ${to}. Run \`npm run synth\` (or pass --to <cdk.out>) to check that runs in flight can finish.`,
    );
  return strands ? 1 : 0;
});
