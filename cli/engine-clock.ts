import type { AwsTarget } from './aws-clients';

/**
 * "Now" on the engine the CLI talks to, in epoch milliseconds, or undefined when it cannot be known.
 * Run and step timestamps come from the engine; with `--virtual-clock` its time is not the wall clock,
 * so a running duration must be measured against the engine's now, never the CLI's `Date.now()`.
 */
export type EngineNow = () => Promise<number | undefined>;

/** How long the CLI waits for the engine's clock route. @default 2000 ms */
export const DEFAULT_ENGINE_CLOCK_TIMEOUT_MILLIS = 2_000;

/** The local engine's clock route (local/api/server.ts `CLOCK_ROUTE`; the CLI does not import local/). */
const CLOCK_PATH = '/_autosave/clock';

/**
 * The engine's now for a target:
 * - AWS itself (no endpoint): its timestamps are wall-clock time, so the CLI's clock is the engine's;
 * - an endpoint: `GET /_autosave/clock` — its `epochMillis` when the virtual clock answers; a 404 means
 *   the engine runs no virtual clock (the local engine without `--virtual-clock`, LocalStack), so its
 *   time is the system clock; anything else (unreachable, an error) leaves now unknown and callers omit
 *   the running duration.
 */
export function engineClock(target: Pick<AwsTarget, 'endpoint'>, timeoutMillis = DEFAULT_ENGINE_CLOCK_TIMEOUT_MILLIS): EngineNow {
  const endpoint = target.endpoint;
  if (!endpoint) return async () => Date.now();
  const url = new URL(CLOCK_PATH, endpoint).toString();
  let systemClock = false;
  return async () => {
    if (systemClock) return Date.now();
    try {
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
