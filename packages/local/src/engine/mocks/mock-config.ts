/**
 * The MockConfigFile format of Step Functions Local (adopted by LocalStack): test cases per state machine
 * name, each mapping Task state names to a named mocked response, whose entries are numbered by the
 * state's invocation ("0", "1-2", ...). Parsed and checked once, so a file with a gap or an overlap in its
 * numbering is refused when it is loaded, naming the file and the key, instead of failing a run later.
 *
 * ```
 * { "StateMachines":   { "<machine name>": { "TestCases": { "<test case>": { "<state>": "<response>" } } } },
 *   "MockedResponses": { "<response>": { "0": { "Return": <any JSON> }, "1-2": { "Throw": { "Error": "…", "Cause": "…" } } } } }
 * ```
 */

/** One canned answer of a mocked Task invocation: the service response, or the error the call fails with. */
export type MockedResponse = { readonly Return: unknown } | { readonly Throw: { readonly Error: string; readonly Cause: string } };

/** The responses one state of a test case gets, by invocation number (0-based; ranges expanded). */
export interface MockedStateResponses {
  /** The name of the response in `MockedResponses`. */
  readonly response: string;
  readonly invocations: readonly MockedResponse[];
}

/** A test case of one state machine: what each mocked state answers. Plain JSON, so a run can keep it. */
export interface MockTestCase {
  readonly stateMachine: string;
  readonly testCase: string;
  /** Mocked states by name; a state not listed makes its real call. */
  readonly states: Readonly<Record<string, MockedStateResponses>>;
}

/** Where the engine finds test cases (a parsed file, a file it watches, or one built in code). */
export interface MockTestCases {
  /** The test case `testCase` of the state machine named `stateMachine`, or undefined when there is none. */
  testCase(stateMachine: string, testCase: string): MockTestCase | undefined;
}

/** A mock config that is not valid: `file` and `key` (a dotted path, e.g. `MockedResponses.Retry.1-2`) say where. */
export class MockConfigError extends Error {
  override readonly name = 'MockConfigError';

  constructor(
    readonly file: string,
    readonly key: string,
    readonly problem: string,
  ) {
    super(`Invalid mock config ${file}${key ? ` at ${key}` : ''}: ${problem}`);
  }
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const RANGE = /^(\d+)(?:-(\d+))?$/;

/** A parsed, checked mock config. */
export class MockConfig implements MockTestCases {
  private constructor(private readonly cases: ReadonlyMap<string, ReadonlyMap<string, MockTestCase>>) {}

  /** Parses a MockConfigFile's text; throws {@link MockConfigError} naming `file` and the key at fault. */
  static parse(text: string, file = 'mock config'): MockConfig {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new MockConfigError(file, '', `not JSON: ${(err as Error).message}`);
    }
    return MockConfig.from(value, file);
  }

  /** Checks a mock config given as a value (the typed builder's, or parsed JSON). */
  static from(value: unknown, file = 'mock config'): MockConfig {
    const fail = (key: string, problem: string): never => {
      throw new MockConfigError(file, key, problem);
    };
    if (!isObject(value)) return fail('', 'the file must hold a JSON object with "StateMachines" and "MockedResponses"');
    // The developer guide once wrote the key in the singular (corrected by awsdocs PR #87).
    if (value.MockedResponses === undefined && value.MockedResponse !== undefined) return fail('MockedResponse', 'the key is "MockedResponses" (plural)');
    for (const key of Object.keys(value)) if (key !== 'StateMachines' && key !== 'MockedResponses') fail(key, 'unknown key: a mock config has only "StateMachines" and "MockedResponses"');
    if (!isObject(value.StateMachines)) return fail('StateMachines', 'must be an object of state machine names');
    if (!isObject(value.MockedResponses)) return fail('MockedResponses', 'must be an object of response names');
    const responses = new Map<string, MockedResponse[]>();
    for (const [name, entries] of Object.entries(value.MockedResponses)) responses.set(name, parseResponse(`MockedResponses.${name}`, entries, fail));
    const cases = new Map<string, Map<string, MockTestCase>>();
    for (const [machine, config] of Object.entries(value.StateMachines)) {
      const at = `StateMachines.${machine}`;
      if (!isObject(config) || !isObject(config.TestCases)) return fail(`${at}.TestCases`, 'must be an object of test case names');
      const byName = new Map<string, MockTestCase>();
      for (const [testCase, mapping] of Object.entries(config.TestCases)) {
        const caseAt = `${at}.TestCases.${testCase}`;
        if (!isObject(mapping)) return fail(caseAt, 'must map state names to response names');
        const states: Record<string, MockedStateResponses> = {};
        for (const [state, response] of Object.entries(mapping)) {
          if (typeof response !== 'string') return fail(`${caseAt}.${state}`, 'must be the name of a response in MockedResponses');
          const invocations = responses.get(response);
          if (!invocations) return fail(`${caseAt}.${state}`, `names the response '${response}', which MockedResponses does not define`);
          states[state] = { response, invocations };
        }
        byName.set(testCase, { stateMachine: machine, testCase, states });
      }
      cases.set(machine, byName);
    }
    return new MockConfig(cases);
  }

