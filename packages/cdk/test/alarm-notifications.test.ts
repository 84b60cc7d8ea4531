/**
 * The alarms must reach someone. Read as AWS reads it: the template resolved as CloudFormation would, and
 * CloudWatch's `sns:Publish` judged by a real policy simulator against each notified topic's resource
 * policy (an `AWS::SNS::TopicPolicy` replaces SNS's default policy whole: AWS knowledge-centre article
 * "Why didn't I receive an SNS notification for my CloudWatch alarm trigger?").
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  alarmTopicsOf,
  CLOUDWATCH_SERVICE_PRINCIPAL,
  createIamEvaluator,
  defaultTopicPolicy,
  resolveAwsDeployment,
  type CfnTemplate,
  type IamEvaluator,
  type TemplateResolver,
} from '../../local/src/cloud-assembly';
import { unreachableAlarmTopics } from './iam/deploy-judgement';
import { synthApp } from './synth-app';

let iam: IamEvaluator;
beforeAll(async () => {
  iam = await createIamEvaluator();
});

const resolverOf = (context: Record<string, unknown> = {}): TemplateResolver =>
  resolveAwsDeployment(synthApp({ context }).template.toJSON() as CfnTemplate, {
    stackName: String(context['autosave:stackName'] ?? 'Autosave'),
  }).resolver;

describe('Alarm notifications reach the alarm topic (CloudWatch sns:Publish under the IAM simulator)', () => {
  it('the rule sees a topic policy holding only a Deny as refusing CloudWatch, and SNS default policy as not', async () => {
    const topicArn = 'arn:aws:sns:us-east-1:123456789012:alarms';
    const request = {
      action: 'sns:Publish',
      resource: topicArn,
      context: { 'aws:SourceAccount': '123456789012', 'aws:SecureTransport': 'true' },
    };
    const denyOnly = {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: 'sns:Publish',
          Resource: topicArn,
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        },
      ],
    };
    expect((await iam.evaluateService(CLOUDWATCH_SERVICE_PRINCIPAL, denyOnly, request)).allowed).toBe(false);
    expect(defaultTopicPolicy(topicArn).Statement).toHaveLength(1);
  });

  it.each([
    ['the default deploy', {}],
    ['with an alarm email', { 'autosave:alarmEmail': 'oncall@acme-health.org' }],
    [
      'under another stack name, prefixed',
      { 'autosave:stackName': 'AutosaveStaging', 'autosave:prefixStateMachineNames': 'true' },
    ],
  ])('%s: every alarm may publish to the topic it notifies', async (_, context) => {
    const resolver = resolverOf(context);
    expect(alarmTopicsOf(resolver).length).toBeGreaterThanOrEqual(8);
    expect(await unreachableAlarmTopics(iam, resolver)).toEqual([]);
  });

  it("another account's alarm may not publish to the topic (the grant is scoped by aws:SourceAccount)", async () => {
    const [{ topicArn, policy }] = alarmTopicsOf(resolverOf());
    const decision = await iam.evaluateService(CLOUDWATCH_SERVICE_PRINCIPAL, policy, {
      action: 'sns:Publish',
      resource: topicArn,
      context: {
        'aws:SourceAccount': '210987654321',
        'aws:SourceArn': 'arn:aws:cloudwatch:us-east-1:210987654321:alarm:theirs',
        'aws:SecureTransport': 'true',
      },
    });
    expect(decision.allowed).toBe(false);
  });

  it('publishing without TLS is still refused (enforceSSL stays)', async () => {
    const [{ topicArn, policy, alarmArn }] = alarmTopicsOf(resolverOf());
    const decision = await iam.evaluateService(CLOUDWATCH_SERVICE_PRINCIPAL, policy, {
      action: 'sns:Publish',
      resource: topicArn,
      context: {
        'aws:SourceAccount': alarmArn.split(':')[4],
        'aws:SourceArn': alarmArn,
        'aws:SecureTransport': 'false',
      },
    });
    expect(decision.result).toBe('ExplicitlyDenied');
  });
});
