export * from './dead-letter';
export * from './redrive';
