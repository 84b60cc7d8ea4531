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
  stateMachinesOf,
  type IamEvaluator,
  type IamRequest,
  type ResolvedDeployment,
} from '../../../local/src/cloud-assembly';
import { workflows } from '../../../../statemachines';
import { codeChangingDeploy, synthAndResolve } from './code-changing-deploy';
import { definitionCalls, denied as judge, type JudgedCall } from './deploy-judgement';
import { bedrockCalls, callsOf, functionsOf } from './function-calls';

let first: ResolvedDeployment;
let second: ResolvedDeployment;
let iam: IamEvaluator;

beforeAll(async () => {
  ({ first, second } = codeChangingDeploy());
  iam = await createIamEvaluator();
});

/** The calls `iam` denies under the roles of `policiesFrom`. */
const denied = (policiesFrom: ResolvedDeployment, calls: readonly JudgedCall[]) => judge(iam, policiesFrom, calls);

describe('IAM tier: a code-changing deploy (two synths, resolved as on AWS, judged by a policy simulator)', () => {
  it('the second synth publishes a new version of every pinned function and of every state machine', () => {
    const pinned = (d: ResolvedDeployment) =>
      definitionCalls(d)
        .filter((c) => c.request.action === 'lambda:InvokeFunction')
        .map((c) => c.request.resource);
    const before = new Set(pinned(first));
    const after = new Set(pinned(second));
    expect(before.size).toBeGreaterThanOrEqual(3);
    for (const arn of before) expect(arn, 'pinned to version 1').toMatch(/:1$/);
    for (const arn of after) expect(arn, 'pinned to version 2').toMatch(/:2$/);
    expect(stateMachinesOf(second.resolver).map((sm) => sm.versionArns)).toEqual(
      workflows.map(() => [expect.stringMatching(/:2$/)]),
    );
  });

  it("allows every call of the first deploy's definitions under the first deploy's roles (continue-as-new included)", async () => {
    const calls = definitionCalls(first);
    expect(calls.some((c) => c.request.action === 'states:StartExecution')).toBe(true);
    expect(await denied(first, calls)).toEqual([]);
  });

  it("allows every call of the first deploy's definitions under the SECOND deploy's roles: runs in flight survive the deploy", async () => {
    expect(await denied(second, definitionCalls(first))).toEqual([]);
  });

  it("allows every call of the second deploy's definitions under its own roles", async () => {
    expect(await denied(second, definitionCalls(second))).toEqual([]);
  });

  it("keeps every version the first deploy's definitions pin after the second deploy, and after the stack is destroyed", () => {
    const pinnedBefore = [
      ...new Set(
        definitionCalls(first)
          .filter((c) => c.request.action === 'lambda:InvokeFunction')
          .map((c) => c.request.resource),
      ),
    ];
    const existing = (d: { versions: readonly { arn: string }[] }) => new Set(d.versions.map((v) => v.arn));
    expect(pinnedBefore.filter((arn) => !existing(second.record).has(arn))).toEqual([]);
    const destroyed = resolveAwsDeployment(
      { Resources: {} },
      { stackName: second.record.stackName, previous: second.record },
    ).record;
    expect(pinnedBefore.filter((arn) => !existing(destroyed).has(arn))).toEqual([]);
  });

  it('lets the roles invoke only versions of exactly the pinned functions (not other functions of the stack)', async () => {
    const fns = functionsOf(second);
    const unpinned = ['approval-endpoint', 'run-monitor', 'redrive'].map((n) => fns.get(n)!);
    const calls = stateMachinesOf(second.resolver).flatMap((sm) =>
      unpinned.map((fn) => ({
        roleArn: sm.roleArn,
        request: {
          action: 'lambda:InvokeFunction',
          resource: `${String(second.resolver.context.getAtt(fn.logicalId, 'Arn', second.resolver))}:1`,
        },
      })),
    );
    expect((await denied(second, calls)).length).toBe(calls.length);
  });
});

