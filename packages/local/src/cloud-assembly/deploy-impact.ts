import { splitQualifiedArn } from './arns';
import type { ResolvedDeployment } from './aws-context';
import type { IamEvaluator } from './iam-simulation';
import { roleByArn } from './iam-policies';
import { stateMachinesOf } from './state-machines';
import { taskRequestsOf, type TaskRequest } from './task-requests';

/** A state machine version that runs may be on, as the deployed account knows it. */
export interface InFlightVersion {
  /** The version ARN (or the unqualified ARN for runs started without a version). */
  readonly versionArn: string;
  /** The definition that version pins. */
  readonly definition: Record<string, unknown>;
  /** The role ARN that version pins (its policy is whatever the template in force says). */
  readonly roleArn: string;
  /** Runs in flight on it; undefined when not known (offline). */
  readonly runs?: number;
}

/** A call a version in flight makes that the new template would not let it make. */
export interface StrandedCall {
  readonly versionArn: string;
  readonly request: TaskRequest;
  /** The simulator's verdict, or why it could not be asked (`role gone`, `target gone`). */
  readonly result: string;
}

/** What a deploy does to one workflow. */
export interface WorkflowDeployImpact {
  /** The state machine's name. */
  readonly stateMachine: string;
  /** Whether the deploy publishes a new state machine version. */
  readonly publishesNewVersion: boolean;
  /** The versions examined, with their runs in flight. */
  readonly versions: readonly { readonly versionArn: string; readonly runs?: number }[];
  /** Calls of those versions the new template's roles deny (or whose role or target is gone). */
  readonly stranded: readonly StrandedCall[];
}

/** Options of {@link assessDeploy}. */
export interface AssessDeployOptions {
  /** The new template, resolved after the current state of the account. */
  readonly after: ResolvedDeployment;
  /** Per state machine name, the versions runs are on now. */
  readonly inFlight: ReadonlyMap<string, readonly InFlightVersion[]>;
  /** Per state machine name, whether the new template publishes a version. */
  readonly publishes: (stateMachine: string) => boolean;
  readonly iam: IamEvaluator;
}

/**
 * The deploy question, answered per workflow: does the new template's role still let each version in
 * flight make every call its definition makes (the IAM simulator decides), and do the Lambda versions
 * they pin still exist afterwards. A state machine version pins its role ARN, not the role's policy, so
 * after the deploy the role is judged by the new template.
 */
export async function assessDeploy(options: AssessDeployOptions): Promise<WorkflowDeployImpact[]> {
  const { after, iam } = options;
  const existing = new Set(after.record.versions.map((v) => v.arn));
  const parents = new Set(after.record.parents.map((p) => p.arn));
  const out: WorkflowDeployImpact[] = [];
  const names = new Set([...options.inFlight.keys(), ...stateMachinesOf(after.resolver).map((sm) => sm.name)]);
  for (const name of [...names].sort()) {
    const versions = options.inFlight.get(name) ?? [];
    const stranded: StrandedCall[] = [];
    for (const version of versions) {
      const role = roleByArn(after.resolver, version.roleArn);
      for (const request of taskRequestsOf(version.definition).requests) {
        if (!role) {
          stranded.push({
            versionArn: version.versionArn,
            request,
            result: `role ${version.roleArn} is not in the new template`,
          });
          continue;
        }
        if (request.action === 'lambda:InvokeFunction') {
          const { unqualified, qualifier } = splitQualifiedArn(request.resource);
          const gone =
            qualifier && /^\d+$/.test(qualifier) ? !existing.has(request.resource) : !parents.has(unqualified);
          if (gone) {
            stranded.push({ versionArn: version.versionArn, request, result: 'target deleted by the deploy' });
            continue;
          }
        }
        const decision = await iam.evaluate(role.arn, role.policies, request);
        if (!decision.allowed) stranded.push({ versionArn: version.versionArn, request, result: decision.result });
      }
    }
    out.push({
      stateMachine: name,
      publishesNewVersion: options.publishes(name),
      versions: versions.map((v) => ({ versionArn: v.versionArn, runs: v.runs })),
      stranded,
    });
  }
  return out;
}

/**
 * The offline form: the versions in flight are those the deployed template published (their runs are
 * not known), judged against the new template resolved after it.
 */
export function inFlightFromTemplate(before: ResolvedDeployment): Map<string, InFlightVersion[]> {
  const out = new Map<string, InFlightVersion[]>();
  for (const sm of stateMachinesOf(before.resolver)) {
    out.set(
      sm.name,
      sm.versionArns.map((versionArn) => ({ versionArn, definition: sm.definition, roleArn: sm.roleArn })),
    );
  }
  return out;
}

/** Whether `after` publishes a new version of each state machine of `before` (a version ARN it did not have). */
export function publishedVersionsBetween(
  before: ResolvedDeployment,
  after: ResolvedDeployment,
): (stateMachine: string) => boolean {
  const old = new Map(stateMachinesOf(before.resolver).map((sm) => [sm.name, new Set(sm.versionArns)]));
  const now = new Map(stateMachinesOf(after.resolver).map((sm) => [sm.name, sm.versionArns]));
  return (name) => (now.get(name) ?? []).some((arn) => !old.get(name)?.has(arn));
}
