import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { resolveDeployOptions, type DeployOptions } from './deploy-options';
import { verifyLocalstackEmailIdentity } from './localstack';
import { Operations } from './operations';
import { RunRouting } from './run-routing';
import { pascal, RuntimeFunctions } from './runtime-functions';
import { SharedResources, SQS_VISIBILITY_PER_FUNCTION_TIMEOUT } from './shared-resources';
import { FunctionNames, type FunctionSpec, type WorkflowSpec } from './stack-inputs';
import { WorkflowStateMachine, stateMachineNameOf } from './workflow-state-machine';

/** Options of {@link AutosaveStack}. */
export interface AutosaveStackProps extends StackProps {
  /** The workflows to deploy (compiled, placeholders unfilled). */
  readonly workflows: readonly WorkflowSpec[];
  /** The runtime functions (lambdas/index.ts). */
  readonly functions: readonly FunctionSpec[];
  /** Deploy-time choices. @default every DEFAULT_* of deploy-options.ts */
  readonly deploy?: DeployOptions;
}

/**
 * Everything Autosave needs on AWS: shared resources, the six runtime functions, one versioned state
 * machine per workflow, routing of closed runs, alarms and a dashboard.
 */
export class AutosaveStack extends Stack {
  readonly shared: SharedResources;
  readonly functions: RuntimeFunctions;
  readonly workflows: readonly WorkflowStateMachine[];
  readonly operations: Operations;

  constructor(scope: Construct, id: string, props: AutosaveStackProps) {
    super(scope, id, props);
    const options = resolveDeployOptions(props.deploy);

    const redrive = props.functions.find((f) => f.name === FunctionNames.redrive);
    this.shared = new SharedResources(this, 'Shared', {
      deadLetterVisibilityTimeout: redrive ? Duration.seconds(redrive.timeoutSeconds * SQS_VISIBILITY_PER_FUNCTION_TIMEOUT) : undefined,
    });
    this.functions = new RuntimeFunctions(this, 'Functions', {
      specs: props.functions,
      shared: this.shared,
      options,
      stateMachineNames: props.workflows.map((w) => stateMachineNameOf(w.name, this.stackName, options)),
    });
    // LocalStack's SES refuses unverified senders: verify the configured one there.
    if (options.localstack && options.emailFrom) verifyLocalstackEmailIdentity(this, options.emailFrom);
    this.workflows = props.workflows.map(
      (workflow) => new WorkflowStateMachine(this, pascal(workflow.name), { workflow, functions: this.functions, options }),
    );
    const routing = new RunRouting(this, 'RunRouting', { workflows: this.workflows, functions: this.functions, shared: this.shared });
    this.operations = new Operations(this, 'Operations', {
      shared: this.shared,
      functions: this.functions,
      workflows: this.workflows,
      alarmEmail: options.alarmEmail,
      runMonitorFailures: routing.runMonitorFailures,
    });

    for (const workflow of this.workflows) {
      new CfnOutput(this, `${workflow.node.id}LiveAlias`, {
        description: `Start ${workflow.stateMachine.node.path} runs here`,
        value: workflow.aliasArn,
      });
    }
    if (this.functions.approvalUrl) new CfnOutput(this, 'ApprovalEndpointUrl', { value: this.functions.approvalUrl.url });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.shared.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'RecordsTable', { value: this.shared.table.tableName });
    new CfnOutput(this, 'PayloadBucket', { value: this.shared.bucket.bucketName });
    new CfnOutput(this, 'AlarmTopic', { value: this.shared.alarmTopic.topicArn });
  }
}
