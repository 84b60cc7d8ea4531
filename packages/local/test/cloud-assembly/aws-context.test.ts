import { describe, expect, it } from 'vitest';
import {
  resolveAwsDeployment,
  stateMachinesOf,
  rolesOf,
  type CfnTemplate,
  type CfnResource,
} from '../../src/cloud-assembly';

const fn = (codeKey: string, extra: Partial<CfnResource> = {}): CfnResource => ({
  Type: 'AWS::Lambda::Function',
  Properties: { Code: { S3Key: codeKey }, Role: { 'Fn::GetAtt': ['Role', 'Arn'] } },
  ...extra,
});
const version = (functionId: string): CfnResource => ({
  Type: 'AWS::Lambda::Version',
  Properties: { FunctionName: { Ref: functionId } },
  DeletionPolicy: 'Retain',
  UpdateReplacePolicy: 'Retain',
});

/** A stack like the CDK app's: a function, its current version (logical id carries the code hash), a state machine pinning it. */
function stack(code: string, options: { functionRetained?: boolean; functionId?: string } = {}): CfnTemplate {
  const functionId = options.functionId ?? 'Worker';
  const versionId = `${functionId}CurrentVersion${code}`;
  return {
    Resources: {
      Role: { Type: 'AWS::IAM::Role', Properties: { AssumeRolePolicyDocument: {} } },
      [functionId]: fn(
        `${code}.zip`,
        options.functionRetained ? { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' } : {},
      ),
      [versionId]: version(functionId),
      Machine: {
        Type: 'AWS::StepFunctions::StateMachine',
        Properties: {
          StateMachineName: 'flow',
          RoleArn: { 'Fn::GetAtt': ['Role', 'Arn'] },
          DefinitionString:
            '{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Arguments":{"FunctionName":"${Fn}"},"End":true}}}',
          DefinitionSubstitutions: { Fn: { Ref: versionId } },
        },
      },
      MachineVersion: {
        Type: 'AWS::StepFunctions::StateMachineVersion',
        Properties: {
          StateMachineArn: { Ref: 'Machine' },
          StateMachineRevisionId: { 'Fn::GetAtt': ['Machine', 'StateMachineRevisionId'] },
        },
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      },
      Live: {
        Type: 'AWS::StepFunctions::StateMachineAlias',
        Properties: {
          Name: 'live',
          RoutingConfiguration: [{ StateMachineVersionArn: { 'Fn::GetAtt': ['MachineVersion', 'Arn'] }, Weight: 100 }],
        },
      },
      Policy: {
        Type: 'AWS::IAM::Policy',
        Properties: {
          PolicyName: 'p',
          Roles: [{ Ref: 'Role' }],
          PolicyDocument: {
            Statement: [
              {
                Effect: 'Allow',
                Action: 'lambda:InvokeFunction',
                Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [functionId, 'Arn'] }, ':*']] },
              },
            ],
          },
        },
      },
      Table: { Type: 'AWS::DynamoDB::Table', Properties: {} },
      Bucket: { Type: 'AWS::S3::Bucket', Properties: {} },
      Queue: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'dead-letters' } },
    },
  };
}

const at = { stackName: 'Demo', region: 'eu-west-1', account: '111122223333' };

