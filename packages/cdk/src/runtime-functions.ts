import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ArnFormat, Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { bedrockModelTarget } from '@autosave/runtime/models';
import { REQUIRED_TOOLS_ENV } from '@autosave/runtime/tools';
import type { ResolvedDeployOptions } from './deploy-options';
import { requireFunctionUrlRegion } from './function-url-regions';
import { BUNDLE_FILE, builtInFunctionCode, FUNCTION_BUNDLING } from './function-code';
import { acknowledgeNag, nagArn, nagResource, TRACING_OFF_REASON } from './nag';
import type { SharedResources } from './shared-resources';
import { FunctionNames, type FunctionNeed, type FunctionSpec } from './stack-inputs';

/** The runtime's data directory on Lambda (`AUTOSAVE_DATA_DIR`): the only writable place is /tmp. */
export const LAMBDA_DATA_DIR = '/tmp/autosave';

/** Runtime of every deployed function (nodejs20.x is deprecated on AWS; 22 is nearest to the tested Node 20). */
export const FUNCTION_RUNTIME = lambda.Runtime.NODEJS_22_X;

/** Step Functions actions each function may call (`sfn` need), on the executions of our state machines. */
const EXECUTION_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  [FunctionNames.approvalEndpoint]: [],
  [FunctionNames.runMonitor]: ['states:DescribeExecution', 'states:GetExecutionHistory'],
  [FunctionNames.redrive]: ['states:DescribeExecution', 'states:RedriveExecution'],
};
/**
 * Table actions each function's code uses (lib/idempotency's RecordTable: get, putIfAbsent/putIf,
 * updateIf): no Scan, Query, DeleteItem or batch writes for anyone, and the internet-facing
 * approval-endpoint only reads and conditionally updates approvals.
 */
const TABLE_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  [FunctionNames.modelStep]: ['dynamodb:GetItem', 'dynamodb:PutItem'],
  [FunctionNames.toolStep]: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
  [FunctionNames.approvalRequest]: ['dynamodb:GetItem', 'dynamodb:PutItem'],
  [FunctionNames.approvalEndpoint]: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  // The sent-marker of each dead letter (sendDeadLetterOnce).
  [FunctionNames.runMonitor]: ['dynamodb:GetItem', 'dynamodb:PutItem'],
};
/** Table actions of a function the table above does not name. */
const DEFAULT_TABLE_ACTIONS: readonly string[] = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];
/** Callback actions; they take a task token and support no resource-level permission. */
const TASK_TOKEN_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  [FunctionNames.approvalEndpoint]: ['states:SendTaskSuccess', 'states:SendTaskFailure'],
};

/**
 * Why a function has no Lambda dead-letter target (it applies to asynchronous invokes only): how each
 * one is invoked, and where a failure goes instead.
 */
const LAMBDA_DLQ_REASONS: Readonly<Record<string, string>> = {
  [FunctionNames.modelStep]:
    'Invoked synchronously by Step Functions (lambda:invoke): a failure returns to the Task, whose Retry and the run (redrive) handle it.',
  [FunctionNames.toolStep]:
    'Invoked synchronously by Step Functions (lambda:invoke): a failure returns to the Task, whose Retry and the run (redrive) handle it.',
  [FunctionNames.approvalRequest]:
    'Invoked synchronously by Step Functions (lambda:invoke.waitForTaskToken): a failure returns to the Task, whose Retry handles it.',
  [FunctionNames.approvalEndpoint]:
    'Invoked synchronously through its Function URL: a failure is the HTTP answer to the approver, who may try again.',
  [FunctionNames.runMonitor]:
    "Invoked asynchronously by EventBridge: failures after Lambda's two retries go to its on-failure destination (the run-monitor failures queue, alarmed), the successor of a function DLQ.",
  [FunctionNames.redrive]:
    'Invoked by its SQS event source mapping (synchronous polling): a failed message stays in the dead-letter queue it came from.',
};
const DEFAULT_LAMBDA_DLQ_REASON = 'Invoked synchronously: a failure returns to its caller.';

/** Options of {@link RuntimeFunctions}. */
export interface RuntimeFunctionsProps {
  readonly specs: readonly FunctionSpec[];
  readonly shared: SharedResources;
  readonly options: ResolvedDeployOptions;
  /** Names of the state machines whose executions the `sfn` functions may read or redrive. */
  readonly stateMachineNames: readonly string[];
  /**
   * The tools the workflows name, given to the tool-step function (`AUTOSAVE_REQUIRED_TOOLS`), which refuses
   * to start without every one of them. @default none checked
   */
  readonly requiredTools?: readonly string[];
}

