import { StatesError } from '@autosave/workflow/errors';

/** An ASL Retrier. */
export interface Retrier {
  readonly ErrorEquals: readonly string[];
  readonly IntervalSeconds?: number;
  readonly MaxAttempts?: number;
  readonly BackoffRate?: number;
  readonly MaxDelaySeconds?: number;
  readonly JitterStrategy?: 'FULL' | 'NONE';
}

/** An ASL Catcher. */
export type Catcher = Readonly<Record<string, unknown>> & {
  readonly ErrorEquals: readonly string[];
  readonly Next: string;
};

/** ASL defaults of a Retrier. */
export const DEFAULT_RETRY_INTERVAL_SECONDS = 1;
export const DEFAULT_RETRY_MAX_ATTEMPTS = 3;
export const DEFAULT_RETRY_BACKOFF_RATE = 2;

/** Errors `States.ALL` does not match (AWS: "terminal"); a Retrier or Catcher must name them. */
const TERMINAL_ERRORS: ReadonlySet<string> = new Set([StatesError.Runtime, StatesError.DataLimitExceeded]);
/**
 * Errors nothing retries or catches, even a Retrier or Catcher naming them: AWS documents States.Runtime
 * as "not retriable, will always cause the execution to fail", and records a Catch on `States.Runtime`
 * passed by (test_catch_states_runtime).
 */
const UNCATCHABLE_ERRORS: ReadonlySet<string> = new Set([StatesError.Runtime]);
const TIMEOUT_ERRORS: ReadonlySet<string> = new Set([StatesError.Timeout, StatesError.HeartbeatTimeout]);

/**
 * Whether an `ErrorEquals` list matches `error`: by name; `States.Timeout` also matches heartbeat
 * timeouts (a kind of timeout); `States.TaskFailed` matches every error but timeouts; `States.ALL`
 * matches everything except the terminal `States.Runtime` / `States.DataLimitExceeded`; nothing matches
 * `States.Runtime`.
 */
export function errorMatches(errorEquals: readonly string[], error: string, options: MatchOptions = {}): boolean {
  if (UNCATCHABLE_ERRORS.has(error)) return false;
  if (errorEquals.includes(error)) return true;
  if (TERMINAL_ERRORS.has(error) && !options.catchableByAll) return false;
  if (errorEquals.includes(StatesError.ALL)) return true;
  if (errorEquals.includes(StatesError.Timeout) && error === StatesError.HeartbeatTimeout) return true;
  return errorEquals.includes(StatesError.TaskFailed) && !TIMEOUT_ERRORS.has(error);
}

/** How an error is matched beside its name. */
export interface MatchOptions {
  /**
   * `States.ALL` takes it although its name is a terminal one: a Task's own oversized result is a
   * States.DataLimitExceeded that AWS lets States.ALL catch (test_*_catch_state_all_data_limit_exceeded_*).
   * @default false
   */
  readonly catchableByAll?: boolean;
}

/** The index of the first retrier matching `error`, or -1. */
export const findRetrier = (retry: readonly Retrier[] | undefined, error: string, options: MatchOptions = {}): number =>
  (retry ?? []).findIndex((r) => errorMatches(r.ErrorEquals, error, options));

/** The first catcher matching `error`. */
export const findCatcher = (
  catchers: readonly Catcher[] | undefined,
  error: string,
  options: MatchOptions = {},
): Catcher | undefined => (catchers ?? []).find((c) => errorMatches(c.ErrorEquals, error, options));

/**
 * The delay before retry number `attempt + 1` (attempt counts from 0): `IntervalSeconds × BackoffRate^attempt`,
 * capped by `MaxDelaySeconds`, then with FULL jitter a uniform pick in [0, delay) from `random`.
 */
export function retryDelayMillis(retrier: Retrier, attempt: number, random: () => number): number {
  const interval = retrier.IntervalSeconds ?? DEFAULT_RETRY_INTERVAL_SECONDS;
  const rate = retrier.BackoffRate ?? DEFAULT_RETRY_BACKOFF_RATE;
  let seconds = interval * rate ** attempt;
  if (retrier.MaxDelaySeconds !== undefined) seconds = Math.min(seconds, retrier.MaxDelaySeconds);
  if (retrier.JitterStrategy === 'FULL') seconds *= random();
  return Math.round(seconds * 1000);
}

/** Whether the retrier allows another attempt after `used` retries. */
export const retrierAllows = (retrier: Retrier, used: number): boolean =>
  used < (retrier.MaxAttempts ?? DEFAULT_RETRY_MAX_ATTEMPTS);
