export { importRun, type RunImportAnswer, type RunImportHeader, type RunImportOptions } from './run-import';
export { ImportRefusedError } from './import-errors';
export type { WireHistoryEvent } from './wire-events';
