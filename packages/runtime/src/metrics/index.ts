export * from './metric-names';
export * from './runtime-metrics';
