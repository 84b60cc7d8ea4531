/**
 * What the hostile-workflow tier throws at a running engine: the cases of issue 29, each as it was found,
 * and fast-check arbitraries that vary them (sizes, depths, the regex, how a case is wrapped). Another
 * kind of hostile input (bucket names, mock configs, payload sizes) adds its own arbitrary here.
 */
import fc from 'fast-check';

/** A JSONata expression that must not freeze, crash or wedge the engine. */
export interface HostileExpression {
  readonly name: string;
  readonly expression: string;
}

/** The expression cases of issue 29, as reported. */
export const ISSUE_EXPRESSIONS: readonly HostileExpression[] = [
  {
    name: 'infinite tail recursion (froze the engine for good)',
    expression: '($f := function($n){ $f($n+1) }; $f(0))',
  },
  {
    name: 'non-tail recursion to depth 100,000 (19 s, 670 MB)',
    expression: '($f := function($n){ $n = 0 ? 0 : 1 + $f($n-1) }; $f(100000))',
  },
  {
    name: 'a catastrophic regex (3.5 s, doubling per a)',
    expression: '$match("aaaaaaaaaaaaaaaaaaaaaaaaaa!", /^(a+)+$/)',
  },
  { name: '$pad to 50,000,000 characters (3-13 s)', expression: '$pad("", 50000000)' },
];

const regexInput = (n: number) => `"${'a'.repeat(n)}!"`;

/** Runaway and oversized expressions, varied. */
const runaway = fc.oneof(
  fc.constantFrom(
    '($f := function($n){ $f($n+1) }; $f(0))',
    '($f := function($n){ 1 + $f($n+1) }; $f(0))',
    '($a := function($n){ $b($n+1) }; $b := function($n){ $a($n+1) }; $a(0))',
    '($f := function($s){ $f($s & $s) }; $f("xy"))',
  ),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => `($f := function($n){ $n = 0 ? 0 : 1 + $f($n-1) }; $f(${n}))`),
  fc
    .tuple(
      fc.constantFrom('/^(a+)+$/', '/^(a|a)*$/', '/(a*)*b/', '/^(a|aa)+$/', '/^(\\w+\\s?)*$/'),
      fc.integer({ min: 10, max: 5_000 }),
    )
    .map(([regex, n]) => `$match(${regexInput(n)}, ${regex})`),
  fc.integer({ min: 1, max: 9 }).map((e) => `$pad("", ${10 ** e})`),
  fc
    .tuple(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 200 }))
    .map(([e, k]) => `($s := $pad("", ${10 ** e}); $join($map([1..${k}], function(){ $s })))`),
  fc.integer({ min: 3, max: 7 }).map((e) => `$count([1..${10 ** e}])`),
  fc.integer({ min: 3, max: 6 }).map((e) => `$sum($map([1..${10 ** e}], function($v){ $v * 2 }))`),
  fc.integer({ min: 10, max: 3_000 }).map((d) => `${'['.repeat(d)}1${']'.repeat(d)}`),
);

/** A hostile expression, sometimes inside another (a state rarely holds the bare case). */
export const hostileExpressions: fc.Arbitrary<HostileExpression> = fc
  .tuple(runaway, fc.constantFrom('%s', '$count(%s)', '$string(%s)', '{"a": %s}', '[%s, 1]', '$exists(%s) ? 1 : 0'))
  .map(([inner, wrapper]) => ({ name: 'generated', expression: wrapper.replace('%s', inner) }));

/**
 * Bucket names S3 may refuse (issue 29: the embedded S3 checked names with a regex that backtracks
 * exponentially; a 63-character name it refuses froze the engine for over 12 minutes, a 25-character one
 * for 7.3 s, where AWS answers InvalidBucketName at once). The cases as reported come first.
 */
export const ISSUE_BUCKET_NAMES: readonly string[] = ['a'.repeat(62) + '!', 'a'.repeat(24) + '!'];

