import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { HISTORY_EVENT_BUDGET } from '@autosave/workflow/config';
import { METRICS_NAMESPACE, METRICS_SERVICE, MetricName, type MetricNameValue } from '@autosave/runtime/metrics';
import type { RuntimeFunctions } from './runtime-functions';
import { acknowledgeNag } from './nag';
import { DLQ_RETENTION, type SharedResources } from './shared-resources';
import { FunctionNames } from './stack-inputs';
import type { WorkflowStateMachine } from './workflow-state-machine';

/** A dead letter older than this pages someone. */
export const DLQ_MAX_AGE = Duration.hours(1);
/** Period of the "any occurrence" alarms. */
export const ALARM_PERIOD = Duration.minutes(5);
/** Period over which the p99 of history sizes is taken. */
export const HISTORY_P99_PERIOD = Duration.hours(1);

/** Options of {@link Operations}. */
export interface OperationsProps {
  readonly shared: SharedResources;
  readonly functions: RuntimeFunctions;
  readonly workflows: readonly WorkflowStateMachine[];
  /** Subscribe this address to the alarm topic. @default no subscription */
  readonly alarmEmail?: string;
  /** run-monitor's on-failure destination, alarmed when it holds a message. @default no alarm */
  readonly runMonitorFailures?: sqs.IQueue;
}

/** An Autosave metric as the runtime emits it: namespace `Autosave`, dimension `service` = {@link METRICS_SERVICE}. */
export function autosaveMetric(metricName: MetricNameValue, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: METRICS_SERVICE },
    statistic: 'Sum',
    ...props,
  });
}

/** The sum of an Autosave metric over every dimension set (Metrics Insights), for "any occurrence" alarms. */
export function autosaveMetricTotal(metricName: MetricNameValue, label: string): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: `SELECT SUM(${metricName}) FROM "${METRICS_NAMESPACE}"`,
    period: ALARM_PERIOD,
    label,
  });
}

