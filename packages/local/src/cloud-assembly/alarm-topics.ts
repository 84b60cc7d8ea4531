import type { PolicyDocument } from './iam-policies';
import type { TemplateResolver } from './intrinsics';

/** CloudWatch's service principal: it publishes an alarm's notification to SNS on the account's behalf. */
export const CLOUDWATCH_SERVICE_PRINCIPAL = 'cloudwatch.amazonaws.com';

/** The alarm actions of an `AWS::CloudWatch::Alarm` that may name an SNS topic. */
const ACTION_PROPERTIES = ['AlarmActions', 'OKActions', 'InsufficientDataActions'] as const;

/** An SNS topic an alarm notifies, and the resource policy SNS evaluates when CloudWatch publishes to it. */
export interface AlarmTopic {
  readonly alarmLogicalId: string;
  readonly alarmArn: string;
  readonly topicArn: string;
  /** The topic's access policy as AWS applies it: its `AWS::SNS::TopicPolicy`, else SNS's default policy. */
  readonly policy: PolicyDocument;
}

/**
 * SNS's default access policy of a topic created without one: every principal of the owning account may
 * publish (`AWS:SourceOwner`). An `AWS::SNS::TopicPolicy` replaces it whole, which is how a policy holding
 * only a Deny (CDK's `enforceSSL`) leaves CloudWatch with no grant at all.
 */
export function defaultTopicPolicy(topicArn: string): PolicyDocument {
  const account = topicArn.split(':')[4];
  return {
    Version: '2008-10-17',
    Statement: [
      {
        Sid: '__default_statement_ID',
        Effect: 'Allow',
        Principal: { AWS: '*' },
        Action: [
          'SNS:Publish',
          'SNS:Subscribe',
          'SNS:Receive',
          'SNS:GetTopicAttributes',
          'SNS:SetTopicAttributes',
          'SNS:AddPermission',
          'SNS:RemovePermission',
          'SNS:DeleteTopic',
          'SNS:ListSubscriptionsByTopic',
        ],
        Resource: topicArn,
        Condition: { StringEquals: { 'AWS:SourceOwner': account } },
      },
    ],
  };
}

/** The access policy of a topic of the resolved template: the `AWS::SNS::TopicPolicy` naming it, else SNS's default. */
export function topicPolicyOf(resolver: TemplateResolver, topicArn: string): PolicyDocument {
  const policies = resolver
    .logicalIds('AWS::SNS::TopicPolicy')
    .filter((id) => ((resolver.property(id, 'Topics') ?? []) as unknown[]).includes(topicArn))
    .map((id) => resolver.property(id, 'PolicyDocument') as PolicyDocument);
  if (policies.length === 0) return defaultTopicPolicy(topicArn);
  // Two TopicPolicy resources on one topic overwrite each other on AWS: the template must not rely on either.
  if (policies.length > 1)
    throw new Error(`${topicArn} has ${policies.length} AWS::SNS::TopicPolicy resources; SNS keeps only one`);
  return policies[0];
}

/** Every (alarm, SNS topic) pair of the resolved template: each topic an alarm's actions notify. */
export function alarmTopicsOf(resolver: TemplateResolver): AlarmTopic[] {
  return resolver.logicalIds('AWS::CloudWatch::Alarm').flatMap((alarmLogicalId) => {
    const alarmArn = String(resolver.context.getAtt(alarmLogicalId, 'Arn', resolver));
    const topics = new Set(
      ACTION_PROPERTIES.flatMap((name) => (resolver.property(alarmLogicalId, name) ?? []) as unknown[])
        .map(String)
        .filter((action) => action.startsWith('arn:') && action.split(':')[2] === 'sns'),
    );
    return [...topics].map((topicArn) => ({
      alarmLogicalId,
      alarmArn,
      topicArn,
      policy: topicPolicyOf(resolver, topicArn),
    }));
  });
}