/** Names of 0 to 80 characters, mostly of [a-z0-9.-], built from the repeats that make a regex backtrack. */
export const hostileBucketNames: fc.Arbitrary<string> = fc
  .oneof(
    fc
      .array(
        fc.oneof(
          fc.constantFrom('a', 'z', '0', '9', '.', '-'),
          fc.constantFrom('a.-', 'a..a', '-a', 'a-', '.a', 'ab', 'a.', '192.168.1.1', 'xn--', '-s3alias', '--x-s3'),
          fc.constantFrom('A', 'B', '_', '!', ' ', '%', '/', 'é'),
        ),
        { maxLength: 40 },
      )
      .map((pieces) => pieces.join('')),
    fc
      .tuple(
        fc.constantFrom('', 'a', 'ab', '0', 'x-'),
        fc.constantFrom('a', 'a.-', 'a..', 'a-', 'ab.', 'a.a', '-a', '1.'),
        fc.integer({ min: 1, max: 40 }),
        fc.constantFrom('', '!', '-', '.', '..', 'A', '_', 'a'),
      )
      .map(([head, unit, n, tail]) => head + unit.repeat(n) + tail),
    fc.integer({ min: 0, max: 80 }).map((n) => 'a'.repeat(n)),
    fc
      .tuple(fc.integer({ min: 0, max: 999 }), fc.integer({ min: 0, max: 999 }), fc.integer({ min: 0, max: 999 }))
      .map(([a, b, c]) => `${a}.${b}.${c}.${(a + b + c) % 256}`),
  )
  .map((name) => name.slice(0, 80));

/** A mock config file's text (Step Functions Local's MockConfigFile), as written to `--mock-config`. */
export interface HostileMockConfig {
  readonly name: string;
  readonly text: string;
}

/** The state machine and test case every generated mock config names (its other test cases are noise). */
export const MOCKED_MACHINE = 'mocked';
export const MOCKED_CASE = 'Case';
export const MOCKED_STATE = 'Call';

const mockConfigText = (responses: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    StateMachines: { [MOCKED_MACHINE]: { TestCases: { [MOCKED_CASE]: { [MOCKED_STATE]: 'R' } } } },
    MockedResponses: { R: responses },
    ...extra,
  });

/**
 * The mock config cases of issue 29, as reported: a range of a billion invocations killed the process
 * (V8 fatal error) at start and when the file was edited while it ran; ten million made the first
 * StartExecution take 31.7 s.
 */
export const ISSUE_MOCK_CONFIGS: readonly HostileMockConfig[] = [
  { name: 'a range "0-1000000000" (killed the process)', text: mockConfigText({ '0-1000000000': { Return: 1 } }) },
  { name: 'a range "0-10000000" (31.7 s StartExecution)', text: mockConfigText({ '0-10000000': { Return: 1 } }) },
];

const nestedJson = (depth: number) => '['.repeat(depth) + '1' + ']'.repeat(depth);
const answer = fc.oneof(
  fc.constant({ Return: { Payload: 'ok' } }),
  fc.constant({ Throw: { Error: 'Mock.Error', Cause: 'mocked' } }),
  fc.constant({ Return: 1, Throw: { Error: 'E', Cause: 'c' } }),
  fc.constant({}),
  fc.constant({ Throw: { Error: 1, Cause: null } }),
  fc.constant({ Return: 1, Unknown: true }),
  fc.integer({ min: 1, max: 400_000 }).map((n) => ({ Return: 'x'.repeat(n) })),
);
const rangeKey = fc.oneof(
  fc.constantFrom('0', '-1', '0-', '-', 'abc', '5-2', '1e3', '0x10', ' 0', '00', '0-0', '0.5', '', '0 - 3', '1-2-3'),
  fc.integer({ min: 0, max: 15 }).map((e) => `0-${10 ** e}`),
  fc.constantFrom(
    `0-${Number.MAX_SAFE_INTEGER}`,
    `0-${Number.MAX_SAFE_INTEGER + 2}`,
    '0-1e308',
    `0-${'9'.repeat(400)}`,
    `${'9'.repeat(30)}`,
  ),
  fc.tuple(fc.nat(20), fc.nat(20)).map(([a, b]) => `${a}-${b}`),
);

