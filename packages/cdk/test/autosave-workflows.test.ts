/**
 * AutosaveWorkflows in a user's own stack: existing resources passed in, deploy choices as props,
 * workflows by value, the tool check at synth, the dead-letter queue coupling, and cdk-nag (the user's
 * packs see no finding from the construct; without cdk-nag the construct adds nothing to the App).
 * Bundling is skipped (`aws:cdk:bundling-stacks: []`): what is checked here is the template.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { App, Aspects, Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { AutosaveWorkflows, type AutosaveWorkflowsProps } from '@autosave/cdk';
import { approval, defineWorkflow, model, tool } from '@autosave/workflow';
import { days } from '@autosave/workflow/config';

/** A user's workflow: a model step, an approval, then their own tool. */
const refund = defineWorkflow({
  name: 'refund',
  version: '1.0.0',
  steps: [
    model('draft', { prompt: 'Draft a refund note for order {orderId}' }),
    approval('review', { title: 'Refund {orderId}?', timeout: days(2) }),
    tool('pay', {
      tool: 'issue-refund',
      idempotencyKey: 'refund:{orderId}',
      input: { orderId: '{orderId}' },
      end: true,
    }),
  ],
});

/** The user's tool-step entry (any existing .ts file: bundling is skipped here). */
const USER_ENTRY = fileURLToPath(new URL('../../../lambdas/tool-step.ts', import.meta.url));

/** A user's app and stack, bundling skipped, CloudFormation validation off. */
function userStack(): { app: App; stack: Stack } {
  const app = new App({ builtinCloudFormationValidation: false, context: { 'aws:cdk:bundling-stacks': [] } });
  return { app, stack: new Stack(app, 'ShopStack') };
}

/** The construct in a user's stack with the user's existing table, bucket, queue and topic. */
function withExistingResources(extra: Partial<AutosaveWorkflowsProps> = {}) {
  const { app, stack } = userStack();
  const table = new dynamodb.Table(stack, 'OrdersTable', {
    partitionKey: { name: 'id', type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: 'expiration',
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
  });
  const bucket = s3.Bucket.fromBucketName(stack, 'SharedBucket', 'shop-payloads');
  const deadLetterQueue = new sqs.Queue(stack, 'ShopDeadLetters', {
    visibilityTimeout: Duration.minutes(6),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
  const alarmTopic = sns.Topic.fromTopicArn(stack, 'OpsTopic', 'arn:aws:sns:us-east-1:123456789012:ops');
  const autosave = new AutosaveWorkflows(stack, 'Agents', {
    workflows: [refund],
    toolStep: { entry: USER_ENTRY, tools: ['issue-refund'] },
    table,
    bucket,
    deadLetterQueue,
    alarmTopic,
    ...extra,
  });
  return { app, stack, autosave, table, deadLetterQueue, template: Template.fromStack(stack) };
}

const logicalId = (stack: Stack, construct: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(construct.node.defaultChild as never);

describe('AutosaveWorkflows in your own stack, with your existing resources', () => {
  const built = withExistingResources();
  const { template, stack, autosave } = built;

  it('creates no table, bucket or topic of its own: the template holds your table beside its resources', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.resourceCountIs('AWS::S3::Bucket', 0);
    template.resourceCountIs('AWS::SNS::Topic', 0);
    // Your dead-letter queue and the construct's run-monitor failures queue, no dead-letter queue of its own.
    template.resourceCountIs('AWS::SQS::Queue', 2);
    template.resourceCountIs('AWS::StepFunctions::StateMachine', 1);
  });

  it('points every function at your table and bucket, and grants on them', () => {
    const tableRef = { Ref: logicalId(stack, built.table) };
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Autosave tool-step',
      Environment: { Variables: Match.objectLike({ AUTOSAVE_TABLE: tableRef, AUTOSAVE_BUCKET: 'shop-payloads' }) },
    });
    const statements = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    expect(statements).toContain(JSON.stringify({ 'Fn::GetAtt': [logicalId(stack, built.table), 'Arn'] }));
    expect(statements).toContain(':s3:::shop-payloads/*');
  });

  it('redrives from your dead-letter queue and sends dead letters to it', () => {
    const queueArn = { 'Fn::GetAtt': [logicalId(stack, built.deadLetterQueue), 'Arn'] };
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { EventSourceArn: queueArn, Enabled: false });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Autosave run-monitor',
      Environment: {
        Variables: Match.objectLike({ AUTOSAVE_DLQ_URL: { Ref: logicalId(stack, built.deadLetterQueue) } }),
      },
    });
  });

  it('sends every alarm to your topic', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms)
      expect(alarm.Properties.AlarmActions).toEqual(['arn:aws:sns:us-east-1:123456789012:ops']);
  });

  it('compiles workflows given by value and exposes each one: its live alias ARN and state machine', () => {
    expect(autosave.workflows.map((w) => w.name)).toEqual(['refund']);
    expect(stack.resolve(autosave.aliasArn('refund'))).toEqual({
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':states:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':stateMachine:refund:live',
        ],
      ],
    });
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', { StateMachineName: 'refund' });
    template.hasResourceProperties('AWS::StepFunctions::StateMachineAlias', { Name: 'live' });
    expect(() => autosave.aliasArn('nope')).toThrow(/No workflow named "nope"/);
  });

  it('exposes its functions; your tool-step is told the tools its workflows name', () => {
    for (const name of ['model-step', 'tool-step', 'approval-request', 'approval-endpoint', 'run-monitor', 'redrive'])
      expect(autosave.function(name)).toBeDefined();
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Autosave tool-step',
      Environment: { Variables: Match.objectLike({ AUTOSAVE_REQUIRED_TOOLS: 'issue-refund' }) },
    });
  });

  it('writes what a cloud-assembly reader needs into the template Metadata (Autosave/<construct path>), passed-in resources included', () => {
    const metadata = (template.toJSON().Metadata as Record<string, any>).Autosave['ShopStack/Agents'];
    expect(metadata.version).toBe(1);
    expect(metadata.workflows).toEqual([
      {
        name: 'refund',
        stateMachineArn: { Ref: expect.stringMatching(/^AgentsRefundStateMachine/) },
        aliasArn: expect.anything(),
      },
    ]);
    expect(Object.keys(metadata.functions).sort()).toEqual([
      'approval-endpoint',
      'approval-request',
      'model-step',
      'redrive',
      'run-monitor',
      'tool-step',
    ]);
    expect(metadata.tableName).toEqual({ Ref: logicalId(stack, built.table) });
    expect(metadata.bucketName).toBe('shop-payloads');
    expect(metadata.deadLetterQueueUrl).toEqual({ Ref: logicalId(stack, built.deadLetterQueue) });
    expect(metadata.alarmTopicArn).toBe('arn:aws:sns:us-east-1:123456789012:ops');
  });

  it('takes every deploy option as a typed prop (no context needed)', () => {
    const canary = withExistingResources({
      rollout: 'canary',
      rolloutPercentage: 20,
      stateMachineLogLevel: 'ALL',
      logRetentionDays: 90,
      approvalConcurrency: 3,
    }).template;
    canary.hasResourceProperties('AWS::StepFunctions::StateMachineAlias', {
      DeploymentPreference: Match.objectLike({ Type: 'CANARY', Percentage: 20 }),
    });
    canary.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      LoggingConfiguration: Match.objectLike({ Level: 'ALL' }),
    });
    canary.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
    canary.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Autosave approval-endpoint',
      ReservedConcurrentExecutions: 3,
    });
    expect(() => withExistingResources({ logRetentionDays: 31 })).toThrow(/logRetentionDays/);
  });
});

