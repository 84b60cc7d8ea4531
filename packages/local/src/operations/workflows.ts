import { ListStateMachinesCommand, type SFNClient, type StateMachineListItem } from '@aws-sdk/client-sfn';
import { LIVE_ALIAS_NAME } from '@autosave/workflow/config';
import { WorkflowNotFoundError } from './errors';

/** A workflow's state machine as deployed on the endpoint. */
export interface DeployedWorkflow {
  /** The workflow's name (the registry name when the state machine carries a stack prefix). */
  readonly workflow: string;
  readonly stateMachineName: string;
  readonly stateMachineArn: string;
  /** `STANDARD` or `EXPRESS` (express runs are not listed by the service: they keep no record). */
  readonly type: string;
}

/**
 * The workflow a state machine runs: its own name locally (the engine names machines after their
 * workflow), or a registry name it ends with (`<stack>-<workflow>`, as a deployed stack may name it).
 */
export function workflowNameOf(stateMachineName: string, registryNames: readonly string[] = []): string {
  return registryNames.find((w) => stateMachineName === w || stateMachineName.endsWith(`-${w}`)) ?? stateMachineName;
}

/** Every state machine on the endpoint, paginated. */
export async function listStateMachines(sfn: SFNClient): Promise<StateMachineListItem[]> {
  const out: StateMachineListItem[] = [];
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(new ListStateMachinesCommand({ nextToken, maxResults: 1000 }));
    out.push(...(page.stateMachines ?? []));
    nextToken = page.nextToken;
  } while (nextToken);
  return out;
}

/** Every deployed workflow, named as {@link workflowNameOf} says. */
export async function listDeployedWorkflows(sfn: SFNClient, registryNames: readonly string[] = []): Promise<DeployedWorkflow[]> {
  return (await listStateMachines(sfn)).map((m) => ({
    workflow: workflowNameOf(m.name ?? '', registryNames),
    stateMachineName: m.name ?? '',
    stateMachineArn: m.stateMachineArn ?? '',
    type: m.type ?? 'STANDARD',
  }));
}

/** The deployed state machine of one workflow, or {@link WorkflowNotFoundError} listing what exists. */
export async function findDeployedWorkflow(sfn: SFNClient, workflow: string, registryNames: readonly string[] = []): Promise<DeployedWorkflow> {
  const all = await listDeployedWorkflows(sfn, registryNames);
  const found = all.find((w) => w.workflow === workflow || w.stateMachineName === workflow);
  if (!found) {
    const known = all.map((w) => w.workflow).join(', ') || 'none';
    throw new WorkflowNotFoundError(`no workflow '${workflow}' is deployed (deployed: ${known})`);
  }
  return found;
}

/** The ARN of a state machine's `live` alias (what callers start). */
export const liveAliasArn = (stateMachineArn: string): string => `${stateMachineArn}:${LIVE_ALIAS_NAME}`;
