/**
 * A mock config written in code, typed, instead of a JSON file: the builder numbers each response's
 * entries itself (so a gap or an overlap cannot be written), and gives the same checked {@link MockConfig}
 * the file loader does, or the file's JSON.
 *
 * ```ts
 * const mocks = mockConfig()
 *   .testCase('contract-renewal', 'ModelUnavailableOnce', { 'draft-renewal-email': 'ModelUnavailableThenDraft' })
 *   .response('ModelUnavailableThenDraft', mockThrow('Lambda.ServiceException', 'unavailable'), mockReturn({ StatusCode: 200, Payload: { text: 'Hi' } }));
 * ```
 */
import { MockConfig, type MockedResponse } from './mock-config';

/** One step of a response: a mocked answer for the next `times` invocations. */
export interface MockStep {
  readonly response: MockedResponse;
  readonly times: number;
}

/** The next invocation(s) answer with `value` as the service's response. @param times how many invocations in a row @default 1 */
export const mockReturn = (value: unknown, times = 1): MockStep => ({ response: { Return: value }, times });

/** The next invocation(s) fail with `error` and `cause`. @param times how many invocations in a row @default 1 */
export const mockThrow = (error: string, cause = '', times = 1): MockStep => ({
  response: { Throw: { Error: error, Cause: cause } },
  times,
});

/** The MockConfigFile JSON. */
export interface MockConfigJson {
  readonly StateMachines: Record<string, { readonly TestCases: Record<string, Record<string, string>> }>;
  readonly MockedResponses: Record<string, Record<string, MockedResponse>>;
}

/** Builds a mock config: test cases of state machines, and named responses made of steps. */
export class MockConfigBuilder {
  private readonly machines: Record<string, { TestCases: Record<string, Record<string, string>> }> = {};
  private readonly responses: Record<string, Record<string, MockedResponse>> = {};

  /** Test case `testCase` of the state machine named `stateMachine`: each mocked state and the response it answers with. */
  testCase(stateMachine: string, testCase: string, states: Readonly<Record<string, string>>): this {
    const machine = (this.machines[stateMachine] ??= { TestCases: {} });
    machine.TestCases[testCase] = { ...states };
    return this;
  }

  /** The response `name`: its steps answer invocations 0, 1, ... in order (a step with `times` n covers n of them). */
  response(name: string, ...steps: readonly MockStep[]): this {
    const entries: Record<string, MockedResponse> = {};
    let next = 0;
    for (const step of steps) {
      if (!Number.isInteger(step.times) || step.times < 1)
        throw new RangeError(`mock response '${name}': times must be a whole number from 1 (got ${step.times})`);
      const last = next + step.times - 1;
      entries[last === next ? String(next) : `${next}-${last}`] = step.response;
      next = last + 1;
    }
    this.responses[name] = entries;
    return this;
  }

  /** The config as the MockConfigFile's JSON (to write to a file for `SFN_MOCK_CONFIG`). */
  toJSON(): MockConfigJson {
    return { StateMachines: structuredClone(this.machines), MockedResponses: structuredClone(this.responses) };
  }

  /** The checked config (throws `MockConfigError`, e.g. for a test case naming an undefined response). */
  build(): MockConfig {
    return MockConfig.from(this.toJSON(), 'mockConfig()');
  }
}

/** Starts a mock config in code. */
export const mockConfig = (): MockConfigBuilder => new MockConfigBuilder();
