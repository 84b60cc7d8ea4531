import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { AutosaveWorkflows, type AutosaveWorkflowsProps } from './autosave-workflows';
import type { DeployOptions } from './deploy-options';

/** Options of {@link AutosaveStack}. */
export interface AutosaveStackProps extends StackProps {
  /** The workflows to deploy. */
  readonly workflows: AutosaveWorkflowsProps['workflows'];
  /** The runtime functions and their code. @default every built-in function */
  readonly functions?: AutosaveWorkflowsProps['functions'];
  /** The tool-step function. @default the built-in tool-step */
  readonly toolStep?: AutosaveWorkflowsProps['toolStep'];
  /** The model-step function. @default the built-in model-step */
  readonly modelStep?: AutosaveWorkflowsProps['modelStep'];
  /** Deploy-time choices (the example app reads them from `autosave:*` context). @default every DEFAULT_* of deploy-options.ts */
  readonly deploy?: DeployOptions;
}

/**
 * The example app's stack: one {@link AutosaveWorkflows} and the outputs the CLI and the local stack mode
 * read (each workflow's live alias, the approval endpoint, the dead-letter queue, table, bucket, topic).
 * The construct's id is `Default`, which CDK leaves out of logical ids: they stay what they were when
 * this stack held the resources itself, so an existing deployment updates in place.
 */
export class AutosaveStack extends Stack {
  readonly autosave: AutosaveWorkflows;

  constructor(scope: Construct, id: string, props: AutosaveStackProps) {
    super(scope, id, props);
    this.autosave = new AutosaveWorkflows(this, 'Default', {
      ...props.deploy,
      workflows: props.workflows,
      functions: props.functions,
      toolStep: props.toolStep,
      modelStep: props.modelStep,
    });
    const { shared, functions } = this.autosave;

    for (const workflow of this.autosave.workflows) {
      new CfnOutput(this, `${workflow.construct.node.id}LiveAlias`, {
        description: `Start ${workflow.stateMachine.node.path} runs here`,
        value: workflow.aliasArn,
      });
    }
    if (functions.approvalUrl) new CfnOutput(this, 'ApprovalEndpointUrl', { value: functions.approvalUrl.url });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: shared.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'RecordsTable', { value: shared.table.tableName });
    new CfnOutput(this, 'PayloadBucket', { value: shared.bucket.bucketName });
    new CfnOutput(this, 'AlarmTopic', { value: shared.alarmTopic.topicArn });
  }
}
