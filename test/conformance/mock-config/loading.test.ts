/**
 * Loading a MockConfigFile (sfn-local-mock-cfg-file.html; LocalStack's checks, TESTING-APIS.md B1/B2): a
 * file that does not parse, or whose numbering has a gap or an overlap, is refused when it is loaded,
 * naming the file and the key at fault, instead of failing some run later.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  answerOf,
  invocationCount,
  MockConfig,
  MockConfigError,
  mockConfig,
  mockedInvocationOutcome,
  mockReturn,
  mockThrow,
  type MockedStateResponses,
} from '../../../packages/engine/src/mocks';
import { MockConfigFile } from '../../../packages/local/src/services/mock-config-file';
import { GUIDE_MOCK_CONFIG } from './support';

const FILE = '/tmp/MockConfigFile.json';
const withResponse = (entries: object) => ({
  StateMachines: { M: { TestCases: { T: { S: 'R' } } } },
  MockedResponses: { R: entries },
});
const ret = { Return: {} };
/** Every invocation's answer, in order (for the small configs of these cases). */
const answers = (responses: MockedStateResponses | undefined) =>
  Array.from({ length: responses ? invocationCount(responses) : 0 }, (_, n) => answerOf(responses!, n)!);

function refusal(config: unknown): { key: string; message: string } {
  try {
    if (typeof config === 'string') MockConfig.parse(config, FILE);
    else MockConfig.from(config, FILE);
  } catch (err) {
    expect(err).toBeInstanceOf(MockConfigError);
    return { key: (err as MockConfigError).key, message: (err as Error).message };
  }
  throw new Error('the config was accepted');
}

