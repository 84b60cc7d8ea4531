/**
 * The one source of time for the runtime and the local engine. Tests inject a virtual clock instead of
 * sleeping (the engine's `VirtualClock` implements this interface).
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** Wall-clock time. */
export const systemClock: Clock = { now: () => Date.now() };