describe('AwsResolutionContext: the values CloudFormation gives on AWS', () => {
  const { resolver, context } = resolveAwsDeployment(stack('aaa'), at);

  it('builds ARNs, URLs and generated names in the given region and account', () => {
    const fnName = context.ref('Worker', resolver) as string;
    expect(fnName).toMatch(/^Demo-Worker-[0-9A-F]{12}$/);
    expect(context.getAtt('Worker', 'Arn', resolver)).toBe(`arn:aws:lambda:eu-west-1:111122223333:function:${fnName}`);
    expect(context.getAtt('Role', 'Arn', resolver)).toMatch(/^arn:aws:iam::111122223333:role\/Demo-Role-[0-9A-F]{12}$/);
    expect(context.getAtt('Table', 'Arn', resolver)).toMatch(
      /^arn:aws:dynamodb:eu-west-1:111122223333:table\/Demo-Table-/,
    );
    expect(context.getAtt('Bucket', 'Arn', resolver)).toMatch(/^arn:aws:s3:::demo-bucket-[0-9a-f]{12}$/);
    expect(context.ref('Queue', resolver)).toBe('https://sqs.eu-west-1.amazonaws.com/111122223333/dead-letters');
    expect(context.getAtt('Queue', 'Arn', resolver)).toBe('arn:aws:sqs:eu-west-1:111122223333:dead-letters');
    expect(context.ref('Machine', resolver)).toBe('arn:aws:states:eu-west-1:111122223333:stateMachine:flow');
    expect(context.ref('Live', resolver)).toBe('arn:aws:states:eu-west-1:111122223333:stateMachine:flow:live');
  });

  it('numbers the first published versions 1 and fills the definition with the version ARN', () => {
    const [machine] = stateMachinesOf(resolver);
    expect(machine.versionArns).toEqual(['arn:aws:states:eu-west-1:111122223333:stateMachine:flow:1']);
    const fnArn = context.getAtt('Worker', 'Arn', resolver) as string;
    expect(JSON.stringify(machine.definition)).toContain(`"FunctionName":"${fnArn}:1"`);
    expect(rolesOf(resolver)[0].policies[0].policy.Statement).toEqual([
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: `${fnArn}:*` },
    ]);
  });
});

describe('AwsResolutionContext: version numbers across deploys', () => {
  const first = resolveAwsDeployment(stack('aaa'), at);
  const fnArn = first.context.getAtt('Worker', 'Arn', first.resolver) as string;
  const smArn = 'arn:aws:states:eu-west-1:111122223333:stateMachine:flow';

  it('an unchanged redeploy keeps every number', () => {
    const again = resolveAwsDeployment(stack('aaa'), { ...at, previous: first.record });
    expect(again.record.versions.map((v) => v.arn)).toEqual([`${fnArn}:1`, `${smArn}:1`]);
  });

  it('a code change publishes the next Lambda version and, through the new revision, the next state machine version; the old ones stay (Retain)', () => {
    const second = resolveAwsDeployment(stack('bbb'), { ...at, previous: first.record });
    const [machine] = stateMachinesOf(second.resolver);
    expect(JSON.stringify(machine.definition)).toContain(`"FunctionName":"${fnArn}:2"`);
    expect(machine.versionArns).toEqual([`${smArn}:2`]);
    expect(second.record.versions.map((v) => v.arn)).toEqual([`${fnArn}:1`, `${fnArn}:2`, `${smArn}:1`, `${smArn}:2`]);
    const third = resolveAwsDeployment(stack('ccc'), { ...at, previous: second.record });
    expect(stateMachinesOf(third.resolver)[0].versionArns).toEqual([`${smArn}:3`]);
    expect(third.record.lastVersionNumber[fnArn]).toBe(3);
  });

  it('numbers never reuse: going back to old code publishes a new number', () => {
    const second = resolveAwsDeployment(stack('bbb'), { ...at, previous: first.record });
    const back = resolveAwsDeployment(stack('aaa'), { ...at, previous: second.record });
    expect(back.record.versions.filter((v) => v.parentArn === fnArn).map((v) => v.number)).toEqual([1, 2, 3]);
  });

  it('replacing the function (a new logical id) deletes every version of the old one, Retain or not', () => {
    const moved = resolveAwsDeployment(stack('bbb', { functionId: 'Worker2' }), { ...at, previous: first.record });
    expect(moved.record.versions.some((v) => v.parentArn === fnArn)).toBe(false);
  });

  it('a retained function keeps its versions when it leaves the template', () => {
    const kept = resolveAwsDeployment(stack('aaa', { functionRetained: true }), at);
    const moved = resolveAwsDeployment(stack('bbb', { functionId: 'Worker2' }), { ...at, previous: kept.record });
    expect(moved.record.versions.filter((v) => v.parentArn === fnArn).map((v) => v.number)).toEqual([1]);
  });
});
