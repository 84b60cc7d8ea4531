export * from './dead-letter';
export * from './redrive';
export * from './run-statuses';
