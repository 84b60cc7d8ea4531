/**
 * "Now" on the engine a client (the CLI, the console) talks to, in epoch milliseconds, or undefined when it cannot be known.
 * Run and step timestamps come from the engine; with `--virtual-clock` its time is not the wall clock,
 * so a running duration must be measured against the engine's now, never the client's `Date.now()`.
 */
export type EngineNow = () => Promise<number | undefined>;

/** How long a client waits for the engine's clock route. @default 2000 ms */
export const DEFAULT_ENGINE_CLOCK_TIMEOUT_MILLIS = 2_000;

/** The local engine's clock route (local/api/server.ts `CLOCK_ROUTE`; lib/ does not import local/). */
const CLOCK_PATH = '/_autosave/clock';

/**
 * The engine's now at an endpoint (a function when the port is known only later):
 * - AWS itself (no endpoint): its timestamps are wall-clock time, so the client's clock is the engine's;
 * - an endpoint: `GET /_autosave/clock` — its `epochMillis` when the virtual clock answers; a 404 means
 *   the engine runs no virtual clock (the local engine without `--virtual-clock`, LocalStack), so its
 *   time is the system clock; anything else (unreachable, an error) leaves now unknown and callers omit
 *   the running duration.
 */
export function engineClock(
  endpoint: string | (() => string) | undefined,
  timeoutMillis = DEFAULT_ENGINE_CLOCK_TIMEOUT_MILLIS,
): EngineNow {
  if (!endpoint) return async () => Date.now();
  let systemClock = false;
  return async () => {
    if (systemClock) return Date.now();
    try {
      const url = new URL(CLOCK_PATH, typeof endpoint === 'function' ? endpoint() : endpoint);
      const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMillis) });
      if (res.status === 404) {
        await res.body?.cancel();
        systemClock = true;
        return Date.now();
      }
      if (!res.ok) return void (await res.body?.cancel());
      const body = (await res.json()) as { epochMillis?: unknown };
      return typeof body.epochMillis === 'number' ? body.epochMillis : undefined;
    } catch {
      return undefined;
    }
  };
}
