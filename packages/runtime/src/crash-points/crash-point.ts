import { runtimeEnvironment } from '../endpoints';

/**
 * TEST SEAM. Environment variable naming a crash point; when a process reaches the point of that name
 * it kills itself with SIGKILL (no cleanup, no flush: exactly what a Lambda timeout or an engine crash
 * looks like to the rest of the system). Never set in production; unset, a crash point is a string compare.
 */
export const CRASH_POINT_ENV = 'AUTOSAVE_CRASH_POINT';

/** The crash points the runtime has. */
export const CrashPoint = {
  /** The tool's provider has acted, its result is not yet recorded as COMPLETED. */
  AfterActBeforeComplete: 'after-act-before-complete',
  /** The model has answered, its output is not yet recorded. */
  AfterModelBeforeRecord: 'after-model-before-record',
} as const;

/**
 * Kills the current process if {@link CRASH_POINT_ENV} names this point: either the point alone, or
 * `<point>@<key>` to crash only for one idempotency key (the demo kills the engine at the welcome email,
 * `after-act-before-complete@site-4412:welcome`, not at the first tool step).
 */
export function crashPoint(name: (typeof CrashPoint)[keyof typeof CrashPoint], key?: string): void {
  const wanted = runtimeEnvironment()[CRASH_POINT_ENV];
  if (wanted === name || (key !== undefined && wanted === `${name}@${key}`)) process.kill(process.pid, 'SIGKILL');
}
