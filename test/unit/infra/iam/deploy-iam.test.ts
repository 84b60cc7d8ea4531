/**
 * The IAM tier: what AWS will decide, not what the template says. The app is synthesized twice (the
 * second time with the code of every function changed), both templates are resolved as CloudFormation
 * would on AWS, and a real policy simulator (@cloud-copilot/iam-simulate, AGPL, devDependency) judges
 * every service call every shipped definition makes — under the first template's policies, and under
 * the second's for the first template's definitions, which is what a run in flight meets after a deploy.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createIamEvaluator,
  resolveAwsDeployment,
  roleByArn,
  stateMachinesOf,
  taskRequestsOf,
  type IamEvaluator,
  type IamRequest,
  type ResolvedDeployment,
  type TaskRequest,
} from '../../../../lib/cloud-assembly';
import { workflows } from '../../../../statemachines';
import { codeChangingDeploy } from './code-changing-deploy';
import { callsOf, functionsOf } from './function-calls';

let first: ResolvedDeployment;
let second: ResolvedDeployment;
let iam: IamEvaluator;

beforeAll(async () => {
  ({ first, second } = codeChangingDeploy());
  iam = await createIamEvaluator();
});

/** Every Task call of every state machine version a deploy published, with the machine's role ARN. */
function definitionCalls(deploy: ResolvedDeployment): { machine: string; roleArn: string; request: TaskRequest }[] {
  return stateMachinesOf(deploy.resolver).flatMap((sm) => {
    const { requests, dynamic } = taskRequestsOf(sm.definition);
    expect(dynamic, `${sm.name}: a Task target computed at run time cannot be proved offline`).toEqual([]);
    return requests.map((request) => ({ machine: sm.name, roleArn: sm.roleArn, request }));
  });
}

/** Denied calls, described, under the role of that ARN in `policiesFrom`. */
async function denied(policiesFrom: ResolvedDeployment, calls: { machine?: string; roleArn: string; request: IamRequest }[]): Promise<string[]> {
  const out: string[] = [];
  for (const { machine, roleArn, request } of calls) {
    const role = roleByArn(policiesFrom.resolver, roleArn);
    if (!role) {
      out.push(`${machine ?? ''} role ${roleArn} no longer exists`);
      continue;
    }
    const decision = await iam.evaluate(role.arn, role.policies, request);
    if (!decision.allowed) out.push(`${machine ?? role.name} ${'state' in request ? `${String(request.state)}: ` : ''}${request.action} on ${request.resource} ${JSON.stringify(request.context ?? {})} -> ${decision.result}`);
  }
  return out;
}

describe('IAM tier: a code-changing deploy (two synths, resolved as on AWS, judged by a policy simulator)', () => {
  it('the second synth publishes a new version of every pinned function and of every state machine', () => {
    const pinned = (d: ResolvedDeployment) => definitionCalls(d).filter((c) => c.request.action === 'lambda:InvokeFunction').map((c) => c.request.resource);
    const before = new Set(pinned(first));
    const after = new Set(pinned(second));
    expect(before.size).toBeGreaterThanOrEqual(3);
    for (const arn of before) expect(arn, 'pinned to version 1').toMatch(/:1$/);
    for (const arn of after) expect(arn, 'pinned to version 2').toMatch(/:2$/);
    expect(stateMachinesOf(second.resolver).map((sm) => sm.versionArns)).toEqual(workflows.map(() => [expect.stringMatching(/:2$/)]));
  });

  it('allows every call of the first deploy\'s definitions under the first deploy\'s roles (continue-as-new included)', async () => {
    const calls = definitionCalls(first);
    expect(calls.some((c) => c.request.action === 'states:StartExecution')).toBe(true);
    expect(await denied(first, calls)).toEqual([]);
  });

  it('allows every call of the first deploy\'s definitions under the SECOND deploy\'s roles: runs in flight survive the deploy', async () => {
    expect(await denied(second, definitionCalls(first))).toEqual([]);
  });

  it('allows every call of the second deploy\'s definitions under its own roles', async () => {
    expect(await denied(second, definitionCalls(second))).toEqual([]);
  });

  it('keeps every version the first deploy\'s definitions pin after the second deploy, and after the stack is destroyed', () => {
    const pinnedBefore = [...new Set(definitionCalls(first).filter((c) => c.request.action === 'lambda:InvokeFunction').map((c) => c.request.resource))];
    const existing = (d: { versions: readonly { arn: string }[] }) => new Set(d.versions.map((v) => v.arn));
    expect(pinnedBefore.filter((arn) => !existing(second.record).has(arn))).toEqual([]);
    const destroyed = resolveAwsDeployment({ Resources: {} }, { stackName: second.record.stackName, previous: second.record }).record;
    expect(pinnedBefore.filter((arn) => !existing(destroyed).has(arn))).toEqual([]);
  });

  it('lets the roles invoke only versions of exactly the pinned functions (not other functions of the stack)', async () => {
    const fns = functionsOf(second);
    const unpinned = ['approval-endpoint', 'run-monitor', 'redrive'].map((n) => fns.get(n)!);
    const calls = stateMachinesOf(second.resolver).flatMap((sm) =>
      unpinned.map((fn) => ({ roleArn: sm.roleArn, request: { action: 'lambda:InvokeFunction', resource: `${String(second.resolver.context.getAtt(fn.logicalId, 'Arn', second.resolver))}:1` } })),
    );
    expect((await denied(second, calls)).length).toBe(calls.length);
  });
});

describe('IAM tier: each function\'s own SDK calls under its role', () => {
  it.each(['model-step', 'tool-step', 'approval-request', 'approval-endpoint', 'run-monitor', 'redrive'])('%s may make every call its code makes', async (name) => {
    const fn = functionsOf(second).get(name)!;
    const machines = stateMachinesOf(second.resolver).map((sm) => sm.name);
    expect(await denied(second, callsOf(fn, second, machines).map((request) => ({ roleArn: fn.roleArn, request })))).toEqual([]);
  });

  it('the internet-facing approval endpoint gets only Get/UpdateItem on the table: no put, delete, scan or batch', async () => {
    const fn = functionsOf(second).get('approval-endpoint')!;
    const table = callsOf(fn, second, [])[0].resource;
    const forbidden = ['PutItem', 'DeleteItem', 'Scan', 'Query', 'BatchWriteItem', 'BatchGetItem'].map((a) => ({ roleArn: fn.roleArn, request: { action: `dynamodb:${a}`, resource: table } }));
    expect((await denied(second, forbidden)).length).toBe(forbidden.length);
  });
});
