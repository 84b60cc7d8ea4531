import { LIVE_ALIAS_NAME, LOCAL_ACCOUNT_ID } from '@autosave/workflow/config';
import {
  compileWorkflow,
  localPlaceholderValues,
  substitutePlaceholders,
  toAslJson,
  type Workflow,
} from '@autosave/workflow';
import type { StepFunctionsHandler } from '../api/step-functions-service';

/** Role every local state machine names (nothing checks it locally; the API requires one). */
export const LOCAL_STATE_MACHINE_ROLE_ARN = `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/autosave-local`;

/** What deploying one workflow did. */
export interface WorkflowDeployment {
  readonly workflow: string;
  readonly stateMachineArn: string;
  /** The version the `live` alias now routes to. */
  readonly versionArn: string;
  readonly aliasArn: string;
  /** `created`, `updated` (a new version), or `unchanged` (the alias already pointed at this definition). */
  readonly change: 'created' | 'updated' | 'unchanged';
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an SDK answer read field by field
type Wire = Record<string, any>;

/** Compiles a workflow to the definition the local engine runs: its placeholders filled with local ARNs. */
export function localDefinition(workflow: Workflow): string {
  return toAslJson(substitutePlaceholders(compileWorkflow(workflow), localPlaceholderValues(workflow.name)));
}

const sameJson = (a: string, b: string): boolean => JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));

async function findStateMachine(sfn: StepFunctionsHandler, name: string): Promise<string | undefined> {
  let nextToken: string | undefined;
  do {
    const page: Wire = await sfn.handle('ListStateMachines', nextToken ? { nextToken } : {});
    const match = (page.stateMachines as Wire[]).find((m) => m.name === name);
    if (match) return match.stateMachineArn as string;
    nextToken = page.nextToken;
  } while (nextToken);
  return undefined;
}

/** Options of {@link deployDefinition}. */
export interface DeployDefinitionOptions {
  /** The version description. @default none */
  readonly description?: string;
  /** The state machine type (a type never changes once created, as on AWS). @default 'STANDARD' */
  readonly type?: 'STANDARD' | 'EXPRESS';
}

/**
 * Deploys one definition as a deploy does on AWS, through the Step Functions API: create the state machine
 * (or update it when the definition changed) with `publish`, then point the `live` alias at the newest
 * version. Runs already started keep the version they started on.
 */
export async function deployDefinition(
  sfn: StepFunctionsHandler,
  name: string,
  definition: string,
  options: DeployDefinitionOptions = {},
): Promise<WorkflowDeployment> {
  const { description, type = 'STANDARD' } = options;
  let stateMachineArn = await findStateMachine(sfn, name);
  let versionArn: string | undefined;
  let change: WorkflowDeployment['change'] = 'unchanged';
  if (!stateMachineArn) {
    const created: Wire = await sfn.handle('CreateStateMachine', {
      name,
      definition,
      roleArn: LOCAL_STATE_MACHINE_ROLE_ARN,
      type,
      publish: true,
      ...(description ? { versionDescription: description } : {}),
    });
    stateMachineArn = created.stateMachineArn as string;
    versionArn = created.stateMachineVersionArn as string;
    change = 'created';
  } else {
    const current: Wire = await sfn.handle('DescribeStateMachine', { stateMachineArn });
    if (!sameJson(current.definition as string, definition)) {
      const updated: Wire = await sfn.handle('UpdateStateMachine', {
        stateMachineArn,
        definition,
        publish: true,
        ...(description ? { versionDescription: description } : {}),
      });
      versionArn = updated.stateMachineVersionArn as string;
      change = 'updated';
    } else {
      const versions: Wire = await sfn.handle('ListStateMachineVersions', { stateMachineArn, maxResults: 1 });
      versionArn = (versions.stateMachineVersions as Wire[])[0]?.stateMachineVersionArn;
      if (!versionArn) {
        versionArn = ((await sfn.handle('PublishStateMachineVersion', { stateMachineArn })) as Wire)
          .stateMachineVersionArn as string;
        change = 'updated';
      }
    }
  }
  const aliasArn = `${stateMachineArn}:${LIVE_ALIAS_NAME}`;
  const routingConfiguration = [{ stateMachineVersionArn: versionArn, weight: 100 }];
  let alias: Wire | undefined;
  try {
    alias = await sfn.handle('DescribeStateMachineAlias', { stateMachineAliasArn: aliasArn });
  } catch (err) {
    if ((err as Error).name !== 'ResourceNotFound') throw err;
  }
  if (!alias) {
    await sfn.handle('CreateStateMachineAlias', { name: LIVE_ALIAS_NAME, routingConfiguration });
  } else {
    const routes = alias.routingConfiguration as Wire[];
    if (routes.length !== 1 || routes[0].stateMachineVersionArn !== versionArn) {
      await sfn.handle('UpdateStateMachineAlias', { stateMachineAliasArn: aliasArn, routingConfiguration });
      if (change === 'unchanged') change = 'updated';
    }
  }
  return { workflow: name, stateMachineArn, versionArn: versionArn as string, aliasArn, change };
}

/** Deploys every workflow of a registry (statemachines/), in order. */
export async function deployWorkflows(
  sfn: StepFunctionsHandler,
  workflows: readonly Workflow[],
): Promise<WorkflowDeployment[]> {
  const deployments: WorkflowDeployment[] = [];
  for (const workflow of workflows) {
    deployments.push(
      await deployDefinition(sfn, workflow.name, localDefinition(workflow), {
        description: `${workflow.name} ${workflow.version ?? ''}`.trim(),
        type: workflow.type ?? 'STANDARD',
      }),
    );
  }
  return deployments;
}
