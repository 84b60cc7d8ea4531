/**
 * The TestState tier's helper: an engine per test file and `testState(request)`, which sends the request
 * as a client would (definition, input, variables, context and the mock's result as JSON text) and reads
 * the answer as LocalStack's AWS-validated snapshots record it (output and inspection steps parsed).
 */
import { type EngineOptions } from '../../../packages/engine/src';
import { testStateResult } from '../../../packages/engine/src/test-state';
import { engineForTestFile, type TestFunction } from '../../../packages/engine/test/support/engine-harness';

/** A role ARN as the recorded requests give one. */
export const ROLE_ARN = 'arn:aws:iam::111111111111:role/TestStateRole';

/** A TestState request with its JSON fields as values (the helper writes them as text). */
export interface TestStateCall {
  readonly definition: object | string;
  readonly input?: unknown;
  readonly roleArn?: string;
  readonly inspectionLevel?: 'INFO' | 'DEBUG' | 'TRACE';
  readonly stateName?: string;
  readonly variables?: object;
  readonly context?: object | string;
  readonly revealSecrets?: boolean;
  readonly mock?: {
    readonly result?: unknown;
    readonly errorOutput?: { error: string; cause: string };
    readonly fieldValidationMode?: string;
  };
  readonly stateConfiguration?: Record<string, unknown>;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** The wire request of a call. */
export function wireRequest(call: TestStateCall): Record<string, unknown> {
  const { definition, input, variables, context, mock, ...rest } = call;
  return {
    ...rest,
    definition: text(definition),
    ...(input !== undefined ? { input: text(input) } : {}),
    ...(variables !== undefined ? { variables: JSON.stringify(variables) } : {}),
    ...(context !== undefined ? { context: text(context) } : {}),
    ...(mock !== undefined
      ? { mock: { ...mock, ...(mock.result !== undefined ? { result: text(mock.result) } : {}) } }
      : {}),
  };
}

/** An answer with its JSON text fields parsed, as the recorded snapshots show it. */
export const readable = (answer: Record<string, any>): Record<string, any> => testStateResult(answer);

/** An engine for one test file, and TestState calls on it. */
export function testStateEngine(functions: Record<string, TestFunction> = {}, engine: Partial<EngineOptions> = {}) {
  const h = engineForTestFile(functions, engine);
  return {
    harness: h,
    /** The answer, JSON fields parsed. */
    async testState(call: TestStateCall): Promise<Record<string, any>> {
      return readable(await h.call('TestState', wireRequest(call)));
    },
    /** The raw wire answer. */
    raw(call: TestStateCall): Promise<Record<string, any>> {
      return h.call('TestState', wireRequest(call));
    },
    /** The service error a call is refused with: its `__type` and message. */
    async refusal(call: TestStateCall): Promise<{ name: string; message: string }> {
      try {
        await h.call('TestState', wireRequest(call));
      } catch (err) {
        return { name: (err as Error).name, message: (err as Error).message };
      }
      throw new Error('TestState was not refused');
    },
    /** The refusal of a wire request sent as it is. */
    async wireRefusal(request: Record<string, unknown>): Promise<{ name: string; message: string }> {
      try {
        await h.call('TestState', request);
      } catch (err) {
        return { name: (err as Error).name, message: (err as Error).message };
      }
      throw new Error('TestState was not refused');
    },
  };
}
