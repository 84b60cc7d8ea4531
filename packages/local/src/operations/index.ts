/**
 * The operator's read model: queries and analysis over the Step Functions and SQS APIs — runs and their
 * analysis, pending approvals, dead letters, deployed workflows and their definitions — shared by the
 * `autosave` CLI and the local console. No terminal I/O and no HTML here: callers render the results.
 */
export * from './errors';
export * from './format';
export * from './engine-clock';
export * from './describe-error';
export * from './workflows';
export * from './runs';
export * from './run-analysis';
export * from './run-details';
export * from './definitions';
export * from './definition-diff';
export * from './approvals';
export * from './dead-letter-queue';
export * from './mocked-run';
export * from './pull';
export * from './state-machine-detail';
export * from './start-run';
export * from './run-search';
export * from './express-runs';
export * from './runs-of-keys';
export * from './describe-failure';