describe("IAM tier: each function's own SDK calls under its role", () => {
  it.each(['model-step', 'tool-step', 'approval-request', 'approval-endpoint', 'run-monitor', 'redrive'])(
    '%s may make every call its code makes',
    async (name) => {
      const fn = functionsOf(second).get(name)!;
      const machines = stateMachinesOf(second.resolver).map((sm) => sm.name);
      expect(
        await denied(
          second,
          callsOf(fn, second, machines).map((request) => ({ roleArn: fn.roleArn, request })),
        ),
      ).toEqual([]);
    },
  );

  it('the internet-facing approval endpoint gets only Get/UpdateItem on the table: no put, delete, scan or batch', async () => {
    const fn = functionsOf(second).get('approval-endpoint')!;
    const table = callsOf(fn, second, [])[0].resource;
    const forbidden = ['PutItem', 'DeleteItem', 'Scan', 'Query', 'BatchWriteItem', 'BatchGetItem'].map((a) => ({
      roleArn: fn.roleArn,
      request: { action: `dynamodb:${a}`, resource: table },
    }));
    expect((await denied(second, forbidden)).length).toBe(forbidden.length);
  });
});

describe('IAM tier: the model step on Bedrock inference profiles (autosave:modelId)', () => {
  /** The model-step role of a first deploy with this model id, in this region, and what it may not do. */
  async function modelStep(modelId: string, region = 'us-east-1') {
    const deploy = synthAndResolve(1, { context: { 'autosave:modelId': modelId }, region });
    const fn = functionsOf(deploy).get('model-step')!;
    expect(fn.env.AUTOSAVE_MODEL_ID).toBe(modelId);
    const { account, partition } = deploy.record.environment;
    const judge = (requests: IamRequest[]) =>
      denied(
        deploy,
        requests.map((request) => ({ roleArn: fn.roleArn, request })),
      );
    return { deploy, fn, judge, calls: bedrockCalls(modelId, { region, account, partition }), account, partition };
  }

  it.each([
    ['a US profile id', 'us.anthropic.claude-3-5-haiku-20241022-v1:0', 'us-east-1'],
    ['an EU profile id', 'eu.anthropic.claude-3-7-sonnet-20250219-v1:0', 'eu-west-1'],
    ['an APAC profile id', 'apac.anthropic.claude-sonnet-4-20250514-v1:0', 'ap-northeast-1'],
    ['a global profile id', 'global.anthropic.claude-sonnet-4-5-20250929-v1:0', 'us-west-2'],
    // In the account the resolver deploys to (a system profile's ARN names the caller's account).
    ['a profile ARN', 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-pro-v1:0', 'us-east-1'],
    ['a foundation model id', 'anthropic.claude-3-5-haiku-20241022-v1:0', 'us-west-2'],
  ])(
    '%s: Converse on the profile and on the model in every region it routes to is allowed',
    async (_, modelId, region) => {
      const { calls, judge } = await modelStep(modelId, region);
      expect(calls.length).toBeGreaterThanOrEqual(1);
      expect(await judge(calls)).toEqual([]);
    },
  );

  it('a profile grant reaches the foundation model only through that profile, and no other model or profile', async () => {
    const modelId = 'us.anthropic.claude-3-5-haiku-20241022-v1:0';
    const { judge, account, partition } = await modelStep(modelId);
    const model = (region: string, id = 'anthropic.claude-3-5-haiku-20241022-v1:0') =>
      `arn:${partition}:bedrock:${region}::foundation-model/${id}`;
    const profile = (id: string) => `arn:${partition}:bedrock:us-east-1:${account}:inference-profile/${id}`;
    const forbidden: IamRequest[] = [
      // The model directly, outside the profile (in another region, or in the stack's own).
      { action: 'bedrock:InvokeModel', resource: model('us-east-2') },
      { action: 'bedrock:InvokeModel', resource: model('us-east-1') },
      // Through another profile, and another model through this one's name.
      {
        action: 'bedrock:InvokeModel',
        resource: model('us-east-2'),
        context: { 'bedrock:InferenceProfileArn': profile('us.anthropic.claude-opus-4-20250514-v1:0') },
      },
      {
        action: 'bedrock:InvokeModel',
        resource: model('us-east-2', 'anthropic.claude-opus-4-20250514-v1:0'),
        context: { 'bedrock:InferenceProfileArn': profile(modelId) },
      },
      { action: 'bedrock:InvokeModel', resource: profile('us.anthropic.claude-opus-4-20250514-v1:0') },
    ];
    expect((await judge(forbidden)).length).toBe(forbidden.length);
  });

  it('refuses at synth a model id no grant can be derived from (an application inference profile)', () => {
    expect(() =>
      synthAndResolve(1, {
        context: { 'autosave:modelId': 'arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/abc123' },
      }),
    ).toThrow(/autosave:modelId: .*application-inference-profile/);
  });
});
