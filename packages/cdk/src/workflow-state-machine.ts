import { createHash } from 'node:crypto';
import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { LIVE_ALIAS_NAME } from '@autosave/workflow/config';
import type { ResolvedDeployOptions } from './deploy-options';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { definitionWithArnsInPlace, LocalstackLiveVersion } from './localstack';
import { acknowledgeNag, nagArnOf, TRACING_OFF_REASON } from './nag';
import type { RuntimeFunctions } from './runtime-functions';
import { placeholdersIn } from '@autosave/workflow';
import { functionForPlaceholder, type WorkflowSpec } from './stack-inputs';

/**
 * A workflow's state machine name. Fixed names are known before deploy (ARNs in definitions and grants)
 * but collide with a retained machine of a destroyed or rolled-back stack: `prefixStateMachineNames`
 * makes them `<stack>-<workflow>` (the CLI finds workflows under either form).
 */
export function stateMachineNameOf(
  workflow: string,
  stackName: string,
  options: Pick<ResolvedDeployOptions, 'prefixStateMachineNames'>,
): string {
  return options.prefixStateMachineNames ? `${stackName}-${workflow}` : workflow;
}

/** CloudFormation `DeploymentPreference.Type` for each rollout kind. */
const ROLLOUT_TYPES = { 'all-at-once': 'ALL_AT_ONCE', canary: 'CANARY', linear: 'LINEAR' } as const;

/** Options of {@link WorkflowStateMachine}. */
export interface WorkflowStateMachineProps {
  readonly workflow: WorkflowSpec;
  readonly functions: RuntimeFunctions;
  readonly options: ResolvedDeployOptions;
}

/**
 * One workflow on AWS: its state machine (definition placeholders filled with **pinned Lambda version
 * ARNs**), a version published whenever the definition or a pinned Lambda changes (old versions kept), and
 * the `live` alias callers start through — optionally moved by a canary/linear rollout that rolls back
 * on the failed-runs alarm.
 */
export class WorkflowStateMachine extends Construct {
  readonly stateMachine: sfn.StateMachine;
  /** The published version (CloudFormation), or undefined in LocalStack mode (published through the API). */
  readonly version?: sfn.CfnStateMachineVersion;
  /** The `live` alias (CloudFormation), or undefined in LocalStack mode (made through the API). */
  readonly alias?: sfn.CfnStateMachineAlias;
  /** The `live` alias ARN, built from the state machine name (known before deploy). */
  readonly aliasArn: string;
  /** The state machine's name: the workflow's, or `<stack>-<workflow>` with `prefixStateMachineNames`. */
  readonly stateMachineName: string;
  /** The unqualified state machine ARN, built from its name (a Ref would make the role depend on the machine). */
  readonly unqualifiedArn: string;
  /** Any failed, timed-out or aborted run of this state machine. */
  readonly failedRunsAlarm: cloudwatch.Alarm;
  /** sha256 (12 hex) of the workflow version and its compiled definition: names the published version. */
  readonly definitionHash: string;

