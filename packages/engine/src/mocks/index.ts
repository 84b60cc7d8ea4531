/**
 * Mocked service integrations: the MockConfigFile format, the runs started under a test case, and the one
 * place a mocked answer becomes a Task's outcome (shared with TestState's `mock`).
 */
export { answerOf, invocationCount, MockConfig, MockConfigError } from './mock-config';
export type { MockedRange, MockedResponse, MockedStateResponses, MockTestCase, MockTestCases } from './mock-config';
export { mockedInvocationOutcome, mockedOutcome } from './mocked-outcome';
export { MockedRuns } from './mocked-runs';
export { mockConfig, MockConfigBuilder, mockReturn, mockThrow } from './mock-config-builder';
export type { MockConfigJson, MockStep } from './mock-config-builder';
export { splitTestCase, requireTestCase } from './test-case-selection';
export { mockedSubmission } from './mocked-submission';
