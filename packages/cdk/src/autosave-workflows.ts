import { Annotations, Duration, Stack, Token } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { BUILT_IN_TOOL_NAMES, describeMissingTools, missingTools, UnknownToolError } from '@autosave/runtime/tools';
import { compileWorkflow, toAslJson, toolNamesOf, type Workflow } from '@autosave/workflow';
import { DeployOptionsError, resolveDeployOptions, type DeployOptions } from './deploy-options';
import { verifyLocalstackEmailIdentity } from './localstack';
import { Operations } from './operations';
import { RunRouting } from './run-routing';
import { pascal, RuntimeFunctions } from './runtime-functions';
import { SharedResources, SQS_VISIBILITY_PER_FUNCTION_TIMEOUT } from './shared-resources';
import { builtInFunctionSpecs, FunctionNames, type FunctionSpec, type WorkflowSpec } from './stack-inputs';
import { stateMachineNameOf, WorkflowStateMachine } from './workflow-state-machine';

/** Your own code for a step function (tool-step or model-step), bundled from your project. */
export interface StepFunctionCode {
  /**
   * Your handler's source file (e.g. `lambdas/tool-step.ts` exporting `handler = toolStepHandler({ tools })`),
   * bundled with `NodejsFunction` from your project, absolute or relative to the current directory.
   * @default the built-in handler, prebuilt inside the package
   */
  readonly entry?: string;
  /** The handler's export name in `entry`. @default `handler` */
  readonly handler?: string;
  /** `NodejsFunction`'s `projectRoot` for `entry`. @default the folder of the lock file */
  readonly projectRoot?: string;
  /** `NodejsFunction`'s `depsLockFilePath` for `entry`. @default CDK's: the lock file found upward from the current directory */
  readonly depsLockFilePath?: string;
}

/** The tool-step function: your code and the names of the tools it implements. */
export interface ToolStepProps extends StepFunctionCode {
  /**
   * The tools `entry` implements: their names, or the tools themselves (anything with a `name`, such as
   * `defineTool(...)` values). A workflow naming any other tool fails the synth with `UnknownToolError`.
   * Whether given or not, the function checks its tools against the workflows' when it starts.
   * @default without `entry`: the built-in tools (`send-email`); with `entry`: not known, checked only when the function starts
   */
  readonly tools?: readonly (string | { readonly name: string })[];
}

/** Options of {@link AutosaveWorkflows}: what to deploy, the deploy choices, and existing resources to use. */
export interface AutosaveWorkflowsProps extends DeployOptions {
  /**
   * The workflows, by value (`defineWorkflow(...)`): compiled here. An already compiled {@link WorkflowSpec}
   * is accepted too.
   */
  readonly workflows: readonly (Workflow | WorkflowSpec)[];
  /** The tool-step function (your tools). @default the built-in tool-step: `send-email` only */
  readonly toolStep?: ToolStepProps;
  /** The model-step function (your model provider). @default the built-in model-step: Bedrock Converse on `modelId` */
  readonly modelStep?: StepFunctionCode;
  /**
   * An existing records table: partition key `id` (string), TTL attribute `expiration`, on-demand or enough
   * capacity for every step's record writes. @default a new table (retained on delete)
   */
  readonly table?: dynamodb.ITable;
  /** An existing bucket for payloads over the inline limit. @default a new bucket (private, SSL only, objects expire after {@link payloadExpiration}) */
  readonly bucket?: s3.IBucket;
  /**
   * An existing dead-letter queue for failed runs. Its visibility timeout must be at least the redrive
   * function's timeout (Lambda refuses the event source mapping otherwise; six times is Lambda's advice): a
   * shorter one defined in this app fails the synth. @default a new queue (14 days retention, SSE)
   */
  readonly deadLetterQueue?: sqs.IQueue;
  /** An existing SNS topic every alarm notifies. @default a new topic (SSL only) */
  readonly alarmTopic?: sns.ITopic;
  /** When payload objects of the new bucket expire (ignored with `bucket`). @default 410 days: a year-long run, redriven within 14 days, and a month */
  readonly payloadExpiration?: Duration;
  /**
   * The runtime functions and their code, for tests that replace them all (e.g. a code-changing deploy):
   * a spec with an `entry` is bundled from it, one without runs the built-in code.
   * @default every built-in function; tool-step and model-step from `toolStep`/`modelStep`
   */
  readonly functions?: readonly FunctionSpec[];
}

