/**
 * TestState with values instead of wire text: what a test environment offers as
 * `testState(definition, options)`. The request's JSON fields (definition, input, variables, context, the
 * mocked result, mapItemReaderData) are written as text, and the answer's (output, the inspection steps)
 * read back as values.
 */
import type { FieldValidationMode, InspectionLevel } from './request';

/** A mocked result, or a mocked error (`cause` defaults to ""). */
export type TestStateMockOption = { readonly result: unknown } | { readonly error: string; readonly cause?: string };

/** Options of {@link callTestState}: TestState's request fields, as values. */
export interface TestStateOptions {
  /** The state input. @default {} */
  readonly input?: unknown;
  /** The state to run when `definition` is a whole machine. @default the definition is one state */
  readonly stateName?: string;
  /** @default 'DEBUG' (the data flow step by step; the API's own default is INFO) */
  readonly inspectionLevel?: InspectionLevel;
  /** Required by the API for an un-mocked Task. @default none */
  readonly roleArn?: string;
  /** Show the secrets an EventBridge connection adds to an HTTP Task's request (refused with a mock). @default false */
  readonly revealSecrets?: boolean;
  /** Variables in scope of the state. @default none */
  readonly variables?: Readonly<Record<string, unknown>>;
  /** The context object (`$$`) to use instead of the synthesised one; only with a mock. @default synthesised */
  readonly context?: Readonly<Record<string, unknown>>;
  /** A mocked result or error of a Task, Map or Parallel. @default none: an un-mocked Task makes the real call */
  readonly mock?: TestStateMockOption;
  /** How a mocked Task result is checked against the API's output shape. @default 'STRICT' */
  readonly fieldValidationMode?: FieldValidationMode;
  /** Retries the matching retrier has already made. @default 0 */
  readonly retrierRetryCount?: number;
  /** The state inside a Map or Parallel a mocked error comes from. @default none */
  readonly errorCausedByState?: string;
  /** Failed iterations of a mocked Map. @default 0 */
  readonly mapIterationFailureCount?: number;
  /** The items a Distributed Map's ItemReader would have read. @default none */
  readonly mapItemReaderData?: readonly unknown[];
}

/** A TestState answer with its JSON fields as values. */
export interface TestStateResult {
  readonly status: 'SUCCEEDED' | 'FAILED' | 'RETRIABLE' | 'CAUGHT_ERROR';
  readonly output?: unknown;
  readonly error?: string;
  readonly cause?: string;
  readonly nextState?: string;
  /** The data-flow steps (values), plus `errorDetails` and a Map's limits as numbers. */
  readonly inspectionData?: Readonly<Record<string, unknown>>;
}

/** What serves TestState: the engine (`Engine.handle`) or anything speaking its wire shapes. */
export interface TestStateHandler {
  handle(operation: string, input: object): Promise<object>;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** The wire request of a call. */
export function testStateRequest(definition: object | string, options: TestStateOptions = {}): Record<string, unknown> {
  const {
    mock,
    fieldValidationMode,
    retrierRetryCount,
    errorCausedByState,
    mapIterationFailureCount,
    mapItemReaderData,
  } = options;
  const configuration = {
    ...(retrierRetryCount !== undefined ? { retrierRetryCount } : {}),
    ...(errorCausedByState !== undefined ? { errorCausedByState } : {}),
    ...(mapIterationFailureCount !== undefined ? { mapIterationFailureCount } : {}),
    ...(mapItemReaderData !== undefined ? { mapItemReaderData: JSON.stringify(mapItemReaderData) } : {}),
  };
  return {
    definition: text(definition),
    inspectionLevel: options.inspectionLevel ?? 'DEBUG',
    ...(options.input !== undefined ? { input: JSON.stringify(options.input) } : {}),
    ...(options.stateName !== undefined ? { stateName: options.stateName } : {}),
    ...(options.roleArn !== undefined ? { roleArn: options.roleArn } : {}),
    ...(options.revealSecrets !== undefined ? { revealSecrets: options.revealSecrets } : {}),
    ...(options.variables !== undefined ? { variables: JSON.stringify(options.variables) } : {}),
    ...(options.context !== undefined ? { context: JSON.stringify(options.context) } : {}),
    ...(mock !== undefined
      ? {
          mock: {
            ...('result' in mock
              ? { result: JSON.stringify(mock.result) }
              : { errorOutput: { error: mock.error, cause: mock.cause ?? '' } }),
            ...(fieldValidationMode !== undefined ? { fieldValidationMode } : {}),
          },
        }
      : {}),
    ...(Object.keys(configuration).length > 0 ? { stateConfiguration: configuration } : {}),
  };
}

/** An answer's JSON text fields read as values. */
export function testStateResult(answer: Readonly<Record<string, unknown>>): TestStateResult {
  const parse = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);
  const { output, inspectionData, ...rest } = answer;
  return {
    ...(rest as Omit<TestStateResult, 'output' | 'inspectionData'>),
    ...(output !== undefined ? { output: parse(output) } : {}),
    ...(inspectionData !== undefined
      ? { inspectionData: Object.fromEntries(Object.entries(inspectionData as object).map(([k, v]) => [k, parse(v)])) }
      : {}),
  };
}

/** Runs TestState on `handler` with values: `callTestState(engine, {Type: 'Pass', ...}, { input: {...} })`. */
export async function callTestState(
  handler: TestStateHandler,
  definition: object | string,
  options: TestStateOptions = {},
): Promise<TestStateResult> {
  return testStateResult(
    (await handler.handle('TestState', testStateRequest(definition, options))) as Record<string, unknown>,
  );
}