describe('MockConfig.parse', () => {
  it("reads the developer guide's example: test cases by machine name, ranges expanded per invocation", () => {
    const config = MockConfig.parse(JSON.stringify(GUIDE_MOCK_CONFIG), FILE);
    const retry = config.testCase('LambdaSQSIntegration', 'RetryPath');
    expect(retry?.states.LambdaState.response).toBe('MockedLambdaRetry');
    expect(answers(retry?.states.LambdaState).map((r) => ('Throw' in r ? r.Throw.Error : 'Return'))).toEqual([
      'Lambda.ResourceNotReadyException',
      'Lambda.TimeoutException',
      'Lambda.TimeoutException',
      'Return',
    ]);
    expect(Object.keys(config.testCase('LambdaSQSIntegration', 'HybridPath')?.states ?? {})).toEqual(['LambdaState']);
    expect(config.testCase('LambdaSQSIntegration', 'Nope')).toBeUndefined();
    expect(config.testCase('Other', 'HappyPath')).toBeUndefined();
  });

  it('one response may serve several states and test cases', () => {
    const config = MockConfig.from({
      StateMachines: { M: { TestCases: { A: { S1: 'R', S2: 'R' }, B: { S1: 'R' } } } },
      MockedResponses: { R: { '0': ret } },
    });
    expect(answers(config.testCase('M', 'A')?.states.S2)).toHaveLength(1);
    expect(answers(config.testCase('M', 'B')?.states.S1)).toHaveLength(1);
  });

  it('text that is not JSON is refused with the file named', () => {
    const { message } = refusal('{ "StateMachines": ');
    expect(message).toMatch(/^Invalid mock config \/tmp\/MockConfigFile\.json: not JSON: /);
  });

  it.each([
    ['a gap ("0" then "2")', { '0': ret, '2': ret }, 'MockedResponses.R.2', 'no entry for invocation 1'],
    ['a gap at the start ("1-2")', { '1-2': ret }, 'MockedResponses.R.1-2', 'no entry for invocation 0'],
    ['a wider gap ("0" then "4")', { '0': ret, '4': ret }, 'MockedResponses.R.4', 'no entry for invocation 1-3'],
    ['an overlap ("0-2" and "2")', { '0-2': ret, '2': ret }, 'MockedResponses.R.2', 'invocation 2 is numbered twice'],
    [
      'an overlap of ranges ("0-3" and "1-2")',
      { '0-3': ret, '1-2': ret },
      'MockedResponses.R.1-2',
      'invocation 1 is numbered twice',
    ],
    [
      'a range ending before it starts ("3-1")',
      { '0': ret, '3-1': ret },
      'MockedResponses.R.3-1',
      'ends before it starts',
    ],
    ['a key that is no number ("first")', { first: ret }, 'MockedResponses.R.first', '"<n>" or "<first>-<last>"'],
    [
      'both Return and Throw',
      { '0': { Return: 1, Throw: { Error: 'E', Cause: 'C' } } },
      'MockedResponses.R.0',
      'exactly one of "Return" and "Throw"',
    ],
    ['neither Return nor Throw', { '0': {} }, 'MockedResponses.R.0', 'exactly one of "Return" and "Throw"'],
    [
      'a Throw without Error',
      { '0': { Throw: { Cause: 'C' } } },
      'MockedResponses.R.0.Throw.Error',
      'must be a string',
    ],
    [
      'a Throw whose Cause is no string',
      { '0': { Throw: { Error: 'E', Cause: 3 } } },
      'MockedResponses.R.0.Throw.Cause',
      'must be a string',
    ],
    ['no entries', {}, 'MockedResponses.R', 'at least one entry'],
  ])('%s is refused at its key', (_, entries, key, problem) => {
    const { key: at, message } = refusal(withResponse(entries));
    expect(at).toBe(key);
    expect(message).toContain(`Invalid mock config ${FILE} at ${key}: `);
    expect(message).toContain(problem);
  });

  it('keeps a range as a range: "0-1000000" is one entry, and the test case a run stores stays small', () => {
    const testCase = MockConfig.from(withResponse({ '0': { Return: 'first' }, '1-1000000': ret })).testCase('M', 'T')!;
    expect(JSON.stringify(testCase).length).toBeLessThan(1_000);
  });

  it('answers any invocation of "0-1000000000" without allocating per invocation, and fails the one past its end', () => {
    const before = process.memoryUsage().heapUsed;
    const testCase = MockConfig.from(
      withResponse({ '0-1000000000': { Return: 'many' }, '1000000001': { Throw: { Error: 'Last', Cause: '' } } }),
    ).testCase('M', 'T')!;
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(50 * 1024 * 1024);
    expect(mockedInvocationOutcome(testCase, 'S', 0)).toEqual({ ok: true, value: 'many' });
    expect(mockedInvocationOutcome(testCase, 'S', 999_999_999)).toEqual({ ok: true, value: 'many' });
    expect(mockedInvocationOutcome(testCase, 'S', 1_000_000_001)).toMatchObject({ ok: false, error: 'Last' });
    expect(mockedInvocationOutcome(testCase, 'S', 1_000_000_002)).toMatchObject({
      ok: false,
      cause: expect.stringContaining('defines invocations 0-1000000001'),
    });
  });

  it.each([
    ['an invocation number past 2^53 ("0-99999999999999999999")', '0-99999999999999999999'],
    ['a single invocation number past 2^53', '1'.repeat(400)],
  ])('%s is refused as unbounded, at its key', (_, key) => {
    const { key: at, message } = refusal(withResponse({ [key]: ret }));
    expect(at).toBe(`MockedResponses.R.${key}`);
    expect(message).toContain('an invocation number must be at most 9007199254740991');
  });

  it.each([
    [
      'a test case naming an undefined response',
      { StateMachines: { M: { TestCases: { T: { S: 'Missing' } } } }, MockedResponses: {} },
      'StateMachines.M.TestCases.T.S',
    ],
    [
      'a state mapped to something other than a response name',
      { StateMachines: { M: { TestCases: { T: { S: 1 } } } }, MockedResponses: {} },
      'StateMachines.M.TestCases.T.S',
    ],
    ['a machine without TestCases', { StateMachines: { M: {} }, MockedResponses: {} }, 'StateMachines.M.TestCases'],
    ['no StateMachines', { MockedResponses: {} }, 'StateMachines'],
    ['the singular "MockedResponse" of the early docs', { StateMachines: {}, MockedResponse: {} }, 'MockedResponse'],
    ['an unknown top-level key', { StateMachines: {}, MockedResponses: {}, Extra: 1 }, 'Extra'],
  ])('%s is refused at its key', (_, config, key) => {
    expect(refusal(config).key).toBe(key);
  });
});

