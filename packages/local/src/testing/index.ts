/**
 * `@autosave/local/testing`: the local engine in your test process (vitest, jest), with your workflows and
 * handlers, a virtual clock, approvals, restarts and what a run did.
 */
export * from './test-environment';
export { MockConfig, mockConfig, MockConfigBuilder, mockReturn, mockThrow } from '@autosave/engine';
export type { MockConfigJson, MockStep, MockTestCases, TestStateMockOption, TestStateResult } from '@autosave/engine';
export { days, hours, minutes, seconds, type Duration } from '@autosave/workflow/config';
