import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { Duration } from 'aws-cdk-lib';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { acknowledgeNag } from './nag';
import { DLQ_RETENTION } from './shared-resources';
import { Construct } from 'constructs';
import { CLOSED_RUN_STATUSES } from '../lib/dead-letters';
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
   * the delivery): the event of a closed run that never reached the DLQ, kept for an operator.
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
      acknowledgeNag(
        this.runMonitorFailures,
        'AwsSolutions-SQS3',
        "This queue IS a dead-letter destination (run-monitor's on-failure destination); its messages wait for an operator.",
      );
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
          // No target DLQ: raw events would mix with run-monitor's messages in the one queue. EventBridge
          // retries for 24 h, and the failed-runs and run-monitor-errors alarms fire regardless.
          new targets.LambdaFunction(functions.get(FunctionNames.runMonitor)),
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
    }
  }
}
