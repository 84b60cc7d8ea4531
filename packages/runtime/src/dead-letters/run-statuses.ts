/**
 * The run statuses run-monitor acts on (docs/architecture.md §4), named once: the EventBridge rule in
 * infra/ matches {@link CLOSED_RUN_STATUSES}. Kept free of SDK imports so the CDK app can read it cheaply.
 */

/** Statuses that close a run: run-monitor reports each closed run's history size. */
export const CLOSED_RUN_STATUSES = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'] as const;
/** Closed statuses that dead-letter a run. */
export const DEAD_LETTER_STATUSES = ['FAILED', 'TIMED_OUT', 'ABORTED'] as const;
