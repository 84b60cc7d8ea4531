/**
 * @autosave/engine/testing: the engine alone in a test's process, with functions by value, mocked integrations
 * and a virtual clock (no server, no emulated services).
 */
export { TestEngine } from './test-engine';
export type {
  TestEngineOptions,
  TestExecution,
  TestExecutionOptions,
  TestFunction,
  TestHistoryEvent,
} from './test-engine';
export { mockConfig, mockReturn, mockThrow, MockConfigBuilder } from '../mocks';
