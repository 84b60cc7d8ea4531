/**
 * The rows of mocked runs (executions started on `<arn>#<TestCase>`): the test case each run was started
 * under, kept as it was at the start so that a restart (or a changed file) cannot change what the run
 * answers, and every mocked Task invocation's number. Numbers count per run and state, across frames:
 * retries, re-entries, Map iterations and Parallel branches of one state share one counter.
 */
import type { EngineStore } from './engine-store';

/** One mocked invocation: the attempt (`frame_id`, `seq`) of a state and the number it took. */
export interface MockInvocationRow {
  readonly frame_id: string;
  readonly seq: number;
  readonly state: string;
  readonly number: number;
}

/** Records that `executionArn` runs under a test case (`testCase`: its JSON). Inside the start's commit. */
export function insertMockedRun(store: EngineStore, executionArn: string, testCase: string): void {
  store.sql('INSERT OR REPLACE INTO mocked_runs (execution_arn, test_case) VALUES (?, ?)').run(executionArn, testCase);
}

/** The test case (JSON) a run was started under, if it was mocked. */
export function mockedRunTestCase(store: EngineStore, executionArn: string): string | undefined {
  const row = store.sql('SELECT test_case FROM mocked_runs WHERE execution_arn = ?').get(executionArn) as
    { test_case: string } | undefined;
  return row?.test_case;
}

/**
 * The mocked runs still open (read once at start). A closed run's test case stays in the store for the console
 * and a redrive, but is not read at each start: closed runs are most of a store, and grow with it.
 */
export function openMockedRuns(store: EngineStore): { execution_arn: string; test_case: string }[] {
  return store
    .sql(
      `SELECT m.execution_arn, m.test_case FROM executions e INDEXED BY executions_open
         JOIN mocked_runs m ON m.execution_arn = e.arn WHERE e.open = 1`,
    )
    .all() as {
    execution_arn: string;
    test_case: string;
  }[];
}

/**
 * The number of the invocation an attempt makes: the next of its state in its run, taken once. Asked
 * again for the same attempt (its outcome was lost in a crash and it is replayed), it is the same number.
 */
export function takeMockInvocation(
  store: EngineStore,
  executionArn: string,
  frameId: string,
  seq: number,
  state: string,
): number {
  store
    .sql(
      `INSERT OR IGNORE INTO mock_invocations (execution_arn, frame_id, seq, state, number)
       SELECT ?, ?, ?, ?, COUNT(*) FROM mock_invocations WHERE execution_arn = ? AND state = ?`,
    )
    .run(executionArn, frameId, seq, state, executionArn, state);
  const row = store
    .sql('SELECT number FROM mock_invocations WHERE execution_arn = ? AND frame_id = ? AND seq = ?')
    .get(executionArn, frameId, seq) as { number: number };
  return row.number;
}

/** A run's mocked invocations, in the order they were taken per state. */
export function mockInvocations(store: EngineStore, executionArn: string): MockInvocationRow[] {
  return store
    .sql('SELECT frame_id, seq, state, number FROM mock_invocations WHERE execution_arn = ? ORDER BY state, number')
    .all(executionArn) as MockInvocationRow[];
}
