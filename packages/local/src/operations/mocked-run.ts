/**
 * Which states of a run were mocked, as the local engine tells it (`GET /_autosave/mocked-run`, a route of
 * the local engine only: AWS and LocalStack have no such thing, and a run there is shown unmarked).
 */

/** A mocked run: its test case and, per mocked state, the response and the invocation numbers taken. */
export interface MockedRunInfo {
  readonly stateMachine: string;
  readonly testCase: string;
  readonly states: Readonly<Record<string, { readonly response: string; readonly invocations: readonly number[] }>>;
}

/** The local engine's mocked-run route (local/api/server.ts `MOCKED_RUN_ROUTE`; operations does not import the server). */
const MOCKED_RUN_PATH = '/_autosave/mocked-run';

/** How long a client waits for the route. */
const MOCKED_RUN_TIMEOUT_MILLIS = 2_000;

/** The run's mock test case at `endpoint`, or undefined: not mocked, not the local engine, or no answer. */
export async function mockedRunOf(
  endpoint: string | undefined,
  executionArn: string,
): Promise<MockedRunInfo | undefined> {
  if (!endpoint) return undefined;
  try {
    const url = new URL(MOCKED_RUN_PATH, endpoint);
    url.searchParams.set('executionArn', executionArn);
    const res = await fetch(url, { signal: AbortSignal.timeout(MOCKED_RUN_TIMEOUT_MILLIS) });
    if (!res.ok) return void (await res.body?.cancel());
    const body = (await res.json()) as Partial<MockedRunInfo>;
    return typeof body.testCase === 'string' && body.states && typeof body.states === 'object'
      ? (body as MockedRunInfo)
      : undefined;
  } catch {
    return undefined;
  }
}
