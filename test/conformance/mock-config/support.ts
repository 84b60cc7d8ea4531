/**
 * The mock-config conformance cases' shared material: the developer guide's example (the machine
 * LambdaSQSIntegration and its MockConfigFile, sfn-local-test-sm-exec.html), and an engine that serves a
 * mock config that a test may replace.
 */
import { MockConfig, type MockTestCase, type MockTestCases } from '../../../packages/engine/src/mocks';
import { recordedEngine } from '../support/recorded-run';
import type { TestFunction } from '../../../packages/engine/test/support/engine-harness';

/** The guide's machine: a Lambda Task retried on States.ALL (MaxAttempts 3), then an SQS Task. */
export const LAMBDA_SQS_INTEGRATION = {
  Comment: 'This state machine is called: LambdaSQSIntegration',
  StartAt: 'LambdaState',
  States: {
    LambdaState: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { 'Payload.$': '$', FunctionName: 'HelloWorldFunction' },
      Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 2, MaxAttempts: 3, BackoffRate: 2 }],
      Next: 'SQSState',
    },
    SQSState: {
      Type: 'Task',
      Resource: 'arn:aws:states:::sqs:sendMessage',
      Parameters: { QueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/myQueue', 'MessageBody.$': '$' },
      End: true,
    },
  },
};

const LAMBDA_SUCCESS = { StatusCode: 200, Payload: { StatusCode: 200, body: 'Hello from Lambda!' } };

/** The guide's MockConfigFile for it: HappyPath, RetryPath and HybridPath. */
export const GUIDE_MOCK_CONFIG = {
  StateMachines: {
    LambdaSQSIntegration: {
      TestCases: {
        HappyPath: { LambdaState: 'MockedLambdaSuccess', SQSState: 'MockedSQSSuccess' },
        RetryPath: { LambdaState: 'MockedLambdaRetry', SQSState: 'MockedSQSSuccess' },
        HybridPath: { LambdaState: 'MockedLambdaSuccess' },
      },
    },
  },
  MockedResponses: {
    MockedLambdaSuccess: { '0': { Return: LAMBDA_SUCCESS } },
    LambdaMockedResourceNotReady: {
      '0': { Throw: { Error: 'Lambda.ResourceNotReadyException', Cause: 'Lambda resource is not ready.' } },
    },
    MockedSQSSuccess: {
      '0': {
        Return: {
          MD5OfMessageBody: '3bcb6e8e-7h85-4375-b0bc-1a59812c6e51',
          MessageId: '3bcb6e8e-8b51-4375-b0bc-1a59812c6e51',
        },
      },
    },
    MockedLambdaRetry: {
      '0': { Throw: { Error: 'Lambda.ResourceNotReadyException', Cause: 'Lambda resource is not ready.' } },
      '1-2': { Throw: { Error: 'Lambda.TimeoutException', Cause: 'Lambda timed out.' } },
      '3': { Return: LAMBDA_SUCCESS },
    },
  },
};

/** A mock config source whose config a test sets (`use`) before it starts a run. */
export class SwitchableMockConfig implements MockTestCases {
  private config?: MockConfig;

  use(config: object): void {
    this.config = MockConfig.from(config);
  }

  /** The warnings of starts under test cases that mock states their machine does not have. */
  readonly unknownStates: { testCase: string; states: readonly string[] }[] = [];

  testCase(stateMachine: string, testCase: string) {
    return this.config?.testCase(stateMachine, testCase);
  }

  mocksUnknownStates(testCase: MockTestCase, states: readonly string[]): void {
    this.unknownStates.push({ testCase: testCase.testCase, states });
  }
}

/** A conformance engine serving `mocks` (and `functions` as the Lambdas of un-mocked calls). */
export function mockedEngine(
  mocks: SwitchableMockConfig,
  functions: Record<string, TestFunction> = {},
  options: { express?: boolean } = {},
) {
  return recordedEngine(functions, { ...options, engine: { mockConfig: mocks } });
}

/** A one-state-machine mock config: `states` (state -> response name) as test case `testCase` of `machine`. */
export function oneCase(
  machine: string,
  testCase: string,
  states: Record<string, string>,
  responses: Record<string, object>,
): object {
  return { StateMachines: { [machine]: { TestCases: { [testCase]: states } } }, MockedResponses: responses };
}

/** A machine name no other case uses (mock configs are keyed by the machine's name). */
export const uniqueName = (prefix: string): string => `${prefix}${Math.floor(Math.random() * 1e9)}`;