/**
 * The six runtime functions, bundled once per synth and shared by every workflow. Each gets its own
 * role holding only what its `needs` list asks for, its own log group with retention, and a published
 * version (retained on replacement, so executions in flight keep the code they started with).
 */
export class RuntimeFunctions extends Construct {
  /** The approval endpoint's URL (undefined when the registry has no approval-endpoint). */
  readonly approvalUrl?: lambda.FunctionUrl;
  private readonly functions = new Map<string, lambda.Function>();
  private readonly pinned = new Set<string>();

  constructor(scope: Construct, id: string, props: RuntimeFunctionsProps) {
    super(scope, id);
    for (const spec of props.specs) this.functions.set(spec.name, this.createFunction(spec, props));
    const runtimeReason =
      'Pinned to nodejs22.x, the runtime nearest the Node 20 the code is tested on; moving to nodejs24.x is a tested change, not a default.';
    acknowledgeNag(this, 'AwsSolutions-L1', runtimeReason);
    acknowledgeNag(this, 'Serverless-LambdaLatestVersion', runtimeReason);

    // approval-request builds links to the approval endpoint; the endpoint is a Function URL.
    const endpoint = this.functions.get(FunctionNames.approvalEndpoint);
    const request = this.functions.get(FunctionNames.approvalRequest);
    if (endpoint) {
      // Auth NONE: approvers open links from email without AWS credentials. Every link is HMAC-signed and
      // expiring, and a decision is a single-use conditional write. (cdk-nag's LambdaFunctionUrlAuth rule
      // is in no pack, AwsSolutions included, so there is nothing to acknowledge.)
      requireFunctionUrlRegion(this);
      this.approvalUrl = endpoint.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
      request?.addEnvironment('AUTOSAVE_APPROVAL_BASE_URL', this.approvalUrl.url);
    }
  }

  /** The function registered under `name`. */
  get(name: string): lambda.Function {
    const fn = this.functions.get(name);
    if (!fn) throw new Error(`No runtime function named "${name}" (known: ${[...this.functions.keys()].join(', ')})`);
    return fn;
  }

  /**
   * The published version a definition pins, with the function kept for it: deleting or replacing a
   * function deletes all its versions whatever their own DeletionPolicy, so a pinned function (and the
   * role its versions run with) is retained on delete and on replacement.
   */
  pinnedVersion(name: string): lambda.IVersion {
    const fn = this.get(name);
    if (!this.pinned.has(name)) {
      this.pinned.add(name);
      fn.applyRemovalPolicy(RemovalPolicy.RETAIN);
      const role = fn.role as iam.Role;
      role.applyRemovalPolicy(RemovalPolicy.RETAIN);
      (role.node.tryFindChild('DefaultPolicy') as iam.Policy | undefined)?.applyRemovalPolicy(RemovalPolicy.RETAIN);
    }
    return fn.currentVersion;
  }

  /** Whether the registry has a function called `name`. */
  has(name: string): boolean {
    return this.functions.has(name);
  }

  /** Every function, by registry name. */
  all(): ReadonlyMap<string, lambda.Function> {
    return this.functions;
  }

