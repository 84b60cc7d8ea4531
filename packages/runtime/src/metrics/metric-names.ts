/** The CloudWatch namespace of every Autosave metric. */
export const METRICS_NAMESPACE = 'Autosave';
/** The `service` dimension every runtime function reports under (alarms and the dashboard match on it). */
export const METRICS_SERVICE = 'autosave';

/** The metrics the runtime emits, named once (alarms and the dashboard in infra/ read these names). */
export const MetricName = {
  /** A step found its key COMPLETED and returned the stored result without acting. */
  DuplicateSuppressed: 'DuplicateSuppressed',
  /** A step found an expired in-progress claim and asked the provider whether the action happened. */
  Reconciled: 'Reconciled',
  /** A model provider was actually called. */
  ModelCallsMade: 'ModelCallsMade',
  /** A model-step returned a recorded output instead of calling the model. */
  ModelCallsReplayed: 'ModelCallsReplayed',
  ModelInputTokens: 'ModelInputTokens',
  ModelOutputTokens: 'ModelOutputTokens',
  /** A value over the inline limit was written to S3 and replaced by a reference. */
  PayloadsOffloaded: 'PayloadsOffloaded',
  /** Seconds between an approval request and its decision. */
  ApprovalWaitSeconds: 'ApprovalWaitSeconds',
  /** RedriveExecution calls made by the redrive handler. */
  Redrives: 'Redrives',
  /** Failed, timed-out or aborted runs sent to the dead-letter queue. */
  DeadLettered: 'DeadLettered',
  /**
   * A key was found COMPLETED by a different execution than the one asking: the business run was started
   * again from scratch instead of being redriven (a retry or a redrive keeps the execution ARN).
   */
  RunRestartedFromScratch: 'RunRestartedFromScratch',
  /** Per closed run (run-monitor): the id of its last history event, i.e. its history size in events. */
  HistoryEvents: 'HistoryEvents',
} as const;

/** One of {@link MetricName}. */
export type MetricNameValue = (typeof MetricName)[keyof typeof MetricName];
