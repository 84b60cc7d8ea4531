import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { Duration } from 'aws-cdk-lib';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { acknowledgeNag } from './nag';
import { DLQ_RETENTION } from './shared-resources';
import { Construct } from 'constructs';
import { CLOSED_RUN_STATUSES } from '@autosave/runtime/dead-letters';
import type { RuntimeFunctions } from './runtime-functions';
import type { SharedResources } from './shared-resources';
import { FunctionNames } from './stack-inputs';
import type { WorkflowStateMachine } from './workflow-state-machine';

/** Options of {@link RunRouting}. */
export interface RunRoutingProps {
  readonly workflows: readonly WorkflowStateMachine[];
  readonly functions: RuntimeFunctions;
  readonly shared: SharedResources;
}

/**
 * Where closed runs go: an EventBridge rule sends every closed run of our STANDARD machines to run-monitor
 * (which records its history size and dead-letters the failures), and the dead-letter queue feeds the
 * redrive function through an event source mapping that is created **disabled**: an operator enables it
 * to drain the queue once the cause is fixed. Always on, it would redrive a permanently failing run
 * forever, each time paying for the retries again.
 */
export class RunRouting extends Construct {
  readonly closedRunsRule?: events.Rule;
  readonly redriveSource?: SqsEventSource;
  /**
   * Where run-monitor invocations go that failed after Lambda's async retries (EventBridge retries only
   * the delivery), and the events EventBridge could not deliver: a closed run that never reached the DLQ,
   * kept for an operator (a Lambda invocation record, or the raw event).
   */
  readonly runMonitorFailures?: sqs.Queue;

  constructor(scope: Construct, id: string, props: RunRoutingProps) {
    super(scope, id);
    const { functions, shared } = props;
    // EXPRESS machines emit no execution status-change events.
    const standard = props.workflows.filter((w) => w.stateMachine.stateMachineType === 'STANDARD');
    if (functions.has(FunctionNames.runMonitor)) {
      this.runMonitorFailures = new sqs.Queue(this, 'RunMonitorFailures', {
        retentionPeriod: DLQ_RETENTION,
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      const isDeadLetterDestination =
        "This queue IS a dead-letter destination (run-monitor's on-failure destination and the rule target's DLQ); its messages wait for an operator.";
      acknowledgeNag(this.runMonitorFailures, 'AwsSolutions-SQS3', isDeadLetterDestination);
      acknowledgeNag(this.runMonitorFailures, 'Serverless-SQSRedrivePolicy', isDeadLetterDestination);
      functions.get(FunctionNames.runMonitor).configureAsyncInvoke({
        onFailure: new SqsDestination(this.runMonitorFailures),
        retryAttempts: 2,
        maxEventAge: Duration.hours(6),
      });
    }
    if (functions.has(FunctionNames.runMonitor) && standard.length > 0) {
      this.closedRunsRule = new events.Rule(this, 'ClosedRuns', {
        description: 'Every closed run of an Autosave workflow -> run-monitor (history size; failures to the DLQ)',
        eventPattern: {
          source: ['aws.states'],
          detailType: ['Step Functions Execution Status Change'],
          detail: {
            status: [...CLOSED_RUN_STATUSES],
            stateMachineArn: standard.map((w) => w.stateMachine.stateMachineArn),
          },
        },
        targets: [
          // An event EventBridge could not deliver within its retries (24 h) lands in the same alarmed queue
          // as a failed invocation: either way a closed run that never reached run-monitor's DLQ logic.
          new targets.LambdaFunction(functions.get(FunctionNames.runMonitor), {
            deadLetterQueue: this.runMonitorFailures,
          }),
        ],
      });
    }
    if (functions.has(FunctionNames.redrive)) {
      this.redriveSource = new SqsEventSource(shared.deadLetterQueue, {
        enabled: false,
        batchSize: 10,
        reportBatchItemFailures: true,
      });
      functions.get(FunctionNames.redrive).addEventSource(this.redriveSource);
      acknowledgeNag(
        functions.get(FunctionNames.redrive),
        'Serverless-LambdaEventSourceMappingDestination',
        'An SQS source takes no on-failure destination: a message redrive fails on stays in (or returns to) the dead-letter queue it came from, reported per item.',
      );
    }
  }
}