  private createFunction(spec: FunctionSpec, props: RuntimeFunctionsProps): lambda.Function {
    const id = pascal(spec.name);
    const logGroup = new logs.LogGroup(this, `${id}Logs`, {
      retention: props.options.logRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = new iam.Role(this, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Autosave ${spec.name}: only what its needs list asks for`,
    });
    logGroup.grantWrite(role);

    const common: lambda.FunctionOptions & { runtime: lambda.Runtime } = {
      runtime: FUNCTION_RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      // Step Functions traces every run; the functions join its traces.
      tracing: props.options.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      timeout: Duration.seconds(spec.timeoutSeconds),
      memorySize: spec.memoryMb,
      role,
      logGroup,
      description: `Autosave ${spec.name}`,
      environment: {
        // Only /tmp is writable on Lambda; the fakes' action records and any local fallback live there.
        AUTOSAVE_DATA_DIR: LAMBDA_DATA_DIR,
        ...(spec.name === FunctionNames.toolStep && props.requiredTools?.length
          ? { [REQUIRED_TOOLS_ENV]: props.requiredTools.join(',') }
          : {}),
      },
      // Old versions stay: an execution in flight keeps invoking the version its definition pins.
      currentVersionOptions: { removalPolicy: RemovalPolicy.RETAIN },
      // The public approval endpoint may get a ceiling of its own (deploy option).
      ...(spec.name === FunctionNames.approvalEndpoint && props.options.approvalConcurrency !== undefined
        ? { reservedConcurrentExecutions: props.options.approvalConcurrency }
        : {}),
    };
    const fn =
      spec.entry === undefined
        ? new lambda.Function(this, id, {
            ...common,
            code: builtInFunctionCode(spec.name),
            handler: `${BUNDLE_FILE.replace(/\.mjs$/, '')}.handler`,
          })
        : this.bundledFunction(id, { ...spec, entry: spec.entry }, common);
    for (const need of spec.needs) this.grantNeed(fn, role, spec.name, need, props);
    acknowledgeNag(
      role,
      'AwsSolutions-IAM5[Resource::*]',
      'X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level permissions; CDK adds them for active tracing.',
    );
    acknowledgeNag(fn, 'Serverless-LambdaDLQ', LAMBDA_DLQ_REASONS[spec.name] ?? DEFAULT_LAMBDA_DLQ_REASON);
    if (!props.options.tracing) acknowledgeNag(fn, 'Serverless-LambdaTracing', TRACING_OFF_REASON);
    return fn;
  }

  /**
   * A function bundled from a source file of the user's project (their tool-step or model-step), with the
   * built-in functions' esbuild options and CDK's own lock-file lookup (or the spec's `projectRoot`/`depsLockFilePath`).
   */
  private bundledFunction(
    id: string,
    spec: FunctionSpec & { entry: string },
    common: lambda.FunctionOptions & { runtime: lambda.Runtime },
  ): NodejsFunction {
    const entry = resolve(spec.entry);
    if (!existsSync(entry)) throw new Error(`Function ${spec.name}: entry ${entry} does not exist`);
    return new NodejsFunction(this, id, {
      ...common,
      entry,
      handler: spec.handler ?? 'handler',
      ...(spec.projectRoot !== undefined ? { projectRoot: spec.projectRoot } : {}),
      ...(spec.depsLockFilePath !== undefined ? { depsLockFilePath: spec.depsLockFilePath } : {}),
      bundling: {
        format: OutputFormat.ESM,
        target: FUNCTION_BUNDLING.target,
        mainFields: [...FUNCTION_BUNDLING.mainFields],
        // Bundled, not taken from the runtime: the code runs with the SDK versions the project pins.
        bundleAwsSDK: true,
        externalModules: [],
        minify: FUNCTION_BUNDLING.minify,
        keepNames: FUNCTION_BUNDLING.keepNames,
        sourceMap: FUNCTION_BUNDLING.sourcemap,
        banner: FUNCTION_BUNDLING.banner,
      },
    });
  }

  private grantNeed(
    fn: lambda.Function,
    role: iam.Role,
    name: string,
    need: FunctionNeed,
    props: RuntimeFunctionsProps,
  ): void {
    const { shared, options } = props;
    const stack = Stack.of(this);
    switch (need) {
      case 'table':
        fn.addEnvironment('AUTOSAVE_TABLE', shared.table.tableName);
        shared.table.grant(role, ...(TABLE_ACTIONS[name] ?? DEFAULT_TABLE_ACTIONS));
        return;
      case 'bucket':
        fn.addEnvironment('AUTOSAVE_BUCKET', shared.bucket.bucketName);
        role.addToPrincipalPolicy(
          new iam.PolicyStatement({
            actions: ['s3:GetObject', 's3:PutObject'],
            resources: [shared.bucket.arnForObjects('*')],
          }),
        );
        // Without ListBucket a missing object answers 403 instead of 404.
        role.addToPrincipalPolicy(
          new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [shared.bucket.bucketArn] }),
        );
        acknowledgeNag(
          role,
          `AwsSolutions-IAM5[Resource::${nagResource(this, shared.bucket.arnForObjects('*'))}]`,
          'Payload keys are content hashes known only at run time; the grant is Get/PutObject on this one bucket.',
        );
        return;
      case 'dlq':
        fn.addEnvironment('AUTOSAVE_DLQ_URL', shared.deadLetterQueue.queueUrl);
        // redrive consumes through its event source mapping (RunMonitoring); everyone else only sends.
        if (name !== FunctionNames.redrive) shared.deadLetterQueue.grantSendMessages(role);
        return;
      case 'sfn': {
        const executionActions = EXECUTION_ACTIONS[name] ?? ['states:DescribeExecution'];
        const executionArns = props.stateMachineNames.map((sm) =>
          stack.formatArn({
            service: 'states',
            resource: 'execution',
            resourceName: `${sm}:*`,
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        );
        if (executionActions.length > 0 && executionArns.length > 0) {
          role.addToPrincipalPolicy(
            new iam.PolicyStatement({ actions: [...executionActions], resources: executionArns }),
          );
          for (const sm of props.stateMachineNames) {
            acknowledgeNag(
              role,
              `AwsSolutions-IAM5[Resource::${nagArn('states', `execution:${sm}:*`)}]`,
              "Execution names are chosen by callers at run time; the grant covers executions of this stack's state machines only.",
            );
          }
        }
        const tokenActions = TASK_TOKEN_ACTIONS[name];
        if (tokenActions) {
          role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...tokenActions], resources: ['*'] }));
          acknowledgeNag(
            role,
            'AwsSolutions-IAM5[Resource::*]',
            'SendTaskSuccess/SendTaskFailure act on a task token and support no resource-level permissions.',
          );
        }
        return;
      }
      case 'bedrock':
        fn.addEnvironment('AUTOSAVE_MODEL_PROVIDER', 'bedrock');
        fn.addEnvironment('AUTOSAVE_MODEL_ID', options.modelId);
        for (const statement of bedrockInvokeStatements(stack, options.modelId)) role.addToPrincipalPolicy(statement);
        if (bedrockModelTarget(options.modelId).kind === 'inference-profile') {
          acknowledgeNag(
            role,
            `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/${bedrockModelTarget(options.modelId).foundationModelId}]`,
            'An inference profile routes each call to this one foundation model in any region of its geography (global: any commercial region); the grant is usable only through the configured profile (bedrock:InferenceProfileArn condition).',
          );
        }
        return;
      case 'ses':
        // No verified identity configured: no SES at all (links go to the run history, emails to the step result).
        if (!options.emailIdentity || !options.emailFrom) return;
        fn.addEnvironment('AUTOSAVE_EMAIL_PROVIDER', 'ses');
        fn.addEnvironment('AUTOSAVE_EMAIL_FROM', options.emailFrom);
        role.addToPrincipalPolicy(
          new iam.PolicyStatement({
            actions: ['ses:SendEmail'],
            resources: [stack.formatArn({ service: 'ses', resource: 'identity', resourceName: options.emailIdentity })],
          }),
        );
        // In the SES sandbox, SES also authorizes ses:SendEmail against each recipient's identity (a
        // sandboxed account sends only to its own verified identities): any identity of the account as a
        // recipient, and only with the configured sender.
        role.addToPrincipalPolicy(
          new iam.PolicyStatement({
            actions: ['ses:SendEmail'],
            resources: [stack.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' })],
            conditions: { StringEquals: { 'ses:FromAddress': options.emailFrom } },
          }),
        );
        acknowledgeNag(
          role,
          `AwsSolutions-IAM5[Resource::${nagArn('ses', 'identity/*')}]`,
          "SES in the sandbox checks ses:SendEmail against every recipient's identity; the statement only allows the configured From address (ses:FromAddress).",
        );
        return;
      case 'secret': {
        const parameterName = shared.approvalSecretParameterName;
        fn.addEnvironment('AUTOSAVE_APPROVAL_SECRET_PARAMETER', parameterName);
        shared.approvalSecret.grantRead(role);
        role.addToPrincipalPolicy(
          new iam.PolicyStatement({
            actions: ['ssm:GetParameter'],
            resources: [
              stack.formatArn({ service: 'ssm', resource: 'parameter', resourceName: parameterName.slice(1) }),
            ],
          }),
        );
        return;
      }
    }
  }
}

/**
 * What Converse on `modelId` needs (Bedrock's inference-profile prerequisites): a foundation model,
 * `bedrock:InvokeModel` on its ARN in the stack's region; an inference profile, `bedrock:InvokeModel` on
 * the profile **and** on the foundation model in every region the profile may route to, the latter only
 * through this profile (`ArnLike bedrock:InferenceProfileArn`). The destination regions are a wildcard:
 * Bedrock changes a profile's region list without notice, and a global profile's destination is any
 * commercial region.
 */
export function bedrockInvokeStatements(stack: Stack, modelId: string): iam.PolicyStatement[] {
  const target = bedrockModelTarget(modelId);
  if (target.kind === 'foundation-model') {
    const arn =
      target.arn ??
      stack.formatArn({
        service: 'bedrock',
        account: '',
        resource: 'foundation-model',
        resourceName: target.foundationModelId,
      });
    return [new iam.PolicyStatement({ actions: ['bedrock:InvokeModel'], resources: [arn] })];
  }
  const profileArn =
    target.arn ??
    stack.formatArn({ service: 'bedrock', resource: 'inference-profile', resourceName: target.profileId });
  return [
    new iam.PolicyStatement({ actions: ['bedrock:InvokeModel'], resources: [profileArn] }),
    new iam.PolicyStatement({
      actions: ['bedrock:InvokeModel'],
      resources: [`arn:${Aws.PARTITION}:bedrock:*::foundation-model/${target.foundationModelId}`],
      conditions: { ArnLike: { 'bedrock:InferenceProfileArn': profileArn } },
    }),
  ];
}

/** `approval-endpoint` -> `ApprovalEndpoint`: stable construct ids from registry names. */
export function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
}
