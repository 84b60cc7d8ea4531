/**
 * The client side of the engine's wait for a run ({@link WAIT_ROUTE}): what the CLI and the test
 * environment use instead of polling DescribeExecution. One request per {@link DEFAULT_WAIT_SECONDS} held
 * on the engine, answered the moment the run's close is committed.
 */
import { DEFAULT_WAIT_SECONDS, WAIT_ROUTE } from './server';

/** A refusal of the wait, carrying the service's error type as its `name` (ExecutionDoesNotExist, InvalidArn). */
export class RunWaitError extends Error {
  constructor(
    override readonly name: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Waits until the run is no longer RUNNING, or `timeoutMillis` passed, and resolves with its status then
 * (RUNNING on a timeout); undefined when the endpoint has no wait route (AWS, another service), for the
 * caller to poll DescribeExecution instead.
 * @param timeoutMillis @default no limit
 */
export async function waitForRunToClose(
  endpoint: string,
  executionArn: string,
  timeoutMillis = Number.POSITIVE_INFINITY,
): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMillis;
  for (;;) {
    const waitSeconds = Math.max(0, Math.min(DEFAULT_WAIT_SECONDS, (deadline - Date.now()) / 1000));
    const url = `${endpoint.replace(/\/$/, '')}${WAIT_ROUTE}?executionArn=${encodeURIComponent(executionArn)}&waitSeconds=${waitSeconds.toFixed(3)}`;
    const res = await fetch(url);
    if (res.status === 404 || res.status === 405) return undefined;
    const body = (await res.json().catch(() => ({}))) as { status?: string; __type?: string; message?: string };
    if (res.status === 503) {
      // Starting or stopping: asked again once it says.
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    if (!res.ok)
      throw new RunWaitError(body.__type ?? 'InternalFailure', body.message ?? `the wait answered ${res.status}`);
    if (body.status !== 'RUNNING' || Date.now() >= deadline) return body.status;
  }
}
