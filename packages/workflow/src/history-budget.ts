import type { AslState } from './asl-types';

/**
 * History events a state writes when it runs once and succeeds first time (Step Functions developer
 * guide, "Execution history"): a Lambda Task writes TaskStateEntered, TaskScheduled, TaskStarted,
 * TaskSucceeded, TaskStateExited; a callback Task also writes TaskSubmitted; Choice, Pass, Wait and
 * Succeed write their Entered and Exited events. Retries add more, which is why workflows plan against
 * HISTORY_EVENT_BUDGET (a fraction of the hard limit) rather than the limit itself.
 */
export const HISTORY_EVENTS_PER_STATE = {
  Task: 5,
  CallbackTask: 6,
  Choice: 2,
  Pass: 2,
  Wait: 2,
  Succeed: 2,
} as const;

/** ExecutionStarted and ExecutionSucceeded. */
export const EXECUTION_LIFECYCLE_EVENTS = 2;

/** History events one state writes in one successful pass. */
export function historyEventsOf(state: AslState): number {
  if (state.Type === 'Task' && state.Resource.endsWith('.waitForTaskToken'))
    return HISTORY_EVENTS_PER_STATE.CallbackTask;
  return HISTORY_EVENTS_PER_STATE[state.Type];
}

/** History events of a sequence of states, each run once. */
export function historyEventsOfAll(states: readonly AslState[]): number {
  return states.reduce((sum, s) => sum + historyEventsOf(s), 0);
}
