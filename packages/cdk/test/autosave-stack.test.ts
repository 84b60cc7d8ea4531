import { beforeAll, describe, expect, it } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { HISTORY_EVENT_BUDGET, LIVE_ALIAS_NAME } from '@autosave/workflow/config';
import { workflows } from '../../../statemachines';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { createAutosaveApp } from '../../../infra/create-app';
import { registeredFunctionSpecs, registeredWorkflowSpecs } from '../../../infra/registries';
import { synthApp, type SynthesizedApp } from './synth-app';

type Resource = {
  Type: string;
  Properties: Record<string, any>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
};

let synth: SynthesizedApp;
let resources: Record<string, Resource>;

const ofType = (type: string): [string, Resource][] => Object.entries(resources).filter(([, r]) => r.Type === type);
const onlyOfType = (type: string): [string, Resource] => {
  const found = ofType(type);
  expect(found).toHaveLength(1);
  return found[0];
};
/** The logical id of the Lambda function built for a registry name (construct ids are PascalCase of it). */
const functionId = (name: string): string => {
  const pascal = name
    .split('-')
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join('');
  const found = ofType('AWS::Lambda::Function').filter(
    ([id]) => id.startsWith(`Functions${pascal}`) && !id.includes('Role'),
  );
  expect(found, name).toHaveLength(1);
  return found[0][0];
};
const roleOf = (fnId: string): string => resources[fnId].Properties.Role['Fn::GetAtt'][0];
/** Every statement of the inline policies attached to a role. */
const statementsOf = (roleId: string): any[] =>
  ofType('AWS::IAM::Policy')
    .filter(([, p]) => p.Properties.Roles.some((r: any) => r.Ref === roleId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
const actionsOf = (roleId: string): string[] => statementsOf(roleId).flatMap((s) => [s.Action].flat());
const stateMachineId = (name: string): string => {
  const [id] = ofType('AWS::StepFunctions::StateMachine').find(([, r]) => r.Properties.StateMachineName === name)!;
  return id;
};

beforeAll(() => {
  synth = synthApp();
  resources = synth.template.toJSON().Resources;
});

describe('AutosaveStack: one versioned state machine per workflow', () => {
  it('creates one state machine per registered workflow, named after it, of its type', () => {
    const machines = ofType('AWS::StepFunctions::StateMachine');
    expect(machines.map(([, r]) => r.Properties.StateMachineName).sort()).toEqual(workflows.map((w) => w.name).sort());
    for (const w of workflows) expect(resources[stateMachineId(w.name)].Properties.StateMachineType).toBe(w.type);
  });

  it.each(workflows.map((w) => [w.name]))(
    '%s has one published version (kept on replacement) and a live alias routing to it',
    (name) => {
      const sm = stateMachineId(name);
      const versions = ofType('AWS::StepFunctions::StateMachineVersion').filter(
        ([, r]) => r.Properties.StateMachineArn.Ref === sm,
      );
      expect(versions).toHaveLength(1);
      const [versionId, version] = versions[0];
      expect(version.Properties.StateMachineRevisionId).toEqual({ 'Fn::GetAtt': [sm, 'StateMachineRevisionId'] });
      expect(version.Properties.Description).toMatch(new RegExp(`^${name} \\S+ definition [0-9a-f]{12}$`));
      expect(version.DeletionPolicy).toBe('Retain');
      expect(version.UpdateReplacePolicy).toBe('Retain');

      const aliases = ofType('AWS::StepFunctions::StateMachineAlias').filter(
        ([, r]) => r.Properties.RoutingConfiguration?.[0]?.StateMachineVersionArn?.['Fn::GetAtt']?.[0] === versionId,
      );
      expect(aliases).toHaveLength(1);
      expect(aliases[0][1].Properties).toMatchObject({
        Name: LIVE_ALIAS_NAME,
        RoutingConfiguration: [{ StateMachineVersionArn: { 'Fn::GetAtt': [versionId, 'Arn'] }, Weight: 100 }],
      });
    },
  );

  it('fills every Lambda placeholder with a pinned, retained Lambda version (never $LATEST, never the unqualified function)', () => {
    for (const w of workflows) {
      const sm = resources[stateMachineId(w.name)].Properties;
      expect(sm.DefinitionString).not.toMatch(/arn:aws:lambda|\$LATEST/);
      const lambdaPlaceholders = Object.keys(sm.DefinitionSubstitutions).filter((k) => k.endsWith('FunctionArn'));
      expect(lambdaPlaceholders.length).toBeGreaterThan(0);
      for (const key of lambdaPlaceholders) {
        expect(sm.DefinitionString).toContain('${' + key + '}');
        const ref = sm.DefinitionSubstitutions[key].Ref;
        expect(resources[ref], `${w.name} ${key}`).toMatchObject({
          Type: 'AWS::Lambda::Version',
          DeletionPolicy: 'Retain',
        });
      }
    }
  });

  it('points each placeholder at the function the placeholder names', () => {
    const sm = resources[stateMachineId('clinical-trial-onboarding')].Properties;
    const versionOf = (key: string) => resources[sm.DefinitionSubstitutions[key].Ref].Properties.FunctionName.Ref;
    expect(versionOf('ToolStepFunctionArn')).toBe(functionId('tool-step'));
    expect(versionOf('ApprovalRequestFunctionArn')).toBe(functionId('approval-request'));
  });

  it('gives continue-as-new the live alias ARN built from the fixed state machine name', () => {
    const sm = resources[stateMachineId('research-agent')].Properties;
    expect(sm.DefinitionSubstitutions.WorkflowAliasArn).toEqual({
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':states:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':stateMachine:research-agent:live',
        ],
      ],
    });
  });

  it('shares one set of six functions between all workflows', () => {
    expect(ofType('AWS::Lambda::Function')).toHaveLength(6);
    for (const [, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Environment.Variables.AUTOSAVE_DATA_DIR).toBe('/tmp/autosave');
      expect(fn.Properties.LoggingConfig.LogGroup).toBeDefined();
    }
    for (const [, lg] of ofType('AWS::Logs::LogGroup')) expect(lg.Properties.RetentionInDays).toBe(30);
  });

  it('logs state machine errors (ERROR by default) without execution data (tokens, payloads) and traces them', () => {
    for (const [, sm] of ofType('AWS::StepFunctions::StateMachine')) {
      expect(sm.Properties.LoggingConfiguration).toMatchObject({ Level: 'ERROR', IncludeExecutionData: false });
      expect(sm.Properties.TracingConfiguration).toEqual({ Enabled: true });
      const logGroupId =
        sm.Properties.LoggingConfiguration.Destinations[0].CloudWatchLogsLogGroup.LogGroupArn['Fn::GetAtt'][0];
      expect(resources[logGroupId].Properties.LogGroupName).toBe(
        `/aws/vendedlogs/states/Autosave-${sm.Properties.StateMachineName}`,
      );
    }
  });
});