describe('AutosaveWorkflows without existing resources', () => {
  it('creates its own table, bucket, dead-letter queue (visibility 6 x the redrive timeout) and topic', () => {
    const { stack } = userStack();
    new AutosaveWorkflows(stack, 'Agents', {
      workflows: [refund],
      toolStep: { entry: USER_ENTRY, tools: ['issue-refund'] },
    });
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.resourceCountIs('AWS::S3::Bucket', 1);
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 360,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
  });

  it('runs the built-in functions from their own code, no bundling of our sources with our lock file', () => {
    const { stack } = userStack();
    const autosave = new AutosaveWorkflows(stack, 'Agents', {
      workflows: [refund],
      toolStep: { entry: USER_ENTRY, tools: ['issue-refund'] },
    });
    const template = Template.fromStack(stack);
    for (const name of ['approval-request', 'approval-endpoint', 'run-monitor', 'redrive', 'model-step']) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: `Autosave ${name}`,
        Handler: 'index.handler',
        Runtime: 'nodejs22.x',
      });
    }
    expect(autosave.function('tool-step')).toBeDefined();
  });
});

describe('Unknown tools fail at synth, never after a run has started', () => {
  it('a workflow naming a tool the default tool-step lacks (it has send-email only) fails with UnknownToolError', () => {
    const { stack } = userStack();
    expect(() => new AutosaveWorkflows(stack, 'Agents', { workflows: [refund] })).toThrow(
      expect.objectContaining({
        name: 'UnknownToolError',
        message: expect.stringContaining('Workflow "refund" names "issue-refund"'),
      }),
    );
  });

  it("a workflow naming a tool missing from toolStep.tools fails with UnknownToolError, naming the tool-step's tools", () => {
    const { stack } = userStack();
    expect(
      () =>
        new AutosaveWorkflows(stack, 'Agents', {
          workflows: [refund],
          toolStep: { entry: USER_ENTRY, tools: ['send-email', { name: 'lookup-order' }] },
        }),
    ).toThrow(
      expect.objectContaining({
        name: 'UnknownToolError',
        message: expect.stringContaining('its tools: send-email, lookup-order'),
      }),
    );
  });

  it('tools given as tool values (anything with a name) count like names', () => {
    const { stack } = userStack();
    expect(
      () =>
        new AutosaveWorkflows(stack, 'Agents', {
          workflows: [refund],
          toolStep: { entry: USER_ENTRY, tools: [{ name: 'issue-refund' }] },
        }),
    ).not.toThrow();
  });

  it('with an entry but no tool list, synth passes, says the check happens at start, and the function gets the list to check', () => {
    const { stack } = userStack();
    new AutosaveWorkflows(stack, 'Agents', { workflows: [refund], toolStep: { entry: USER_ENTRY } });
    Annotations.fromStack(stack).hasInfo(
      '/ShopStack/Agents',
      Match.stringLikeRegexp('checked when the tool-step function starts'),
    );
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Autosave tool-step',
      Environment: { Variables: Match.objectLike({ AUTOSAVE_REQUIRED_TOOLS: 'issue-refund' }) },
    });
  });
});

