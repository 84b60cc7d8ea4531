import {
  DescribeStateMachineCommand,
  ListStateMachinesCommand,
  type SFNClient,
  type StateMachineListItem,
  ValidateStateMachineDefinitionCommand,
} from '@aws-sdk/client-sfn';
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
export async function listDeployedWorkflows(
  sfn: SFNClient,
  registryNames: readonly string[] = [],
): Promise<DeployedWorkflow[]> {
  return (await listStateMachines(sfn)).map((m) => ({
    workflow: workflowNameOf(m.name ?? '', registryNames),
    stateMachineName: m.name ?? '',
    stateMachineArn: m.stateMachineArn ?? '',
    type: m.type ?? 'STANDARD',
  }));
}

/** The deployed state machine of one workflow, or {@link WorkflowNotFoundError} listing what exists. */
export async function findDeployedWorkflow(
  sfn: SFNClient,
  workflow: string,
  registryNames: readonly string[] = [],
): Promise<DeployedWorkflow> {
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

/** A Task state of a state machine whose integration the local engine accepts but does not serve. */
export interface UnservedTask {
  /** The Task's JSON pointer (`/States/Publish/Resource`, nested in branches and Map processors too). */
  readonly location: string;
  /** The state's name. */
  readonly state: string;
  /** The engine's warning: the state, its resource, and how to serve it. */
  readonly message: string;
}

/** What the console shows of one state machine: its description and the Tasks the engine will not run. */
export interface StateMachineView {
  readonly name: string;
  readonly stateMachineArn: string;
  readonly type: string;
  readonly creationDate?: Date;
  /** The definition, as DescribeStateMachine answers it. */
  readonly definition: string;
  readonly unserved: readonly UnservedTask[];
}

/** The engine's diagnostic code for a Task it accepts and does not serve (ValidateStateMachineDefinition, WARNING). */
export const INTEGRATION_NOT_SERVED = 'INTEGRATION_NOT_SERVED';

/** The Tasks of `definition` the engine does not serve: its WARNING diagnostics, as the engine answers ValidateStateMachineDefinition. */
export async function unservedTasksOf(sfn: SFNClient, definition: string, type?: string): Promise<UnservedTask[]> {
  const answer = await sfn.send(
    new ValidateStateMachineDefinitionCommand({
      definition,
      ...(type === 'EXPRESS' || type === 'STANDARD' ? { type } : {}),
    }),
  );
  return (answer.diagnostics ?? [])
    .filter((d) => d.severity === 'WARNING' && d.code === INTEGRATION_NOT_SERVED && d.location)
    .map((d) => ({
      location: d.location as string,
      state: (d.location as string).split('/').at(-2) ?? '',
      message: d.message ?? '',
    }));
}

/** One state machine as the console shows it (DescribeStateMachine, then its unserved Tasks). */
export async function describeStateMachineView(sfn: SFNClient, stateMachineArn: string): Promise<StateMachineView> {
  const m = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn }));
  return {
    name: m.name ?? '',
    stateMachineArn: m.stateMachineArn ?? stateMachineArn,
    type: m.type ?? 'STANDARD',
    ...(m.creationDate ? { creationDate: m.creationDate } : {}),
    definition: m.definition ?? '{}',
    unserved: await unservedTasksOf(sfn, m.definition ?? '{}', m.type),
  };
}
