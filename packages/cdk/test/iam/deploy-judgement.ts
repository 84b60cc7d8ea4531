import { expect } from 'vitest';
import {
  alarmTopicsOf,
  CLOUDWATCH_SERVICE_PRINCIPAL,
  roleByArn,
  stateMachinesOf,
  taskRequestsOf,
  type IamEvaluator,
  type IamRequest,
  type ResolvedDeployment,
  type TaskRequest,
  type TemplateResolver,
} from '../../../local/src/cloud-assembly';

/** One call to judge: who makes it (a role ARN of the deploy) and what it asks. */
export interface JudgedCall {
  readonly machine?: string;
  readonly roleArn: string;
  readonly request: IamRequest;
}

/** Every Task call of every state machine version a deploy published, with the machine's role ARN. */
export function definitionCalls(
  deploy: ResolvedDeployment,
): (JudgedCall & { machine: string; request: TaskRequest })[] {
  return stateMachinesOf(deploy.resolver).flatMap((sm) => {
    const { requests, dynamic } = taskRequestsOf(sm.definition);
    expect(dynamic, `${sm.name}: a Task target computed at run time cannot be proved offline`).toEqual([]);
    return requests.map((request) => ({ machine: sm.name, roleArn: sm.roleArn, request }));
  });
}

/** The calls the simulator denies, described, each under the role of its ARN in `policiesFrom`. */
export async function denied(
  iam: IamEvaluator,
  policiesFrom: ResolvedDeployment,
  calls: readonly JudgedCall[],
): Promise<string[]> {
  const out: string[] = [];
  for (const { machine, roleArn, request } of calls) {
    const role = roleByArn(policiesFrom.resolver, roleArn);
    if (!role) {
      out.push(`${machine ?? ''} role ${roleArn} no longer exists`);
      continue;
    }
    const decision = await iam.evaluate(role.arn, role.policies, request);
    if (!decision.allowed)
      out.push(
        `${machine ?? role.name} ${'state' in request ? `${String(request.state)}: ` : ''}${request.action} on ${request.resource} ${JSON.stringify(request.context ?? {})} -> ${decision.result}`,
      );
  }
  return out;
}

/**
 * The rule cfn-lint cannot check (the topic and the policy are intrinsics): every SNS topic an alarm
 * notifies lets CloudWatch publish, from the alarm's own account, over TLS. Returns the refusals.
 */
export async function unreachableAlarmTopics(iam: IamEvaluator, resolver: TemplateResolver): Promise<string[]> {
  const pairs = alarmTopicsOf(resolver);
  if (pairs.length === 0) throw new Error('no alarm notifies a topic: nothing would reach anyone');
  const refused: string[] = [];
  for (const { alarmLogicalId, alarmArn, topicArn, policy } of pairs) {
    const decision = await iam.evaluateService(CLOUDWATCH_SERVICE_PRINCIPAL, policy, {
      action: 'sns:Publish',
      resource: topicArn,
      context: {
        'aws:SourceAccount': alarmArn.split(':')[4],
        'aws:SourceArn': alarmArn,
        'aws:SecureTransport': 'true',
      },
    });
    if (!decision.allowed) refused.push(`${alarmLogicalId} -> ${topicArn}: ${decision.result}`);
  }
  return refused;
}