describe('AutosaveStack: shared resources', () => {
  it('keeps records in an on-demand, encrypted, point-in-time-recoverable table with TTL on `expiration`', () => {
    const [, table] = onlyOfType('AWS::DynamoDB::Table');
    expect(table.Properties).toMatchObject({
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
    expect(table.DeletionPolicy).toBe('Retain');
  });

  it('keeps payloads in a private, encrypted, TLS-only bucket whose objects expire', () => {
    const [bucketId, bucket] = onlyOfType('AWS::S3::Bucket');
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(
      bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault
        .SSEAlgorithm,
    ).toBe('AES256');
    expect(bucket.Properties.LifecycleConfiguration.Rules[0]).toMatchObject({
      Status: 'Enabled',
      ExpirationInDays: 410,
    });
    synth.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('keeps dead letters encrypted for 14 days, TLS only, invisible for 6x the redrive timeout while redriven', () => {
    const queues = ofType('AWS::SQS::Queue').filter(([id]) => id.startsWith('SharedDeadLetters'));
    expect(queues).toHaveLength(1);
    const [queueId, queue] = queues[0];
    expect(queue.Properties).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
    expect(queue.Properties.VisibilityTimeout).toBe(6 * resources[functionId('redrive')].Properties.Timeout);
    synth.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('sends every closed run of the STANDARD machines to run-monitor', () => {
    const [, rule] = onlyOfType('AWS::Events::Rule');
    expect(rule.Properties.EventPattern).toEqual({
      source: ['aws.states'],
      'detail-type': ['Step Functions Execution Status Change'],
      detail: {
        status: ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'],
        // EXPRESS machines emit no status-change events: the rule names the STANDARD ones.
        stateMachineArn: workflows.filter((w) => w.type !== 'EXPRESS').map((w) => ({ Ref: stateMachineId(w.name) })),
      },
    });
    expect(rule.Properties.Targets[0].Arn).toEqual({ 'Fn::GetAtt': [functionId('run-monitor'), 'Arn'] });
  });

  it('connects the dead-letter queue to redrive with a mapping created disabled (an operator drains it)', () => {
    const [, mapping] = onlyOfType('AWS::Lambda::EventSourceMapping');
    expect(mapping.Properties).toMatchObject({
      Enabled: false,
      FunctionName: { Ref: functionId('redrive') },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('serves approvals from a Function URL (links are HMAC-signed) that approval-request builds its links on', () => {
    const [, url] = onlyOfType('AWS::Lambda::Url');
    expect(url.Properties).toMatchObject({
      AuthType: 'NONE',
      TargetFunctionArn: { 'Fn::GetAtt': [functionId('approval-endpoint'), 'Arn'] },
    });
    const [urlId] = onlyOfType('AWS::Lambda::Url');
    const env = resources[functionId('approval-request')].Properties.Environment.Variables;
    expect(env.AUTOSAVE_APPROVAL_BASE_URL).toEqual({ 'Fn::GetAtt': [urlId, 'FunctionUrl'] });
    expect(env.AUTOSAVE_APPROVAL_SECRET_PARAMETER).toBe('/aws/reference/secretsmanager/Autosave/approval-signing-key');
  });

  it('passes each function the configuration of what it needs and nothing else', () => {
    // AUTOSAVE_DATA_DIR (/tmp) goes to every function; the rest follows the needs list.
    const env = (name: string) =>
      Object.keys(resources[functionId(name)].Properties.Environment.Variables)
        .filter((k) => k.startsWith('AUTOSAVE_') && k !== 'AUTOSAVE_DATA_DIR')
        .sort();
    expect(env('model-step')).toEqual([
      'AUTOSAVE_BUCKET',
      'AUTOSAVE_MODEL_ID',
      'AUTOSAVE_MODEL_PROVIDER',
      'AUTOSAVE_TABLE',
    ]);
    expect(env('run-monitor')).toEqual(['AUTOSAVE_DLQ_URL', 'AUTOSAVE_TABLE']);
    expect(resources[functionId('model-step')].Properties.Environment.Variables.AUTOSAVE_MODEL_PROVIDER).toBe(
      'bedrock',
    );
  });
});

describe('AutosaveStack: least privilege', () => {
  // What these grants allow on AWS (every retained version, continue-as-new through the alias) is proved
  // by the policy simulator in packages/cdk/test/iam; here only who gets them.
  it('lets only the continue-as-new workflow start executions', () => {
    for (const w of workflows) {
      const sm = resources[stateMachineId(w.name)].Properties;
      const start = statementsOf(sm.RoleArn['Fn::GetAtt'][0]).filter((s) =>
        [s.Action].flat().includes('states:StartExecution'),
      );
      expect(start, w.name).toHaveLength(w.name === 'research-agent' ? 1 : 0);
    }
  });

  it('retains the pinned functions and the roles their versions run with (a deleted function takes its versions along)', () => {
    for (const name of ['model-step', 'tool-step', 'approval-request']) {
      const fn = resources[functionId(name)];
      expect(fn, name).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      expect(resources[roleOf(functionId(name))], name).toMatchObject({
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      });
    }
    for (const name of ['approval-endpoint', 'run-monitor', 'redrive'])
      expect(resources[functionId(name)].DeletionPolicy, name).toBeUndefined();
  });

  it.each([
    [
      'model-step',
      ['bedrock:InvokeModel', 's3:GetObject', 's3:PutObject'],
      ['states:SendTaskSuccess', 'ses:SendEmail', 'sqs:SendMessage'],
    ],
    // No SES unless a verified identity is configured (packages/cdk/test/deploy-options.test.ts).
    [
      'tool-step',
      ['dynamodb:UpdateItem', 's3:PutObject'],
      ['bedrock:InvokeModel', 'states:SendTaskSuccess', 'ses:SendEmail'],
    ],
    [
      'approval-request',
      ['secretsmanager:GetSecretValue', 'ssm:GetParameter'],
      ['states:SendTaskSuccess', 'bedrock:InvokeModel'],
    ],
    [
      'approval-endpoint',
      ['states:SendTaskSuccess', 'states:SendTaskFailure', 'secretsmanager:GetSecretValue'],
      ['states:RedriveExecution', 'bedrock:InvokeModel', 'states:DescribeExecution'],
    ],
    [
      'run-monitor',
      ['states:DescribeExecution', 'states:GetExecutionHistory', 'sqs:SendMessage', 'dynamodb:PutItem'],
      ['states:RedriveExecution', 'dynamodb:DeleteItem', 'bedrock:InvokeModel'],
    ],
    [
      'redrive',
      ['states:RedriveExecution', 'sqs:ReceiveMessage', 'sqs:DeleteMessage'],
      ['states:SendTaskSuccess', 'dynamodb:PutItem', 'sqs:SendMessage'],
    ],
  ])('%s may do what it needs and nothing it does not', (name, allowed, denied) => {
    const actions = actionsOf(roleOf(functionId(name)));
    for (const a of allowed) expect(actions, `${name} ${a}`).toContain(a);
    for (const d of denied) expect(actions, `${name} ${d}`).not.toContain(d);
  });

  it('scopes Bedrock to the configured foundation model and execution reads to our state machines', () => {
    const bedrock = statementsOf(roleOf(functionId('model-step'))).find((s) => s.Action === 'bedrock:InvokeModel');
    expect(JSON.stringify(bedrock.Resource)).toContain('::foundation-model/anthropic.claude-3-5-haiku-20241022-v1:0');
    const describe = statementsOf(roleOf(functionId('run-monitor'))).find((s) =>
      [s.Action].flat().includes('states:DescribeExecution'),
    );
    expect(JSON.stringify(describe.Resource)).toMatch(/execution:clinical-trial-onboarding:\*/);
    expect([describe.Resource].flat()).toHaveLength(workflows.length);
  });

  it('grants no wildcard action to anyone, and Resource "*" only where the API has no resource-level permission', () => {
    const wildcardOk = new Set([
      'states:SendTaskSuccess',
      'states:SendTaskFailure',
      'xray:PutTraceSegments',
      'xray:PutTelemetryRecords',
      'xray:GetSamplingRules',
      'xray:GetSamplingTargets',
      'logs:CreateLogDelivery',
      'logs:GetLogDelivery',
      'logs:UpdateLogDelivery',
      'logs:DeleteLogDelivery',
      'logs:ListLogDeliveries',
      'logs:PutResourcePolicy',
      'logs:DescribeResourcePolicies',
      'logs:DescribeLogGroups',
    ]);
    for (const [, policy] of ofType('AWS::IAM::Policy')) {
      for (const s of policy.Properties.PolicyDocument.Statement) {
        const actions: string[] = [s.Action].flat();
        for (const a of actions) expect(a).not.toMatch(/\*$/);
        if (s.Resource === '*') for (const a of actions) expect(wildcardOk, a).toContain(a);
      }
    }
    expect(ofType('AWS::IAM::Role').every(([, r]) => !r.Properties.ManagedPolicyArns)).toBe(true);
  });
});

describe('AutosaveStack: operations', () => {
  const alarm = (idPart: string): Resource => {
    const found = ofType('AWS::CloudWatch::Alarm').filter(([id]) => id.includes(idPart));
    expect(found, idPart).toHaveLength(1);
    return found[0][1];
  };

  it('pages when a dead letter is older than an hour', () => {
    expect(alarm('DeadLettersWaiting').Properties).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Namespace: 'AWS/SQS',
      Statistic: 'Maximum',
      Threshold: 3600,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it.each([
    ['DuplicatesSuppressed', 'DuplicateSuppressed'],
    ['RunsRestartedFromScratch', 'RunRestartedFromScratch'],
  ])('%s: any occurrence in the Autosave namespace, whatever its dimensions', (idPart, metric) => {
    const props = alarm(idPart).Properties;
    expect(props).toMatchObject({
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(props.Metrics[0]).toMatchObject({ Expression: `SELECT SUM(${metric}) FROM "Autosave"`, Period: 300 });
  });

  it('pages when the p99 history size of closed runs passes 80% of the 25,000-event limit', () => {
    expect(alarm('HistoryNearLimit').Properties).toMatchObject({
      Namespace: 'Autosave',
      MetricName: 'HistoryEvents',
      Dimensions: [{ Name: 'service', Value: 'autosave' }],
      ExtendedStatistic: 'p99',
      Threshold: HISTORY_EVENT_BUDGET,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(HISTORY_EVENT_BUDGET).toBe(20_000);
  });

  it('pages on any failed, timed-out or aborted run of each workflow', () => {
    const failed = ofType('AWS::CloudWatch::Alarm').filter(([id]) => id.includes('FailedRuns'));
    expect(failed).toHaveLength(workflows.length);
    for (const [, a] of failed) {
      expect(a.Properties.Threshold).toBe(0);
      expect(
        a.Properties.Metrics.map((m: any) => m.MetricStat?.Metric.MetricName)
          .filter(Boolean)
          .sort(),
      ).toEqual(['ExecutionsAborted', 'ExecutionsFailed', 'ExecutionsTimedOut']);
    }
  });

  it('gives run-monitor an on-failure destination (an async invoke that still fails after 2 retries is kept) with an alarm', () => {
    const [, config] = onlyOfType('AWS::Lambda::EventInvokeConfig');
    expect(config.Properties).toMatchObject({
      FunctionName: { Ref: functionId('run-monitor') },
      MaximumRetryAttempts: 2,
    });
    const queueId = config.Properties.DestinationConfig.OnFailure.Destination['Fn::GetAtt'][0];
    expect(resources[queueId]).toMatchObject({
      Type: 'AWS::SQS::Queue',
      Properties: { MessageRetentionPeriod: 14 * 24 * 3600 },
    });
    const props = alarm('RunMonitorFailuresWaiting').Properties;
    expect(props).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(props.Dimensions).toEqual([{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }]);
  });

  it('sends every alarm to the one SNS topic', () => {
    const [topicId] = onlyOfType('AWS::SNS::Topic');
    const alarms = ofType('AWS::CloudWatch::Alarm');
    expect(alarms.length).toBe(4 + workflows.length + 2);
    for (const [, a] of alarms) expect(a.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
  });

  it('has a dashboard with runs, redrives, humans, dead letters, duplicates and tokens', () => {
    const [, dashboard] = onlyOfType('AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const text of [
      'ExecutionsStarted',
      'ExecutionsSucceeded',
      'ExecutionsFailed',
      'ExecutionsRedriven',
      'Waiting on humans',
      'ApproximateNumberOfMessagesVisible',
      'DuplicateSuppressed',
      'ModelInputTokens',
      'ModelOutputTokens',
    ]) {
      expect(body).toContain(text);
    }
  });
});

describe('AutosaveStack: cdk-nag, AwsSolutions and Serverless packs', () => {
  const findings = (app: SynthesizedApp) =>
    [app.nag, app.serverlessNag].flatMap((pack) =>
      pack
        .validateScope(app.app)
        .violations.map((v) => `${v.ruleName} ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
    );

  it.each(['nag', 'serverlessNag'] as const)('%s reports no unacknowledged finding', (pack) => {
    const report = synth[pack].validateScope(synth.app);
    expect(
      report.violations.map((v) => `${v.ruleName} ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
    ).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('nor with an inference profile, SES, reserved concurrency and a canary rollout', () => {
    const options = synthApp({
      context: {
        'autosave:modelId': 'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
        'autosave:emailIdentity': 'trials.acme-health.org',
        'autosave:approvalConcurrency': 5,
        'autosave:rollout': 'canary',
      },
    });
    expect(findings(options)).toEqual([]);
  });

  it('traces every state machine and function with X-Ray by default, and turns both off with autosave:tracing=false, acknowledged', () => {
    for (const [, fn] of ofType('AWS::Lambda::Function'))
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    const untraced = synthApp({ context: { 'autosave:tracing': 'false' } });
    const untracedResources = untraced.template.toJSON().Resources as Record<string, Resource>;
    const all = (type: string) => Object.values(untracedResources).filter((r) => r.Type === type);
    for (const sm of all('AWS::StepFunctions::StateMachine'))
      expect(sm.Properties.TracingConfiguration?.Enabled ?? false).toBe(false);
    for (const fn of all('AWS::Lambda::Function'))
      expect(fn.Properties.TracingConfig?.Mode ?? 'PassThrough').toBe('PassThrough');
    expect(findings(untraced)).toEqual([]);
  });

  it('fails on a finding nobody acknowledged: a function added without a reason for each pack', () => {
    const planted = createAutosaveApp({
      workflows: registeredWorkflowSpecs(),
      functions: registeredFunctionSpecs(),
      app: { context: { 'aws:cdk:bundling-stacks': [] } },
    });
    new lambda.Function(planted.stack, 'Unreviewed', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => 1'),
    });
    const rules = (pack: 'nag' | 'serverlessNag') =>
      planted[pack]
        .validateScope(planted.app)
        .violations.filter((v) => v.violatingResources.some((r) => r.constructPath?.includes('Unreviewed')))
        .map((v) => v.ruleName);
    expect(rules('nag')).toEqual(expect.arrayContaining([expect.stringMatching(/^AwsSolutions-IAM4/)]));
    expect(rules('serverlessNag')).toEqual(
      expect.arrayContaining(['Serverless-LambdaDLQ', 'Serverless-LambdaTracing', 'Serverless-LambdaLatestVersion']),
    );
    expect(() => planted.app.synth()).toThrow();
  });

  it('gives every acknowledgement a reason', () => {
    const acknowledged: { id: string; reason: string }[] = [];
    for (const c of synth.app.node.findAll()) {
      for (const m of c.node.metadata) {
        if (m.type !== 'aws:cdk:acknowledged-rules') continue;
        for (const [id, reason] of Object.entries(m.data as Record<string, string>))
          acknowledged.push({ id, reason: String(reason) });
      }
    }
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const a of acknowledged) expect(a.reason.length, a.id).toBeGreaterThan(40);
  });
});