  testCase(stateMachine: string, testCase: string): MockTestCase | undefined {
    return this.cases.get(stateMachine)?.get(testCase);
  }

  /** How many test cases the config defines, over all its state machines. */
  get testCaseCount(): number {
    let n = 0;
    for (const byName of this.cases.values()) n += byName.size;
    return n;
  }
}

/** A response's numbered entries, checked to cover 0..n once each, expanded to one entry per invocation. */
function parseResponse(at: string, entries: unknown, fail: (key: string, problem: string) => never): MockedResponse[] {
  if (!isObject(entries) || Object.keys(entries).length === 0) return fail(at, 'must be an object of invocation numbers ("0", "1-2", ...) with at least one entry');
  const ranges = Object.entries(entries).map(([key, entry]) => {
    const m = RANGE.exec(key);
    if (!m) return fail(`${at}.${key}`, 'an invocation number must be "<n>" or "<first>-<last>" (0-based, e.g. "0" or "1-2")');
    const first = Number(m[1]);
    const last = m[2] === undefined ? first : Number(m[2]);
    if (last < first) return fail(`${at}.${key}`, `the range ends before it starts`);
    return { key, first, last, response: parseEntry(`${at}.${key}`, entry, fail) };
  });
  ranges.sort((a, b) => a.first - b.first);
  const expanded: MockedResponse[] = [];
  for (const r of ranges) {
    if (r.first < expanded.length) return fail(`${at}.${r.key}`, `overlaps an earlier entry: invocation ${r.first} is numbered twice`);
    if (r.first > expanded.length) {
      const missing = expanded.length === r.first - 1 ? `${expanded.length}` : `${expanded.length}-${r.first - 1}`;
      return fail(`${at}.${r.key}`, `the numbering has a gap: no entry for invocation ${missing} (numbers start at 0 and must be consecutive)`);
    }
    for (let n = r.first; n <= r.last; n++) expanded.push(r.response);
  }
  return expanded;
}

function parseEntry(at: string, entry: unknown, fail: (key: string, problem: string) => never): MockedResponse {
  if (!isObject(entry)) return fail(at, 'must be an object with "Return" or "Throw"');
  const keys = Object.keys(entry);
  const hasReturn = keys.includes('Return');
  const hasThrow = keys.includes('Throw');
  if (hasReturn === hasThrow) return fail(at, 'must hold exactly one of "Return" and "Throw"');
  const extra = keys.find((k) => k !== 'Return' && k !== 'Throw');
  if (extra !== undefined) return fail(`${at}.${extra}`, 'unknown key: an entry holds "Return" or "Throw"');
  if (hasReturn) return { Return: entry.Return };
  const thrown = entry.Throw;
  if (!isObject(thrown)) return fail(`${at}.Throw`, 'must be an object with "Error" and "Cause" strings');
  if (typeof thrown.Error !== 'string') return fail(`${at}.Throw.Error`, 'must be a string (the error name Retry and Catch match)');
  if (typeof thrown.Cause !== 'string') return fail(`${at}.Throw.Cause`, 'must be a string');
  return { Throw: { Error: thrown.Error, Cause: thrown.Cause } };
}