describe('The dead-letter queue coupling: visibility timeout vs the redrive function', () => {
  const withQueue = (visibilityTimeout?: Duration) => {
    const { stack } = userStack();
    const deadLetterQueue = new sqs.Queue(stack, 'Dlq', visibilityTimeout ? { visibilityTimeout } : {});
    new AutosaveWorkflows(stack, 'Agents', {
      workflows: [refund],
      toolStep: { entry: USER_ENTRY, tools: ['issue-refund'] },
      deadLetterQueue,
    });
    return stack;
  };

  it("refuses at synth a queue whose visibility timeout is under the redrive function's timeout (SQS's 30 s default here), as Lambda would at deploy", () => {
    expect(() => withQueue()).toThrow(
      expect.objectContaining({
        name: 'DeployOptionsError',
        message: expect.stringContaining(
          "visibility timeout (30 seconds) is less than the redrive function's timeout (60 seconds)",
        ),
      }),
    );
  });

  it("warns about a queue under six times the redrive timeout (Lambda's advice) and accepts it", () => {
    Annotations.fromStack(withQueue(Duration.seconds(120))).hasWarning(
      '/ShopStack/Agents',
      Match.stringLikeRegexp('under 360 s'),
    );
  });

  it('accepts six times the redrive timeout without a word', () => {
    expect(
      Annotations.fromStack(withQueue(Duration.seconds(360))).findWarning('*', Match.stringLikeRegexp('visibility')),
    ).toEqual([]);
  });

  it('warns that an imported queue cannot be checked', () => {
    const { stack } = userStack();
    const deadLetterQueue = sqs.Queue.fromQueueArn(stack, 'Imported', 'arn:aws:sqs:us-east-1:123456789012:shop-dlq');
    new AutosaveWorkflows(stack, 'Agents', {
      workflows: [refund],
      toolStep: { entry: USER_ENTRY, tools: ['issue-refund'] },
      deadLetterQueue,
    });
    Annotations.fromStack(stack).hasWarning(
      '/ShopStack/Agents',
      Match.stringLikeRegexp('imported: make sure its visibility timeout is at least 360 seconds'),
    );
  });
});

describe('cdk-nag', () => {
  const violations = (app: App, packs: (AwsSolutionsChecks | ServerlessChecks)[]) =>
    packs.flatMap((pack) =>
      pack
        .validateScope(app)
        .violations.map((v) => `${v.ruleName} ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
    );

  it("the user's own AwsSolutions and Serverless packs find nothing in the construct's resources (it acknowledges its own)", () => {
    const { app, stack } = userStack();
    new AutosaveWorkflows(stack, 'Agents', {
      workflows: [refund],
      toolStep: { entry: USER_ENTRY, tools: ['issue-refund'] },
    });
    const packs = [new AwsSolutionsChecks(), new ServerlessChecks()];
    expect(violations(app, packs).filter((v) => v.includes('/Agents/'))).toEqual([]);
  });

  it('nor with existing resources passed in', () => {
    const { app } = withExistingResources();
    expect(
      violations(app, [new AwsSolutionsChecks(), new ServerlessChecks()]).filter((v) => v.includes('/Agents/')),
    ).toEqual([]);
  });

  it("acknowledges only on its own resources: the user's resources beside it still get their findings", () => {
    const { app, stack } = userStack();
    new AutosaveWorkflows(stack, 'Agents', {
      workflows: [refund],
      toolStep: { entry: USER_ENTRY, tools: ['issue-refund'] },
    });
    new sqs.Queue(stack, 'UsersOwnQueue');
    expect(
      violations(app, [new AwsSolutionsChecks()]).some(
        (v) => v.startsWith('AwsSolutions-SQS3') && v.includes('UsersOwnQueue'),
      ),
    ).toBe(true);
  });

  it('adds no aspect and no validation plugin to the App, and synthesizes without cdk-nag', () => {
    const { app, stack } = userStack();
    new AutosaveWorkflows(stack, 'Agents', {
      workflows: [refund],
      toolStep: { entry: USER_ENTRY, tools: ['issue-refund'] },
    });
    expect(Aspects.of(app).all).toEqual([]);
    expect(Aspects.of(stack).all).toEqual([]);
    // Where Validations.of(app).addPlugins puts a pack.
    expect(app.policyValidationBeta1).toEqual([]);
    expect(() => app.synth()).not.toThrow();
  });
});
