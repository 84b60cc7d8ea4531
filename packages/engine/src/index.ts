/**
 * The embedded Step Functions engine: `new Engine(options)`, `start()`, `handle(operation, input)`.
 */
export { Engine, DEFAULT_CLOSED_STATUSES, STOP_DRAIN_MILLIS } from './engine';
export type { DefinitionWarning, EngineOptions, ExecutionStatusChangeEvent, MockedRunView } from './engine';
export type { StoreLocking } from './store';
export type { ExpressRunSnapshot } from './express-runs';
export { RECORDED_OUTCOME_RETRY_MILLIS } from './executor/step';
export type { RecordedTaskOutcome } from './executor/step';
export type { TaskCall, TaskCallAuthorizer, TaskCallDenial } from './executor/task-integrations';
export type { LambdaInvoker, LambdaInvocation, LambdaInvocationResult } from './lambda-invoker';
export { VirtualClock, DEFAULT_VIRTUAL_EPOCH_MILLIS } from './virtual-clock';
export * from './service-errors';
export {
  MockConfig,
  MockConfigError,
  mockedOutcome,
  mockConfig,
  MockConfigBuilder,
  mockReturn,
  mockThrow,
} from './mocks';
export type { MockedResponse, MockTestCase, MockTestCases, MockConfigJson, MockStep } from './mocks';
export { ServiceFault } from './executor/service-ports';
export { wildcardMatcher, type WildcardMatcher } from './dataflow';
export { isRoutableService } from './executor/integration-catalog';
export type {
  ConnectionAuth,
  HttpConnections,
  ModelInvocation,
  ModelInvoker,
  PassThrough,
  ServiceApi,
  ServicePorts,
  TaskCallContext,
} from './executor/service-ports';
export { EMULATED_API_ACTIONS, type EmulatedService } from './executor/emulated-apis';
export { callTestState, testStateRequest, testStateResult, SYNTHESIZED_STATE_NAME } from './test-state';
export type { TestStateHandler, TestStateMockOption, TestStateOptions, TestStateResult } from './test-state';
export {
  ImportRefusedError,
  type RunImportAnswer,
  type RunImportHeader,
  type RunImportOptions,
  type WireHistoryEvent,
} from './imports';
