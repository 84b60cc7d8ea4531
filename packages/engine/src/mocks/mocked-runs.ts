/**
 * Which open runs of one store are mocked, and with what. Kept in memory (read back from the store at start,
 * forgotten when the run closes, read again if it is redriven), so a run started without a test case costs one
 * map lookup per Task attempt and nothing else.
 */
import { type EngineStore, insertMockedRun, mockedRunTestCase, openMockedRuns, takeMockInvocation } from '../store';
import type { TaskOutcome } from '../executor/task-outcome';
import type { MockedResponse, MockedStateResponses, MockTestCase } from './mock-config';
import { mockedInvocationOutcome } from './mocked-outcome';

/** The mocked runs of one store (the durable one, or the express runs' in-memory one). */
export class MockedRuns {
  private readonly runs = new Map<string, MockTestCase>();

  constructor(private readonly store: EngineStore) {}

  /** Reads back the open mocked runs the store holds (at start, before any run is resumed). */
  load(): void {
    for (const row of openMockedRuns(this.store)) this.runs.set(row.execution_arn, storedTestCase(row.test_case));
  }

  /** Reads back the test case of a closed run about to run again (a redrive), if it was mocked. */
  reload(executionArn: string): void {
    const text = mockedRunTestCase(this.store, executionArn);
    if (text !== undefined) this.runs.set(executionArn, storedTestCase(text));
  }

  /** Writes that `executionArn` runs under `testCase`: call inside the commit that creates the run. */
  write(executionArn: string, testCase: MockTestCase): void {
    insertMockedRun(this.store, executionArn, JSON.stringify(testCase));
  }

  /** Makes a run written by {@link write} mocked here (once its commit is done, before its first Task launches). */
  add(executionArn: string, testCase: MockTestCase): void {
    this.runs.set(executionArn, testCase);
  }

  /** Forgets a run once it closed (its rows stay for a redrive, or are gone with an express run). */
  forget(executionArn: string): void {
    this.runs.delete(executionArn);
  }

  /** The test case `state` of `executionArn` answers from, when it is mocked. */
  mockedState(executionArn: string, state: string): MockTestCase | undefined {
    if (this.runs.size === 0) return undefined;
    const testCase = this.runs.get(executionArn);
    return testCase && Object.hasOwn(testCase.states, state) ? testCase : undefined;
  }

  /**
   * The outcome of one attempt (`frameId`, `seq`) of a mocked state: it takes the state's next invocation
   * number durably (a replayed attempt gets its number again), then that number's response.
   */
  async outcome(
    testCase: MockTestCase,
    attempt: { executionArn: string; frameId: string; seq: number; state: string; functionResource: boolean },
  ): Promise<TaskOutcome> {
    const { executionArn, frameId, seq, state, functionResource } = attempt;
    const number = await this.store.committer.commit(() =>
      takeMockInvocation(this.store, executionArn, frameId, seq, state),
    );
    return mockedInvocationOutcome(testCase, state, number, { functionResource });
  }
}

/**
 * A test case as a run stored it. Runs started before ranges were kept as ranges stored one answer per
 * invocation (`invocations`), which reads back as one range each.
 */
function storedTestCase(text: string): MockTestCase {
  const stored = JSON.parse(text) as {
    stateMachine: string;
    testCase: string;
    states: Record<string, MockedStateResponses | { response: string; invocations: MockedResponse[] }>;
  };
  const states: Record<string, MockedStateResponses> = {};
  for (const [state, responses] of Object.entries(stored.states)) {
    states[state] =
      'ranges' in responses
        ? responses
        : {
            response: responses.response,
            ranges: responses.invocations.map((answer, n) => ({ first: n, last: n, answer })),
          };
  }
  return { ...stored, states };
}