/** A workflow as the construct deployed it. */
export interface DeployedWorkflow {
  /** The workflow's name. */
  readonly name: string;
  /** The ARN of its `live` alias: start runs here (`StartExecution`). */
  readonly aliasArn: string;
  /** Its state machine (versions and the alias point at it). */
  readonly stateMachine: WorkflowStateMachine['stateMachine'];
  /** Everything the construct made for it (version, alias, failed-runs alarm). */
  readonly construct: WorkflowStateMachine;
}

/** A workflow compiled for deploy, in the canonical field order of `toAslJson`, without indentation. */
export function toWorkflowSpec(workflow: Workflow | WorkflowSpec): WorkflowSpec {
  if (isWorkflowSpec(workflow)) return workflow;
  const definition = JSON.stringify(JSON.parse(toAslJson(compileWorkflow(workflow))));
  return {
    name: workflow.name,
    version: workflow.version,
    type: workflow.type,
    definition,
    tools: toolNamesOf(workflow),
  };
}

/**
 * The key of the template Metadata entry each construct writes (`Metadata.Autosave["<construct path>"]`):
 * what a reader of the cloud assembly (`autosave local --stack`) needs to find in your stack — the workflows
 * and their alias ARNs, the functions by registry name, the table, bucket and dead-letter queue — whatever
 * their logical ids, and whether they were passed in or created. Values are CloudFormation expressions.
 */
export const TEMPLATE_METADATA_KEY = 'Autosave';

/** One construct's entry under {@link TEMPLATE_METADATA_KEY}. */
export interface AutosaveTemplateMetadata {
  /** Format version of this entry. */
  readonly version: 1;
  /** Per workflow: its state machine (a Ref) and its `live` alias ARN. */
  readonly workflows: readonly { readonly name: string; readonly stateMachineArn: string; readonly aliasArn: string }[];
  /** Function ARNs (unqualified) by registry name. */
  readonly functions: Readonly<Record<string, string>>;
  readonly tableName: string;
  readonly bucketName: string;
  readonly deadLetterQueueUrl: string;
  readonly alarmTopicArn: string;
}

function isWorkflowSpec(workflow: Workflow | WorkflowSpec): workflow is WorkflowSpec {
  return typeof (workflow as WorkflowSpec).definition === 'string';
}

/**
 * Autosave in your stack: the records table, payload bucket, dead-letter queue and alarm topic (yours, or
 * new ones), the six runtime functions (your tool-step and model-step, the others prebuilt), one versioned
 * state machine with a `live` alias per workflow, routing of closed runs to the dead-letter queue, alarms
 * and a dashboard.
 *
 * It adds nothing to your App (no aspects, no nag packs). It acknowledges the cdk-nag findings its own
 * resources raise by design, with a reason each, so an app that runs cdk-nag's AwsSolutions and Serverless
 * packs sees no finding from it.
 *
 * ```ts
 * const agents = new AutosaveWorkflows(this, 'Agents', {
 *   workflows: [refundWorkflow],
 *   toolStep: { entry: 'lambdas/tool-step.ts', tools: ['issue-refund', 'send-email'] },
 *   table: existingTable,
 * });
 * new CfnOutput(this, 'RefundAlias', { value: agents.aliasArn('refund') });
 * ```
 */
export class AutosaveWorkflows extends Construct {
  /** The records table, payload bucket, dead-letter queue, signing secret and alarm topic. */
  readonly shared: SharedResources;
  /** The runtime functions, by registry name (`functions.get('tool-step')`). */
  readonly functions: RuntimeFunctions;
  /** One entry per workflow, in the order given. */
  readonly workflows: readonly DeployedWorkflow[];
  /** The alarms and the dashboard. */
  readonly operations: Operations;
  /** The tools the workflows name, which the tool-step function must implement. */
  readonly requiredTools: readonly string[];