/** The alarms (all notify one SNS topic) and the dashboard. */
export class Operations extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const { shared, functions, workflows } = props;
    const topic = shared.alarmTopic;
    if (props.alarmEmail) this.subscribeEmail(topic, props.alarmEmail);
    const notify = (alarm: cloudwatch.Alarm): cloudwatch.Alarm => {
      alarm.addAlarmAction(new actions.SnsAction(topic));
      this.alarms.push(alarm);
      return alarm;
    };
    const anyOccurrence = {
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    };

    notify(
      new cloudwatch.Alarm(this, 'DeadLettersWaiting', {
        alarmDescription:
          'A failed run has waited in the dead-letter queue for over an hour: fix the cause, then redrive it',
        metric: shared.deadLetterQueue.metricApproximateAgeOfOldestMessage({
          period: ALARM_PERIOD,
          statistic: 'Maximum',
        }),
        threshold: DLQ_MAX_AGE.toSeconds(),
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    notify(
      new cloudwatch.Alarm(this, 'DuplicatesSuppressed', {
        alarmDescription:
          'A side effect was asked for twice and suppressed by its idempotency key: something retried or restarted a step',
        metric: autosaveMetricTotal(MetricName.DuplicateSuppressed, 'Duplicates suppressed'),
        ...anyOccurrence,
      }),
    );
    notify(
      new cloudwatch.Alarm(this, 'RunsRestartedFromScratch', {
        alarmDescription:
          'A run was started again from the beginning instead of being redriven (a completed key met a new execution)',
        metric: autosaveMetricTotal(MetricName.RunRestartedFromScratch, 'Runs restarted from scratch'),
        ...anyOccurrence,
      }),
    );
    notify(
      new cloudwatch.Alarm(this, 'HistoryNearLimit', {
        alarmDescription: `p99 of closed runs' history size is over ${HISTORY_EVENT_BUDGET} events (80% of the 25,000 hard limit): continue as new sooner`,
        metric: autosaveMetric(MetricName.HistoryEvents, { statistic: 'p99', period: HISTORY_P99_PERIOD }),
        threshold: HISTORY_EVENT_BUDGET,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    for (const workflow of workflows) notify(workflow.failedRunsAlarm);
    if (functions.has(FunctionNames.runMonitor)) {
      notify(
        new cloudwatch.Alarm(this, 'RunMonitorErrors', {
          alarmDescription: 'run-monitor failed: a closed run may be missing from the dead-letter queue',
          metric: functions.get(FunctionNames.runMonitor).metricErrors({ period: ALARM_PERIOD }),
          ...anyOccurrence,
        }),
      );
    }
    if (props.runMonitorFailures) {
      notify(
        new cloudwatch.Alarm(this, 'RunMonitorFailuresWaiting', {
          alarmDescription:
            "run-monitor gave up on a closed run after Lambda's retries: its event waits in the run-monitor failures queue (redrive the run by hand)",
          metric: props.runMonitorFailures.metricApproximateNumberOfMessagesVisible({
            period: ALARM_PERIOD,
            statistic: 'Maximum',
          }),
          ...anyOccurrence,
        }),
      );
    }

    this.dashboard = this.createDashboard(props);
  }

  /**
   * Subscribes a person to the alarms. SNS keeps a notification it could not deliver (an unconfirmed or
   * bouncing address) in the subscription's dead-letter queue instead of dropping it, so an on-call gap
   * leaves a trace, and the DLQ-age alarm does not cover it: that queue only holds what the email lost.
   */
  private subscribeEmail(topic: ITopic, address: string): void {
    const undelivered = new sqs.Queue(this, 'AlarmEmailUndelivered', {
      retentionPeriod: DLQ_RETENTION,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const isDeadLetterQueue =
      'This queue IS the dead-letter queue of the alarm email subscription; it has nowhere further to send.';
    acknowledgeNag(undelivered, 'AwsSolutions-SQS3', isDeadLetterQueue);
    acknowledgeNag(undelivered, 'Serverless-SQSRedrivePolicy', isDeadLetterQueue);
    topic.addSubscription(new subscriptions.EmailSubscription(address, { deadLetterQueue: undelivered }));
  }

  private createDashboard({ shared, functions, workflows }: OperationsProps): cloudwatch.Dashboard {
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.days(1) });
    const perWorkflow = (metric: (w: WorkflowStateMachine) => cloudwatch.IMetric): cloudwatch.IMetric[] =>
      workflows.map(metric);
    const runs = (title: string, metric: (w: WorkflowStateMachine) => cloudwatch.IMetric): cloudwatch.GraphWidget =>
      new cloudwatch.GraphWidget({ title, left: perWorkflow(metric), width: 8, statistic: 'Sum' });
    dashboard.addWidgets(
      runs('Runs started', (w) => w.stateMachine.metricStarted({ label: w.node.id })),
      runs('Runs succeeded', (w) => w.stateMachine.metricSucceeded({ label: w.node.id })),
      runs('Runs failed / timed out / aborted', (w) => w.failedRunsMetric()),
    );
    const approvalsRequested = functions.has(FunctionNames.approvalRequest)
      ? functions
          .get(FunctionNames.approvalRequest)
          .metricInvocations({ label: 'approval requests sent', period: Duration.days(7) })
      : undefined;
    const decisions = autosaveMetric(MetricName.ApprovalWaitSeconds, {
      statistic: 'SampleCount',
      label: 'decisions made',
      period: Duration.days(7),
    });
    dashboard.addWidgets(
      runs('Runs redriven', (w) => w.stateMachine.metric('ExecutionsRedriven', { label: w.node.id })),
      new cloudwatch.SingleValueWidget({
        title: 'Waiting on humans (approval requests minus decisions, last 7 days)',
        metrics: approvalsRequested
          ? [
              new cloudwatch.MathExpression({
                expression: 'requested - FILL(decided, 0)',
                usingMetrics: { requested: approvalsRequested, decided: decisions },
                label: 'waiting on humans',
                period: Duration.days(7),
              }),
            ]
          : [decisions],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Dead-letter queue',
        left: [shared.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ label: 'dead letters waiting' })],
        right: [shared.deadLetterQueue.metricApproximateAgeOfOldestMessage({ label: 'oldest (s)' })],
        width: 8,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Duplicates suppressed / runs restarted from scratch',
        left: [
          autosaveMetric(MetricName.DuplicateSuppressed, { label: 'duplicates suppressed' }),
          autosaveMetric(MetricName.RunRestartedFromScratch, { label: 'restarted from scratch' }),
        ],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Model tokens',
        left: [
          autosaveMetric(MetricName.ModelInputTokens, { label: 'input tokens' }),
          autosaveMetric(MetricName.ModelOutputTokens, { label: 'output tokens' }),
        ],
        right: [
          autosaveMetric(MetricName.ModelCallsMade, { label: 'calls made' }),
          autosaveMetric(MetricName.ModelCallsReplayed, { label: 'calls replayed' }),
        ],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'History events per closed run',
        left: [
          autosaveMetric(MetricName.HistoryEvents, { statistic: 'p99', label: 'p99' }),
          autosaveMetric(MetricName.HistoryEvents, { statistic: 'Maximum', label: 'max' }),
        ],
        leftAnnotations: [{ value: HISTORY_EVENT_BUDGET, label: 'budget (80% of 25,000)' }],
        width: 8,
      }),
    );
    return dashboard;
  }
}
