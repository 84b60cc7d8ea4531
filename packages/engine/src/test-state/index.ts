/** TestState: one state in isolation, as `AWSStepFunctions.TestState` answers (see ./test-state.ts). */
export { testState, type TestStateServices, type TestStateStatus } from './test-state';
export { SYNTHESIZED_STATE_NAME } from './context';
export type { InspectionLevel, FieldValidationMode } from './request';
export { callTestState, testStateRequest, testStateResult } from './typed-call';
export type { TestStateHandler, TestStateMockOption, TestStateOptions, TestStateResult } from './typed-call';