  constructor(scope: Construct, id: string, props: AutosaveWorkflowsProps) {
    super(scope, id);
    const options = resolveDeployOptions(props);
    const specs = props.workflows.map(toWorkflowSpec);
    const names = new Set<string>();
    for (const spec of specs) {
      if (names.has(spec.name))
        throw new DeployOptionsError(
          `Two workflows are named "${spec.name}"; a state machine name is unique per account and region`,
        );
      names.add(spec.name);
    }
    this.requiredTools = checkTools(specs, props.toolStep);
    if (props.toolStep?.entry !== undefined && props.toolStep.tools === undefined && this.requiredTools.length > 0) {
      Annotations.of(this).addInfoV2(
        '@autosave/cdk:toolsCheckedAtStart',
        `toolStep.tools is not given: the tools ${this.requiredTools.join(', ')} are checked when the tool-step function starts, not at synth`,
      );
    }
    const functionSpecs = withStepCode(props.functions ?? builtInFunctionSpecs(), props);

    const redrive = functionSpecs.find((f) => f.name === FunctionNames.redrive);
    const redriveTimeout = redrive ? Duration.seconds(redrive.timeoutSeconds) : undefined;
    if (props.deadLetterQueue && redriveTimeout) checkDeadLetterQueue(this, props.deadLetterQueue, redriveTimeout);
    this.shared = new SharedResources(this, 'Shared', {
      table: props.table,
      bucket: props.bucket,
      deadLetterQueue: props.deadLetterQueue,
      alarmTopic: props.alarmTopic,
      payloadExpiration: props.payloadExpiration,
      // Lambda's advice for an SQS source, kept here so no caller has to know it.
      deadLetterVisibilityTimeout: redriveTimeout
        ? Duration.seconds(redriveTimeout.toSeconds() * SQS_VISIBILITY_PER_FUNCTION_TIMEOUT)
        : undefined,
    });
    const stackName = Stack.of(this).stackName;
    this.functions = new RuntimeFunctions(this, 'Functions', {
      specs: functionSpecs,
      shared: this.shared,
      options,
      stateMachineNames: specs.map((w) => stateMachineNameOf(w.name, stackName, options)),
      requiredTools: this.requiredTools,
    });
    // LocalStack's SES refuses unverified senders: verify the configured one there.
    if (options.localstack && options.emailFrom) verifyLocalstackEmailIdentity(this, options.emailFrom);
    const machines = specs.map(
      (workflow) =>
        new WorkflowStateMachine(this, pascal(workflow.name), { workflow, functions: this.functions, options }),
    );
    this.workflows = machines.map((construct, i) => ({
      name: specs[i].name,
      aliasArn: construct.aliasArn,
      stateMachine: construct.stateMachine,
      construct,
    }));
    const routing = new RunRouting(this, 'RunRouting', {
      workflows: machines,
      functions: this.functions,
      shared: this.shared,
    });
    this.operations = new Operations(this, 'Operations', {
      shared: this.shared,
      functions: this.functions,
      workflows: machines,
      alarmEmail: options.alarmEmail,
      runMonitorFailures: routing.runMonitorFailures,
    });
    this.writeTemplateMetadata();
  }

  /** Adds this construct's {@link AutosaveTemplateMetadata} to the stack template's Metadata. */
  private writeTemplateMetadata(): void {
    const stack = Stack.of(this);
    const entry: AutosaveTemplateMetadata = {
      version: 1,
      workflows: this.workflows.map((w) => ({
        name: w.name,
        stateMachineArn: w.stateMachine.stateMachineArn,
        aliasArn: w.aliasArn,
      })),
      functions: Object.fromEntries([...this.functions.all()].map(([name, fn]) => [name, fn.functionArn])),
      tableName: this.shared.table.tableName,
      bucketName: this.shared.bucket.bucketName,
      deadLetterQueueUrl: this.shared.deadLetterQueue.queueUrl,
      alarmTopicArn: this.shared.alarmTopic.topicArn,
    };
    const metadata = (stack.templateOptions.metadata ??= {});
    metadata[TEMPLATE_METADATA_KEY] = {
      ...(metadata[TEMPLATE_METADATA_KEY] as object | undefined),
      [this.node.path]: entry,
    };
  }

  /** The workflow called `name`. @throws Error for a name the construct was not given */
  workflow(name: string): DeployedWorkflow {
    const found = this.workflows.find((w) => w.name === name);
    if (!found) throw new Error(`No workflow named "${name}" (known: ${this.workflows.map((w) => w.name).join(', ')})`);
    return found;
  }

  /** The `live` alias ARN of the workflow called `name`: where runs start. */
  aliasArn(name: string): string {
    return this.workflow(name).aliasArn;
  }

  /** The runtime function called `name` (`tool-step`, `model-step`, `approval-request`, ...). */
  function(name: string): lambda.IFunction {
    return this.functions.get(name);
  }
}

/**
 * The tools the workflows name, refused at synth when the tool-step's tools are known and lack one.
 * @throws UnknownToolError naming the workflow and the missing tools
 */
