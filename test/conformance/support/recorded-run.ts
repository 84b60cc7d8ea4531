/**
 * The conformance tier's one helper: runs a definition on the engine and reduces the run to what an
 * execution recorded on AWS shows — its outcome and its history without what differs per run
 * (timestamps; the ARNs' ids are compared only where a case says so).
 */
import type { EngineOptions } from '../../../packages/engine/src';
import { engineForTestFile, type TestFunction } from '../../../packages/engine/test/support/engine-harness';

/** How a run ended, as DescribeExecution and the last history event say it. */
export type Outcome =
  | { readonly status: 'SUCCEEDED'; readonly output: unknown }
  | { readonly status: 'FAILED'; readonly error?: string; readonly cause?: string };

/** One history event as AWS records it, less its timestamp; `*Details.input/output` parsed from JSON. */
export type RecordedEvent = { readonly type: string; readonly id: number; readonly previousEventId: number } & Record<
  string,
  unknown
>;

/** A run reduced to the facts the recorded histories carry. */
export interface RecordedRun {
  readonly outcome: Outcome;
  readonly types: readonly string[];
  readonly events: readonly RecordedEvent[];
}

const JSON_TEXT_FIELDS = new Set(['input', 'output', 'parameters', 'result']);

function parseTexts(value: unknown, key?: string): unknown {
  if (typeof value === 'string' && key !== undefined && JSON_TEXT_FIELDS.has(key)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  if (Array.isArray(value)) return value.map((v) => parseTexts(v));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, parseTexts(v, k)]));
  }
  return value;
}

/**
 * A started engine for one test file (virtual clock; `functions` are the Lambdas by name) and
 * `run(definition, input)` that drives an execution to its end, skipping virtual time through waits.
 * `options.engine` is read when the engine starts (in a `beforeAll`), so a `beforeAll` registered before
 * this call may still fill it in (an S3 client for a local S3 it started, say).
 */
export function recordedEngine(
  functions: Record<string, TestFunction> = {},
  options: { express?: boolean; engine?: Partial<EngineOptions> } = {},
) {
  const h = engineForTestFile(functions, options.engine ?? {});
  return {
    harness: h,
    /**
     * Creates the machine (throws the service error when the definition is refused) and runs it to its end;
     * `start.testCase` starts it on `<arn>#<testCase>` (a mock config's test case of the machine `start.machineName`).
     */
    async run(
      definition: object,
      input: unknown = {},
      start: { machineName?: string; testCase?: string } = {},
    ): Promise<RecordedRun> {
      const arn = await h.machine(definition, start.machineName, options.express ? { type: 'EXPRESS' } : {});
      const exec = await h.run(start.testCase === undefined ? arn : `${arn}#${start.testCase}`, input);
      for (let i = 0; i < 20 && (await h.describe(exec)).status === 'RUNNING'; i++) await h.clock.advance(3_600_000);
      const described = await h.describe(exec);
      const events = (await h.history(exec)).map(({ timestamp: _ts, ...rest }) => parseTexts(rest) as RecordedEvent);
      const outcome: Outcome =
        described.status === 'SUCCEEDED'
          ? { status: 'SUCCEEDED', output: JSON.parse(described.output) }
          : {
              status: described.status,
              ...('error' in described ? { error: described.error } : {}),
              ...('cause' in described ? { cause: described.cause } : {}),
            };
      return { outcome, types: events.map((e) => e.type), events };
    },
    /** CreateStateMachine's answer: `'created'`, or the service error's name and message. */
    async create(definition: object, extra: object = {}): Promise<'created' | { name: string; message: string }> {
      try {
        await h.machine(definition, undefined, { ...(options.express ? { type: 'EXPRESS' } : {}), ...extra });
        return 'created';
      } catch (err) {
        const e = err as Error;
        return { name: e.name, message: e.message };
      }
    },
  };
}

/** AWS's prefix of a runtime error's cause. */
export function runtimeCause(state: string, enteredEventId: number, message: string): string {
  return `An error occurred while executing the state '${state}' (entered at the event id #${enteredEventId}). ${message}`;
}