/** Generated mock configs: huge, unordered and malformed ranges, many test cases, deep answers, unknown keys, no JSON. */
export const hostileMockConfigs: fc.Arbitrary<HostileMockConfig> = fc.oneof(
  fc
    .array(fc.tuple(rangeKey, answer), { minLength: 1, maxLength: 6 })
    .map((entries) => ({ name: 'ranges', text: mockConfigText(Object.fromEntries(entries)) })),
  fc.integer({ min: 1, max: 20_000 }).map((n) => ({
    name: `${n} numbered answers`,
    text: mockConfigText(Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), { Return: i }]))),
  })),
  fc.integer({ min: 1, max: 20_000 }).map((n) => ({
    name: `${n} test cases`,
    text: JSON.stringify({
      StateMachines: {
        [MOCKED_MACHINE]: {
          TestCases: Object.fromEntries(
            Array.from({ length: n }, (_, i) => [i === 0 ? MOCKED_CASE : `C${i}`, { [MOCKED_STATE]: 'R' }]),
          ),
        },
      },
      MockedResponses: { R: { '0-3': { Return: 1 } } },
    }),
  })),
  fc.integer({ min: 10, max: 10_000 }).map((depth) => ({
    name: `an answer nested ${depth} deep`,
    text: `{"StateMachines":{"${MOCKED_MACHINE}":{"TestCases":{"${MOCKED_CASE}":{"${MOCKED_STATE}":"R"}}}},"MockedResponses":{"R":{"0-3":{"Return":${nestedJson(depth)}}}}}`,
  })),
  fc.constantFrom<HostileMockConfig>(
    { name: 'unknown keys', text: mockConfigText({ '0': { Return: 1 } }, { Extra: { a: 1 }, Version: 2 }) },
    { name: 'not JSON', text: '{"StateMachines": {' },
    { name: 'empty', text: '' },
    { name: 'null', text: 'null' },
    { name: 'an array', text: '[1, 2]' },
    { name: 'an unknown response', text: mockConfigText({ '0': { Return: 1 } }).replace('"Call":"R"', '"Call":"Q"') },
    { name: 'StateMachines of the wrong type', text: '{"StateMachines":[],"MockedResponses":{}}' },
    {
      name: 'a test case of the wrong type',
      text: `{"StateMachines":{"${MOCKED_MACHINE}":{"TestCases":{"${MOCKED_CASE}":7}}}}`,
    },
  ),
);

/** The payload limit of a run's input, a state's output and TestState's (256 KiB). */
export const PAYLOAD_LIMIT_BYTES = 262_144;

/**
 * The boundary first (a string of the limit's length less two is the largest output, its quotes making up
 * the rest), then sizes near it and far above.
 */
export const ISSUE_PAYLOAD_SIZES: readonly number[] = [
  PAYLOAD_LIMIT_BYTES - 2,
  PAYLOAD_LIMIT_BYTES - 1,
  PAYLOAD_LIMIT_BYTES,
  PAYLOAD_LIMIT_BYTES + 1,
];

export const hostilePayloadSizes: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: PAYLOAD_LIMIT_BYTES - 64, max: PAYLOAD_LIMIT_BYTES + 64 }),
  fc.integer({ min: PAYLOAD_LIMIT_BYTES - 4_096, max: PAYLOAD_LIMIT_BYTES + 4_096 }),
  fc.integer({ min: 0, max: PAYLOAD_LIMIT_BYTES }),
  fc.integer({ min: PAYLOAD_LIMIT_BYTES, max: 16 * PAYLOAD_LIMIT_BYTES }),
);

/** A character of 1 to 4 UTF-8 bytes: the limit counts bytes, not characters. */
export const payloadCharacters: fc.Arbitrary<string> = fc.constantFrom('x', 'é', '€', '😀');

/** A definition thrown at CreateStateMachine and TestState: `state` is its start state, `machine` the whole. */
export interface HostileDefinition {
  readonly name: string;
  readonly machine: string;
}

/** Parallel (or Map, or both in turn) nested `depth` levels, built as text (no recursion here either). */
export function nestedStates(depth: number, kind: 'Parallel' | 'Map' | 'mixed'): string {
  let machine = '{"StartAt":"S","States":{"S":{"Type":"Succeed"}}}';
  for (let i = 0; i < depth; i++) {
    const map = kind === 'Map' || (kind === 'mixed' && i % 2 === 1);
    const state = map
      ? `{"Type":"Map","ItemProcessor":${machine},"End":true}`
      : `{"Type":"Parallel","Branches":[${machine}],"End":true}`;
    machine = `{"StartAt":"N","States":{"N":${state}}}`;
  }
  return machine;
}

/** A Choice rule nested `depth` levels of Not/And/Or. */
function nestedChoice(depth: number): string {
  let rule = '{"Variable":"$.a","IsPresent":true}';
  for (let i = 0; i < depth; i++)
    rule = i % 3 === 0 ? `{"Not":${rule}}` : i % 3 === 1 ? `{"And":[${rule}]}` : `{"Or":[${rule}]}`;
  return `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Next":"E",${rule.slice(1, -1)}}],"Default":"E"},"E":{"Type":"Succeed"}}}`;
}