describe('MockConfigFile (SFN_MOCK_CONFIG, autosave local --mock-config)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  async function file(content: unknown): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'autosave-mock-config-'));
    dirs.push(dir);
    const path = join(dir, 'MockConfigFile.json');
    await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  }

  it('is read at start and serves its test cases', async () => {
    const lines: string[] = [];
    const source = new MockConfigFile(await file(GUIDE_MOCK_CONFIG), { log: (l) => lines.push(l) });
    expect(source.load().ok).toBe(true);
    expect(source.testCase('LambdaSQSIntegration', 'HappyPath')?.testCase).toBe('HappyPath');
    expect(lines).toEqual([expect.stringMatching(/mock config .*MockConfigFile\.json loaded \(3 test cases\)/)]);
  });

  it('is read again when the file changes: the next start sees the new test case', async () => {
    const path = await file(withResponse({ '0': ret }));
    const source = new MockConfigFile(path, { log: () => undefined });
    source.load();
    expect(source.testCase('M', 'Added')).toBeUndefined();
    await writeFile(
      path,
      JSON.stringify({
        StateMachines: { M: { TestCases: { T: { S: 'R' }, Added: { S: 'R' } } } },
        MockedResponses: { R: { '0': ret } },
      }),
    );
    expect(source.testCase('M', 'Added')?.testCase).toBe('Added');
  });

  it('a file that stops loading is reported with the file and the key, serves nothing, and serves again once fixed', async () => {
    const lines: string[] = [];
    const path = await file(withResponse({ '0': ret }));
    const source = new MockConfigFile(path, { log: (l) => lines.push(l) });
    source.load();
    await writeFile(path, JSON.stringify(withResponse({ '0': ret, '2': ret })));
    expect(source.testCase('M', 'T')).toBeUndefined();
    expect(lines.at(-1)).toBe(
      `autosave local: Invalid mock config ${path} at MockedResponses.R.2: the numbering has a gap: no entry for invocation 1 (numbers start at 0 and must be consecutive). No test case is served until the file is fixed.`,
    );
    await writeFile(path, JSON.stringify(withResponse({ '0-2': ret })));
    expect(answers(source.testCase('M', 'T')?.states.S)).toHaveLength(3);
  });

  it('a load at start of a broken file says why, with the file and the key', async () => {
    const path = await file(withResponse({ '0': { Return: 1, Throw: { Error: 'E', Cause: 'C' } } }));
    const loaded = new MockConfigFile(path, { log: () => undefined }).load();
    expect(loaded.ok).toBe(false);
    expect(!loaded.ok && loaded.error).toMatchObject({
      name: 'MockConfigError',
      file: path,
      key: 'MockedResponses.R.0',
    });
  });

  it('warns once, naming the file, the test case and the states, of a test case mocking states its machine does not have', async () => {
    const lines: string[] = [];
    const path = await file(withResponse({ '0': ret }));
    const source = new MockConfigFile(path, { log: (l) => lines.push(l) });
    source.load();
    const testCase = source.testCase('M', 'T')!;
    source.mocksUnknownStates(testCase, ['S']);
    source.mocksUnknownStates(testCase, ['S']);
    expect(lines.slice(1)).toEqual([
      `autosave local: warning: test case 'T' of ${path} mocks 'S', which state machine 'M' does not have: it is never called (StateMachines.M.TestCases.T)`,
    ]);
  });

  it('a missing file is reported as unreadable', async () => {
    const loaded = new MockConfigFile('/nonexistent/MockConfigFile.json', { log: () => undefined }).load();
    expect(!loaded.ok && loaded.error.message).toMatch(
      /^Invalid mock config \/nonexistent\/MockConfigFile\.json: cannot be read: ENOENT/,
    );
  });
});

describe('mockConfig(): the typed builder', () => {
  it('numbers each response\'s steps itself ("0", "1-2", "3") and gives the file\'s JSON', () => {
    const builder = mockConfig()
      .testCase('LambdaSQSIntegration', 'RetryPath', { LambdaState: 'MockedLambdaRetry', SQSState: 'MockedSQSSuccess' })
      .response(
        'MockedLambdaRetry',
        mockThrow('Lambda.ResourceNotReadyException', 'Lambda resource is not ready.'),
        mockThrow('Lambda.TimeoutException', 'Lambda timed out.', 2),
        mockReturn({ StatusCode: 200, Payload: { StatusCode: 200, body: 'Hello from Lambda!' } }),
      )
      .response(
        'MockedSQSSuccess',
        mockReturn({
          MD5OfMessageBody: '3bcb6e8e-7h85-4375-b0bc-1a59812c6e51',
          MessageId: '3bcb6e8e-8b51-4375-b0bc-1a59812c6e51',
        }),
      );
    const json = builder.toJSON();
    expect(Object.keys(json.MockedResponses.MockedLambdaRetry).sort()).toEqual(['0', '1-2', '3']);
    expect(json.MockedResponses.MockedLambdaRetry).toEqual(GUIDE_MOCK_CONFIG.MockedResponses.MockedLambdaRetry);
    expect(answers(builder.build().testCase('LambdaSQSIntegration', 'RetryPath')?.states.LambdaState)).toHaveLength(4);
  });

  it('a test case naming a response it does not define is refused by build()', () => {
    expect(() => mockConfig().testCase('M', 'T', { S: 'Nowhere' }).build()).toThrow(MockConfigError);
  });

  it('a step must cover at least one invocation', () => {
    expect(() => mockConfig().response('R', mockReturn(1, 0))).toThrow(RangeError);
  });
});
