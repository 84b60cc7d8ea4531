/** Step Functions' predefined error names, defined once. */
export const StatesError = {
  ALL: 'States.ALL',
  Timeout: 'States.Timeout',
  HeartbeatTimeout: 'States.HeartbeatTimeout',
  TaskFailed: 'States.TaskFailed',
  Runtime: 'States.Runtime',
  DataLimitExceeded: 'States.DataLimitExceeded',
  NoChoiceMatched: 'States.NoChoiceMatched',
  BranchFailed: 'States.BranchFailed',
  ResultPathMatchFailure: 'States.ResultPathMatchFailure',
  ParameterPathFailure: 'States.ParameterPathFailure',
  IntrinsicFailure: 'States.IntrinsicFailure',
  QueryEvaluationError: 'States.QueryEvaluationError',
  Permissions: 'States.Permissions',
  ExceedToleratedFailureThreshold: 'States.ExceedToleratedFailureThreshold',
  ItemReaderFailed: 'States.ItemReaderFailed',
  ResultWriterFailed: 'States.ResultWriterFailed',
} as const;

export type StatesErrorName = (typeof StatesError)[keyof typeof StatesError];
