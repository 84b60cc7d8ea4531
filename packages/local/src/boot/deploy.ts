import type { Engine } from '@autosave/engine';
import type { Workflow } from '@autosave/workflow';
import type { WorkflowDeployment } from '../services/deploy-workflows';
import type { InProcessLambdaRunner } from '../services/lambda/lambda-runner';
import type { LocalIntegrations } from '../services/local-integrations';
import type { RecordedDecisions } from '../services/recorded-decisions';
import type { StackMode, StackDeployment, StackIamEnforcement } from '../stack';
import type { LateBoundHandler } from './api';
import type { EngineClients } from './clients';
import type { StartLocalOptions } from './options';
import type { LocalServices } from './services';
import type { Shutdown } from './shutdown';
import { expireOrphanedLeases } from './storage';

/** The stack's state machines behind their aliases, as the registry path's deployments list them. */
function stackWorkflows(stack: StackMode): WorkflowDeployment[] {
  const rows = stack.store.resources().filter((r) => r.state === 'IN_STACK');
  return rows
    .filter((r) => r.type === 'AWS::StepFunctions::StateMachineAlias')
    .map((alias) => {
      const machineArn = alias.physical_id.split(':').slice(0, 7).join(':');
      const routes = JSON.parse(alias.properties) as {
        RoutingConfiguration?: { StateMachineVersionArn: string; Weight: number }[];
        DeploymentPreference?: { StateMachineVersionArn: string };
      };
      const versionArn =
        routes.RoutingConfiguration?.[0]?.StateMachineVersionArn ??
        routes.DeploymentPreference?.StateMachineVersionArn ??
        '';
      const updated = alias.assembly_id === stack.summary()?.assemblyId;
      return {
        workflow: machineArn.split(':')[6],
        stateMachineArn: machineArn,
        versionArn,
        aliasArn: alias.physical_id,
        change: updated ? 'updated' : 'unchanged',
      } as WorkflowDeployment;
    });
}

/**
 * Hands the engine its functions and services (`up`: the runs resumed meanwhile go on), then deploys: the stack's
 * assembly (its resources are its deploy's, reached once it is done), else the project's workflows behind their
 * `live` aliases. Before the full handler is bound: a first start answers once its workflows are deployed.
 */
export async function deploy(boot: {
  readonly options: StartLocalOptions;
  readonly engine: Engine;
  readonly stack: StackMode | undefined;
  readonly workflows: readonly Workflow[];
  readonly lambdas: InProcessLambdaRunner;
  readonly clients: EngineClients;
  readonly integrations: LocalIntegrations;
  readonly decisions: RecordedDecisions | undefined;
  readonly iam: StackIamEnforcement | undefined;
  readonly up: (s: LocalServices) => void;
  readonly late: LateBoundHandler;
  readonly shutdown: Shutdown;
  readonly log: (line: string) => void;
}): Promise<WorkflowDeployment[]> {
  const { options, engine, stack, workflows, lambdas, clients, integrations, decisions, iam, up, late } = boot;
  const { shutdown, log } = boot;
  const { sqsClient, dynamodbClient, s3Client, dynamodbClientOf } = clients;
  if (stack)
    shutdown.first(
      () => stack.quiesce(),
      () => late.bind(undefined),
    );

  let deployments: WorkflowDeployment[] = [];
  let stackDeployment: StackDeployment | undefined;
  if (stack && options.stack) {
    // The stack's resources (functions, tables) are its deploy's: the engine reaches them once it is done.
    up({ lambdas, sqsClient, dynamodbClient, s3Client, ports: integrations.ports, decisions, stack, iam });
    stackDeployment = await stack.deploy(options.stack.assemblyDir, { stackName: options.stack.stackName });
    // Leases of step attempts cut off by the last stop, in every table of the stack (see the registry path).
    for (const row of stack.store.resources()) {
      if (row.type === 'AWS::DynamoDB::Table' && row.state === 'IN_STACK')
        await expireOrphanedLeases(await dynamodbClientOf(), row.physical_id, log);
    }
    deployments = stackWorkflows(stack);
    log(
      `Autosave local engine running stack ${stackDeployment.stackName}, assembly ${stackDeployment.assemblyId} (${options.stack.origin ?? 'given'}: ${stackDeployment.assemblyDir})`,
    );
    const counts = new Map<string, number>();
    for (const c of stackDeployment.changes) counts.set(c.change, (counts.get(c.change) ?? 0) + 1);
    log(`  resources: ${[...counts].map(([k, n]) => `${n} ${k}`).join(', ')} (${stackDeployment.durationMillis} ms)`);
    if (stackDeployment.notEmulated.length > 0) {
      log(
        `  not emulated (created on AWS only): ${stackDeployment.notEmulated.map((t) => `${t.count} ${t.type}`).join(', ')}`,
      );
    }
  } else {
    up({ lambdas, sqsClient, dynamodbClient, s3Client, ports: integrations.ports, decisions });
    if (options.deployWorkflows !== false)
      deployments = await (await import('../services/deploy-workflows')).deployWorkflows(engine, workflows);
  }
  return deployments;
}