function checkTools(specs: readonly WorkflowSpec[], toolStep: ToolStepProps | undefined): string[] {
  const required = [...new Set(specs.flatMap((s) => s.tools ?? []))].sort();
  const known =
    toolStep?.tools?.map((t) => (typeof t === 'string' ? t : t.name)) ??
    (toolStep?.entry === undefined ? BUILT_IN_TOOL_NAMES : undefined);
  if (known === undefined) return required;
  const [first] = missingTools(
    specs.map((spec) => ({ workflow: spec.name, tools: spec.tools ?? [] })),
    known,
  );
  if (first) {
    throw new UnknownToolError(
      `${describeMissingTools(first, known)} ` +
        (toolStep?.entry === undefined
          ? 'Give your own tool-step (toolStep: { entry, tools }) with toolStepHandler({ tools }), or change the workflow.'
          : 'Add the tool to toolStepHandler({ tools }) in your entry and to toolStep.tools, or change the workflow.'),
    );
  }
  return required;
}

/** The function specs with the user's tool-step and model-step code in place. */
function withStepCode(specs: readonly FunctionSpec[], props: AutosaveWorkflowsProps): FunctionSpec[] {
  const code: Partial<Record<string, StepFunctionCode>> = {
    [FunctionNames.toolStep]: props.toolStep,
    [FunctionNames.modelStep]: props.modelStep,
  };
  return specs.map((spec) => {
    const own = code[spec.name];
    // A spec's own entry (a test replacing every function's code) wins.
    if (own?.entry === undefined || spec.entry !== undefined) return spec;
    return {
      ...spec,
      entry: own.entry,
      ...(own.handler !== undefined ? { handler: own.handler } : {}),
      ...(own.projectRoot !== undefined ? { projectRoot: own.projectRoot } : {}),
      ...(own.depsLockFilePath !== undefined ? { depsLockFilePath: own.depsLockFilePath } : {}),
    };
  });
}

/**
 * A dead-letter queue passed in must let the redrive function finish a message before SQS hands it out
 * again: Lambda refuses an SQS event source whose visibility timeout is under the function's timeout, and
 * advises six times it. Checked for a queue defined in this app; an imported one is only warned about.
 * @throws DeployOptionsError for a visibility timeout under the redrive function's timeout
 */
function checkDeadLetterQueue(scope: Construct, queue: sqs.IQueue, redriveTimeout: Duration): void {
  const advised = redriveTimeout.toSeconds() * SQS_VISIBILITY_PER_FUNCTION_TIMEOUT;
  const cfn = queue.node.defaultChild;
  if (!(cfn instanceof sqs.CfnQueue)) {
    Annotations.of(scope).addWarningV2(
      '@autosave/cdk:deadLetterQueueVisibility',
      `The dead-letter queue ${queue.node.path} is imported: make sure its visibility timeout is at least ${advised} seconds (${SQS_VISIBILITY_PER_FUNCTION_TIMEOUT} x the redrive function's ${redriveTimeout.toSeconds()} s timeout)`,
    );
    return;
  }
  const declared = cfn.visibilityTimeout;
  if (declared !== undefined && Token.isUnresolved(declared)) return;
  // SQS's default visibility timeout is 30 seconds.
  const seconds = declared ?? 30;
  if (seconds < redriveTimeout.toSeconds()) {
    throw new DeployOptionsError(
      `deadLetterQueue ${queue.node.path}: its visibility timeout (${seconds} seconds) is less than the redrive function's timeout (${redriveTimeout.toSeconds()} seconds), ` +
        `which Lambda refuses for an SQS event source ("Queue visibility timeout: ${seconds} seconds is less than Function timeout: ${redriveTimeout.toSeconds()} seconds"). ` +
        `Set visibilityTimeout: Duration.seconds(${advised}) on the queue (${SQS_VISIBILITY_PER_FUNCTION_TIMEOUT} x, Lambda's advice).`,
    );
  }
  if (seconds < advised) {
    Annotations.of(scope).addWarningV2(
      '@autosave/cdk:deadLetterQueueVisibility',
      `deadLetterQueue ${queue.node.path}: visibility timeout ${seconds} s is under ${advised} s (${SQS_VISIBILITY_PER_FUNCTION_TIMEOUT} x the redrive function's timeout, Lambda's advice): a slow redrive may see its message again`,
    );
  }
}
