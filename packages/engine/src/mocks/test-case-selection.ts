/**
 * Selecting a test case: StartExecution and StartSyncExecution on `<stateMachineArn>#<TestCase>` run the
 * machine under that test case of the mock config (Step Functions Local's convention). The execution's
 * ARN, and every other API, know nothing of the suffix.
 */
import { InvalidName } from '../service-errors';
import type { MockTestCase, MockTestCases } from './mock-config';

/** A `stateMachineArn` request field split into the ARN and the test case after `#`, if any. */
export function splitTestCase(stateMachineArn: string): {
  readonly stateMachineArn: string;
  readonly testCase?: string;
} {
  const hash = stateMachineArn.indexOf('#');
  if (hash < 0) return { stateMachineArn };
  return { stateMachineArn: stateMachineArn.slice(0, hash), testCase: stateMachineArn.slice(hash + 1) };
}

/**
 * The test case a start asked for. None found (not defined, or no valid mock config loaded) is
 * `InvalidName` in LocalStack's words, which name the case and the machine.
 */
export function requireTestCase(
  mocks: MockTestCases | undefined,
  stateMachine: string,
  testCase: string,
): MockTestCase {
  const found = mocks?.testCase(stateMachine, testCase);
  if (found) return found;
  throw new InvalidName(
    `Invalid mock test case name '${testCase}' for state machine '${stateMachine}'.Either the test case is not defined or the mock configuration file could not be loaded. See logs for details.`,
  );
}