/** The definition case of issue 29: TestState answered 500 (Maximum call stack size exceeded) for one nested 10,000 levels. */
export const ISSUE_DEFINITIONS: readonly HostileDefinition[] = [
  { name: 'Parallel nested 10,000 levels', machine: nestedStates(10_000, 'Parallel') },
  {
    name: 'a Result nested 10,000 levels',
    machine: `{"StartAt":"P","States":{"P":{"Type":"Pass","Result":${nestedJson(10_000)},"End":true}}}`,
  },
];

const depth = fc.oneof(
  fc.integer({ min: 1, max: 40 }),
  fc.integer({ min: 40, max: 400 }),
  fc.integer({ min: 400, max: 10_000 }),
);

/** Generated definitions: deep nesting of states, Choice rules and JSON, many states, dangling names, odd types. */
export const hostileDefinitions: fc.Arbitrary<HostileDefinition> = fc.oneof(
  fc
    .tuple(depth, fc.constantFrom<'Parallel' | 'Map' | 'mixed'>('Parallel', 'Map', 'mixed'))
    .map(([d, kind]) => ({ name: `${kind} nested ${d} levels`, machine: nestedStates(d, kind) })),
  depth.map((d) => ({ name: `a Choice rule nested ${d} levels`, machine: nestedChoice(d) })),
  depth.map((d) => ({
    name: `a Result nested ${d} levels`,
    machine: `{"StartAt":"P","States":{"P":{"Type":"Pass","Result":${nestedJson(d)},"End":true}}}`,
  })),
  fc.integer({ min: 1, max: 5_000 }).map((n) => ({
    name: `${n} chained Pass states`,
    machine: JSON.stringify({
      StartAt: 'S0',
      States: Object.fromEntries(
        Array.from({ length: n }, (_, i) => [
          `S${i}`,
          i + 1 < n ? { Type: 'Pass', Next: `S${i + 1}` } : { Type: 'Succeed' },
        ]),
      ),
    }),
  })),
  fc.integer({ min: 1, max: 2_000 }).map((n) => ({
    name: `a Parallel of ${n} branches`,
    machine: JSON.stringify({
      StartAt: 'P',
      States: {
        P: {
          Type: 'Parallel',
          Branches: Array.from({ length: n }, () => ({ StartAt: 'S', States: { S: { Type: 'Succeed' } } })),
          End: true,
        },
      },
    }),
  })),
  fc.string({ unit: 'grapheme', maxLength: 120 }).map((name) => ({
    name: 'an odd state name',
    machine: JSON.stringify({ StartAt: name, States: { [name]: { Type: 'Pass', Next: name.slice(1) || 'x' } } }),
  })),
  fc.integer({ min: 1, max: 3_000 }).map((d) => ({
    name: `a JSONata expression nested ${d} deep`,
    machine: JSON.stringify({
      QueryLanguage: 'JSONata',
      StartAt: 'P',
      States: { P: { Type: 'Pass', Output: `{% ${'('.repeat(d)}1${')'.repeat(d)} %}`, End: true } },
    }),
  })),
  fc.constantFrom<HostileDefinition>(
    { name: 'no StartAt', machine: '{"States":{"P":{"Type":"Pass","End":true}}}' },
    { name: 'States an array', machine: '{"StartAt":"P","States":[]}' },
    { name: 'null', machine: 'null' },
    { name: 'not JSON', machine: '{"StartAt":' },
    { name: 'an unknown type', machine: '{"StartAt":"P","States":{"P":{"Type":"Teleport","End":true}}}' },
    { name: 'a Map with no processor', machine: '{"StartAt":"M","States":{"M":{"Type":"Map","End":true}}}' },
    { name: 'a state named __proto__', machine: '{"StartAt":"__proto__","States":{"__proto__":{"Type":"Succeed"}}}' },
    { name: 'Next to a missing state', machine: '{"StartAt":"P","States":{"P":{"Type":"Pass","Next":"Q"}}}' },
    {
      name: 'near 1 MB',
      machine: `{"StartAt":"P","States":{"P":{"Type":"Pass","Result":"${'x'.repeat(1_048_500)}","End":true}}}`,
    },
  ),
);