  constructor(scope: Construct, id: string, props: WorkflowStateMachineProps) {
    super(scope, id);
    const { workflow, functions, options } = props;
    const stack = Stack.of(this);
    this.stateMachineName = stateMachineNameOf(workflow.name, stack.stackName, options);
    this.unqualifiedArn = stack.formatArn({
      service: 'states',
      resource: 'stateMachine',
      resourceName: this.stateMachineName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.aliasArn = `${this.unqualifiedArn}:${LIVE_ALIAS_NAME}`;

    const substitutions: Record<string, string> = {};
    const pinned = new Map<string, lambda.IFunction>();
    let continuesAsNew = false;
    for (const placeholder of placeholdersIn(JSON.parse(workflow.definition))) {
      const functionName = functionForPlaceholder(placeholder);
      if (functionName === undefined) {
        substitutions[placeholder] = this.aliasArn;
        continuesAsNew = true;
        continue;
      }
      // The version ARN (Ref of AWS::Lambda::Version): a run keeps the code it started with.
      substitutions[placeholder] = functions.pinnedVersion(functionName).functionArn;
      pinned.set(functionName, functions.get(functionName));
    }

    const logGroup = new logs.LogGroup(this, 'Logs', {
      // The /aws/vendedlogs/ prefix keeps Step Functions from growing the account's CloudWatch Logs
      // resource policy (10 KB) with one entry per state machine.
      logGroupName: `/aws/vendedlogs/states/${stack.stackName}-${workflow.name}`,
      retention: options.logRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('states.amazonaws.com'),
      description: `Autosave workflow ${workflow.name}: invoke its pinned Lambda versions, continue as new through its alias`,
    });
    if (pinned.size > 0) {
      // Every version of exactly the pinned functions: a state machine version pins its definition and its
      // role ARN, not the role's policy, so after a deploy the runs on older versions are authorized by
      // this policy, and must still reach the Lambda versions their definitions name.
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['lambda:InvokeFunction'],
          resources: [...pinned.values()].map((fn) => `${fn.functionArn}:*`),
        }),
      );
      for (const fn of pinned.values()) {
        acknowledgeNag(
          role,
          `AwsSolutions-IAM5[Resource::${nagArnOf(fn)}:*]`,
          'Runs in flight on older state machine versions invoke the older (retained) versions of this one function; a version ARN list would drop them at the next deploy.',
        );
      }
    }
    if (continuesAsNew) {
      // Step Functions authorizes StartExecution on an alias against the unqualified state machine ARN and
      // passes the alias in states:StateMachineQualifier (an array key, hence ForAnyValue).
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['states:StartExecution'],
          resources: [this.unqualifiedArn],
          conditions: { 'ForAnyValue:StringEquals': { 'states:StateMachineQualifier': [LIVE_ALIAS_NAME] } },
        }),
      );
    }

    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineName: this.stateMachineName,
      stateMachineType: workflow.type === 'EXPRESS' ? sfn.StateMachineType.EXPRESS : sfn.StateMachineType.STANDARD,
      // LocalStack ignores DefinitionSubstitutions on update: there the ARNs are written in place.
      ...(options.localstack
        ? {
            definitionBody: sfn.DefinitionBody.fromString(
              definitionWithArnsInPlace(workflow.definition, substitutions),
            ),
          }
        : {
            definitionBody: sfn.DefinitionBody.fromString(workflow.definition),
            definitionSubstitutions: substitutions,
          }),
      role,
      // Execution data carries task tokens and user payloads: log the events, not the data; errors only
      // by default (ALL logs every transition, billed per event).
      logs: { destination: logGroup, level: sfn.LogLevel[options.stateMachineLogLevel], includeExecutionData: false },
      tracingEnabled: options.tracing,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    if (options.stateMachineLogLevel !== 'ALL') {
      acknowledgeNag(
        this.stateMachine,
        'AwsSolutions-SF1',
        'Errors are logged by default: every run is in the execution history (90 days) and the failed ones reach the DLQ; ALL logs every transition at a per-event cost (-c autosave:stateMachineLogLevel=ALL).',
      );
    }
    if (!options.tracing) {
      for (const rule of ['AwsSolutions-SF2', 'Serverless-StepFunctionStateMachineXray'])
        acknowledgeNag(this.stateMachine, rule, TRACING_OFF_REASON);
    }
    acknowledgeNag(
      role,
      'AwsSolutions-IAM5[Resource::*]',
      'CloudWatch Logs vended delivery (logs:*LogDelivery, DescribeLogGroups, ...) and X-Ray PutTraceSegments support no resource-level permissions; CDK adds them for logging and tracing.',
    );

    this.definitionHash = createHash('sha256')
      .update(workflow.version)
      .update('\0')
      .update(workflow.definition)
      .digest('hex')
      .slice(0, 12);
    const versionDescription = `${workflow.name} ${workflow.version} definition ${this.definitionHash}`;
    this.failedRunsAlarm = new cloudwatch.Alarm(this, 'FailedRuns', {
      alarmDescription: `A run of ${workflow.name} failed, timed out or was aborted: see the dead-letter queue`,
      metric: this.failedRunsMetric(),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    if (options.localstack) {
      new LocalstackLiveVersion(this, 'LocalstackLive', {
        stateMachine: this.stateMachine,
        stateMachineName: this.stateMachineName,
        unqualifiedArn: this.unqualifiedArn,
        description: versionDescription,
        substitutions,
      });
      return;
    }

    this.version = new sfn.CfnStateMachineVersion(this, 'Version', {
      stateMachineArn: this.stateMachine.stateMachineArn,
      // A new revision (definition or a pinned Lambda version changed) replaces this resource: a new version.
      stateMachineRevisionId: this.stateMachine.stateMachineRevisionId,
      description: versionDescription,
    });
    // Keep every published version: executions in flight (and their redrives) run on the version they started on.
    this.version.applyRemovalPolicy(RemovalPolicy.RETAIN);

    const rollout = options.rollout;
    this.alias = new sfn.CfnStateMachineAlias(this, 'LiveAlias', {
      name: LIVE_ALIAS_NAME,
      description: `What callers start: ${workflow.name}`,
      ...(rollout === 'all-at-once'
        ? { routingConfiguration: [{ stateMachineVersionArn: this.version.attrArn, weight: 100 }] }
        : {
            deploymentPreference: {
              stateMachineVersionArn: this.version.attrArn,
              type: ROLLOUT_TYPES[rollout],
              percentage: options.rolloutPercentage,
              interval: options.rolloutIntervalMinutes,
              alarms: [this.failedRunsAlarm.alarmName],
            },
          }),
    });
  }

  /** Failed + timed-out + aborted runs of this state machine per 5 minutes. */
  failedRunsMetric(): cloudwatch.IMetric {
    const period = Duration.minutes(5);
    // Metric ids are unique per workflow: a dashboard graph holds the expressions of every workflow.
    const id = this.node.id.charAt(0).toLowerCase() + this.node.id.slice(1);
    return new cloudwatch.MathExpression({
      expression: `FILL(${id}Failed, 0) + FILL(${id}TimedOut, 0) + FILL(${id}Aborted, 0)`,
      usingMetrics: {
        [`${id}Failed`]: this.stateMachine.metricFailed({ period }),
        [`${id}TimedOut`]: this.stateMachine.metricTimedOut({ period }),
        [`${id}Aborted`]: this.stateMachine.metricAborted({ period }),
      },
      label: `${this.node.id} failed runs`,
      period,
    });
  }
}
