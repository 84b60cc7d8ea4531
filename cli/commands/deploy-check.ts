import {
  DescribeStateMachineAliasCommand,
  DescribeStateMachineCommand,
  ListExecutionsCommand,
  type ExecutionListItem,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { compileWorkflow } from '../../lib/workflow';
import { parseCommandArgs } from '../args';
import { commandRunner, createCliContext } from '../command';
import { compareDefinitions, type DefinitionComparison, listDeployedWorkflows, liveAliasArn } from '../../lib/operations';
import { printJson, printTable, terminal } from '../output';

const USAGE = 'autosave deploy-check [--json]';

/** `autosave deploy-check`: what a deploy of the current code would change. */
export const summary = 'compare compiled workflows with what is deployed: who gets a new version, runs in flight on the old (--json)';

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
    const page = await sfn.send(new ListExecutionsCommand({ stateMachineArn, statusFilter: 'RUNNING', maxResults: 1000, nextToken }));
    out.push(...(page.executions ?? []));
    nextToken = page.nextToken;
  } while (nextToken);
  return out;
}

/** Compares every workflow of the registry with its deployed `live` version. */
export async function checkDeploy(sfn: SFNClient): Promise<DeployCheck[]> {
  const { workflows } = await import('../../statemachines/index');
  const deployed = await listDeployedWorkflows(sfn, workflows.map((w) => w.name));
  return Promise.all(
    workflows.map(async (w): Promise<DeployCheck> => {
      const compiled = compileWorkflow(w) as unknown as Parameters<typeof compareDefinitions>[0];
      const machine = deployed.find((d) => d.workflow === w.name);
      if (!machine) return { workflow: w.name, codeVersion: w.version, action: 'create', runsInFlight: 0, runsInFlightByVersion: {} };
      const alias = await sfn.send(new DescribeStateMachineAliasCommand({ stateMachineAliasArn: liveAliasArn(machine.stateMachineArn) })).catch(() => undefined);
      // The version taking most new starts is the live one (an alias may split traffic during a rollout).
      const liveVersionArn = [...(alias?.routingConfiguration ?? [])].sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0))[0]?.stateMachineVersionArn;
      const live = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: liveVersionArn ?? machine.stateMachineArn }));
      const diff = compareDefinitions(compiled, JSON.parse(live.definition ?? '{}'));
      const byVersion: Record<string, number> = {};
      for (const e of await runningExecutions(sfn, machine.stateMachineArn)) {
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

/** Runs `autosave deploy-check` with its arguments; resolves to the exit code. */
export const run = commandRunner('deploy-check', async (args) => {
  const { values } = parseCommandArgs(args, {}, USAGE);
  if (values.help) return void terminal().line(`usage: ${USAGE}`);
  const ctx = createCliContext(values.endpoint);
  const checks = await checkDeploy(ctx.sfn);
  if (values.json) return void printJson(checks);
  printTable(
    ['WORKFLOW', 'CODE', 'LIVE', 'ON DEPLOY', 'RUNS IN FLIGHT (keep their version)', 'WHAT DIFFERS'],
    checks.map((c) => [
      c.workflow,
      c.codeVersion,
      c.liveVersionArn ? `v${c.liveVersionArn.split(':').pop()!}` : c.action === 'create' ? 'not deployed' : 'unversioned',
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
});
