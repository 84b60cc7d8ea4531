/**
 * A mock config read from a file (`SFN_MOCK_CONFIG`, `autosave local --mock-config <file>`): read at start,
 * and read again whenever the file changes — noticed by a poll of the file (so an editor's save shows up
 * in the log at once) and checked again at every test-case lookup (so a start right after a save already
 * sees it). A file that does not load is reported with its path and the key at fault; until it is fixed,
 * no test case is served (a start on `#<TestCase>` is then InvalidName, whose message points at the logs).
 */
import { readFileSync, statSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { resolve } from 'node:path';
import { MockConfig, MockConfigError, type MockTestCase, type MockTestCases } from '@autosave/engine';

/** How often the file is polled for changes. */
export const MOCK_CONFIG_POLL_MILLIS = 1_000;

/** Options of {@link MockConfigFile}. */
export interface MockConfigFileOptions {
  /** Where loads and load failures are reported. @default console.error */
  readonly log?: (line: string) => void;
}

/** The outcome of reading the file: the config, or why it is refused. */
export type MockConfigLoad =
  { readonly ok: true; readonly config: MockConfig } | { readonly ok: false; readonly error: MockConfigError };

/** A MockConfigFile on disk, as the engine's {@link MockTestCases}. */
export class MockConfigFile implements MockTestCases {
  readonly path: string;
  private current?: MockConfig;
  /** What the last read saw of the file (size, mtime, inode), to tell a change. */
  private seen = '';
  private watching = false;
  /** The unknown-state warnings given, so a test case started a thousand times warns once. */
  private readonly warned = new Set<string>();
  private readonly log: (line: string) => void;

  constructor(path: string, options: MockConfigFileOptions = {}) {
    this.path = resolve(path);
    this.log = options.log ?? ((line) => console.error(line));
  }

  /** Reads the file now; the result says whether it loaded (a failure is also logged). */
  load(): MockConfigLoad {
    let stats: Stats;
    let text: string;
    try {
      stats = statSync(this.path);
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      return this.refused(new MockConfigError(this.path, '', `cannot be read: ${(err as Error).message}`), '');
    }
    const fingerprint = fingerprintOf(stats);
    try {
      const config = MockConfig.parse(text, this.path);
      this.current = config;
      this.seen = fingerprint;
      this.log(
        `autosave local: mock config ${this.path} loaded (${config.testCaseCount} test cases); start a run on <stateMachineArn>#<TestCase> to use one`,
      );
      return { ok: true, config };
    } catch (err) {
      if (!(err instanceof MockConfigError)) throw err;
      return this.refused(err, fingerprint);
    }
  }

  /** Polls the file and reloads it when it changes, until {@link close}. */
  watch(): this {
    if (this.watching) return this;
    this.watching = true;
    watchFile(this.path, { interval: MOCK_CONFIG_POLL_MILLIS, persistent: false }, () => this.reloadIfChanged());
    return this;
  }

  close(): void {
    if (this.watching) unwatchFile(this.path);
    this.watching = false;
  }

  mocksState(stateMachine: string, state: string): boolean {
    return this.current?.mocksState(stateMachine, state) ?? false;
  }

  testCase(stateMachine: string, testCase: string): MockTestCase | undefined {
    this.reloadIfChanged();
    return this.current?.testCase(stateMachine, testCase);
  }

  mocksUnknownStates(testCase: MockTestCase, states: readonly string[]): void {
    const said = `${testCase.stateMachine}\0${testCase.testCase}\0${states.join('\0')}`;
    if (this.warned.has(said)) return;
    this.warned.add(said);
    const names = states.map((s) => `'${s}'`).join(', ');
    this.log(
      `autosave local: warning: test case '${testCase.testCase}' of ${this.path} mocks ${names}, which state machine '${testCase.stateMachine}' does not have: ${states.length === 1 ? 'it is' : 'they are'} never called (StateMachines.${testCase.stateMachine}.TestCases.${testCase.testCase})`,
    );
  }

  private reloadIfChanged(): void {
    let fingerprint = '';
    try {
      fingerprint = fingerprintOf(statSync(this.path));
    } catch {
      // Gone: reported by the load below.
    }
    if (fingerprint !== this.seen) this.load();
  }

  private refused(error: MockConfigError, fingerprint: string): MockConfigLoad {
    this.current = undefined;
    this.seen = fingerprint;
    this.log(`autosave local: ${error.message}. No test case is served until the file is fixed.`);
    return { ok: false, error };
  }
}

const fingerprintOf = (stats: Stats): string => `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
