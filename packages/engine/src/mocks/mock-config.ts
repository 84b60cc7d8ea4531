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
import { MAX_JSON_NESTING_DEPTH } from '@autosave/workflow/config';

/** One canned answer of a mocked Task invocation: the service response, or the error the call fails with. */
export type MockedResponse =
  { readonly Return: unknown } | { readonly Throw: { readonly Error: string; readonly Cause: string } };

/** The answer of invocations `first` to `last` (0-based, both included) of a mocked state. */
export interface MockedRange {
  readonly first: number;
  readonly last: number;
  readonly answer: MockedResponse;
}

/**
 * The responses one state of a test case gets, by invocation number: the file's ranges as written, in
 * order and consecutive from 0, never expanded (`"0-1000000000"` is one entry, not a billion).
 */
export interface MockedStateResponses {
  /** The name of the response in `MockedResponses`. */
  readonly response: string;
  readonly ranges: readonly MockedRange[];
}

/** How many invocations `responses` answers (they are numbered 0 to this minus one). */
export const invocationCount = (responses: MockedStateResponses): number =>
  responses.ranges.length === 0 ? 0 : responses.ranges[responses.ranges.length - 1]!.last + 1;

/** The answer of invocation `number`, or undefined past the last range (a binary search: ranges are sorted). */
export function answerOf(responses: MockedStateResponses, number: number): MockedResponse | undefined {
  const { ranges } = responses;
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const range = ranges[mid]!;
    if (number < range.first) high = mid - 1;
    else if (number > range.last) low = mid + 1;
    else return range.answer;
  }
  return undefined;
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
  /**
   * Told when a run starts under `testCase` and the test case mocks `states` that its machine does not have
   * (a typo, or a state renamed since): they are never called. @default nobody is told
   */
  mocksUnknownStates?(testCase: MockTestCase, states: readonly string[]): void;
  /** Whether a test case of the state machine named `stateMachine` maps `state`. @default none is known mapped */
  mocksState?(stateMachine: string, state: string): boolean;
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
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
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
    if (!isObject(value))
      return fail('', 'the file must hold a JSON object with "StateMachines" and "MockedResponses"');
    // The developer guide once wrote the key in the singular (corrected by awsdocs PR #87).
    if (value.MockedResponses === undefined && value.MockedResponse !== undefined)
      return fail('MockedResponse', 'the key is "MockedResponses" (plural)');
    for (const key of Object.keys(value))
      if (key !== 'StateMachines' && key !== 'MockedResponses')
        fail(key, 'unknown key: a mock config has only "StateMachines" and "MockedResponses"');
    if (!isObject(value.StateMachines)) return fail('StateMachines', 'must be an object of state machine names');
    if (!isObject(value.MockedResponses)) return fail('MockedResponses', 'must be an object of response names');
    const responses = new Map<string, MockedRange[]>();
    for (const [name, entries] of Object.entries(value.MockedResponses))
      responses.set(name, parseResponse(`MockedResponses.${name}`, entries, fail));
    const cases = new Map<string, Map<string, MockTestCase>>();
    for (const [machine, config] of Object.entries(value.StateMachines)) {
      const at = `StateMachines.${machine}`;
      if (!isObject(config) || !isObject(config.TestCases))
        return fail(`${at}.TestCases`, 'must be an object of test case names');
      const byName = new Map<string, MockTestCase>();
      for (const [testCase, mapping] of Object.entries(config.TestCases)) {
        const caseAt = `${at}.TestCases.${testCase}`;
        if (!isObject(mapping)) return fail(caseAt, 'must map state names to response names');
        const states: Record<string, MockedStateResponses> = {};
        for (const [state, response] of Object.entries(mapping)) {
          if (typeof response !== 'string')
            return fail(`${caseAt}.${state}`, 'must be the name of a response in MockedResponses');
          const ranges = responses.get(response);
          if (!ranges)
            return fail(
              `${caseAt}.${state}`,
              `names the response '${response}', which MockedResponses does not define`,
            );
          states[state] = { response, ranges };
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

  mocksState(stateMachine: string, state: string): boolean {
    return [...(this.cases.get(stateMachine)?.values() ?? [])].some((c) => Object.hasOwn(c.states, state));
  }

  /** How many test cases the config defines, over all its state machines. */
  get testCaseCount(): number {
    let n = 0;
    for (const byName of this.cases.values()) n += byName.size;
    return n;
  }
}

/** A response's numbered entries, checked to cover 0..n once each, as sorted ranges (never expanded). */
function parseResponse(at: string, entries: unknown, fail: (key: string, problem: string) => never): MockedRange[] {
  if (!isObject(entries) || Object.keys(entries).length === 0)
    return fail(at, 'must be an object of invocation numbers ("0", "1-2", ...) with at least one entry');
  const ranges = Object.entries(entries).map(([key, entry]) => {
    const m = RANGE.exec(key);
    if (!m)
      return fail(
        `${at}.${key}`,
        'an invocation number must be "<n>" or "<first>-<last>" (0-based, e.g. "0" or "1-2")',
      );
    const first = Number(m[1]);
    const last = m[2] === undefined ? first : Number(m[2]);
    if (!Number.isSafeInteger(last))
      return fail(`${at}.${key}`, `an invocation number must be at most ${Number.MAX_SAFE_INTEGER}`);
    if (last < first) return fail(`${at}.${key}`, `the range ends before it starts`);
    return { key, first, last, answer: parseEntry(`${at}.${key}`, entry, fail) };
  });
  ranges.sort((a, b) => a.first - b.first);
  let next = 0;
  for (const r of ranges) {
    if (r.first < next)
      return fail(`${at}.${r.key}`, `overlaps an earlier entry: invocation ${r.first} is numbered twice`);
    if (r.first > next) {
      const missing = next === r.first - 1 ? `${next}` : `${next}-${r.first - 1}`;
      return fail(
        `${at}.${r.key}`,
        `the numbering has a gap: no entry for invocation ${missing} (numbers start at 0 and must be consecutive)`,
      );
    }
    next = r.last + 1;
  }
  return ranges.map(({ first, last, answer }) => ({ first, last, answer }));
}

function parseEntry(at: string, entry: unknown, fail: (key: string, problem: string) => never): MockedResponse {
  if (!isObject(entry)) return fail(at, 'must be an object with "Return" or "Throw"');
  const keys = Object.keys(entry);
  const hasReturn = keys.includes('Return');
  const hasThrow = keys.includes('Throw');
  if (hasReturn === hasThrow) return fail(at, 'must hold exactly one of "Return" and "Throw"');
  const extra = keys.find((k) => k !== 'Return' && k !== 'Throw');
  if (extra !== undefined) return fail(`${at}.${extra}`, 'unknown key: an entry holds "Return" or "Throw"');
  if (hasReturn) {
    // The engine takes nothing deeper (an execution input, a task's output): a deeper answer overflowed the
    // stack of the first StartExecution that served it (a 500).
    if (nestsDeeperThan(entry.Return, MAX_JSON_NESTING_DEPTH))
      return fail(`${at}.Return`, `is nested deeper than ${MAX_JSON_NESTING_DEPTH} levels of arrays and objects`);
    return { Return: entry.Return };
  }
  const thrown = entry.Throw;
  if (!isObject(thrown)) return fail(`${at}.Throw`, 'must be an object with "Error" and "Cause" strings');
  if (typeof thrown.Error !== 'string')
    return fail(`${at}.Throw.Error`, 'must be a string (the error name Retry and Catch match)');
  if (typeof thrown.Cause !== 'string') return fail(`${at}.Throw.Cause`, 'must be a string');
  return { Throw: { Error: thrown.Error, Cause: thrown.Cause } };
}

/** Whether a JSON value nests arrays and objects deeper than `limit`: no recursion, so any value is safe. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [v, depth] = pending.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) pending.push([child, depth + 1]);
  }
  return false;
}
