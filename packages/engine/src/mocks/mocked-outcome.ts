/**
 * The one place a mocked answer becomes a Task attempt's outcome. Mock configs (a `Return` or a `Throw`)
 * and TestState's `mock` (`result` or `errorOutput`) both come through here, so everything after it — the
 * Task's events, Retry and Catch, ResultSelector, ResultPath, OutputPath, Output and Assign — is the data
 * flow a real response takes.
 */
import { StatesError } from '@autosave/workflow/errors';
import { failure, type TaskOutcome } from '../executor/task-outcome';
import { answerOf, invocationCount, type MockedResponse, type MockTestCase } from './mock-config';

/** A mocked response as the Task's outcome: `Return` is the service's result, `Throw` the error the call failed with. */
export function mockedOutcome(response: MockedResponse): TaskOutcome {
  if ('Throw' in response) return failure(response.Throw.Error, response.Throw.Cause);
  return { ok: true, value: response.Return };
}

/**
 * The outcome of invocation `number` of a mocked state. A number the response does not define fails the
 * attempt with `States.Runtime` (which no `States.ALL` retrier or catcher takes), so the run fails naming
 * the state, the invocation and the test case, as the docs say a run whose mocked state runs out of
 * responses fails.
 */
export function mockedInvocationOutcome(
  testCase: MockTestCase,
  state: string,
  number: number,
  options: { functionResource?: boolean } = {},
): TaskOutcome {
  const responses = testCase.states[state];
  const response = responses && answerOf(responses, number);
  if (response) return options.functionResource ? functionResult(mockedOutcome(response)) : mockedOutcome(response);
  const count = responses ? invocationCount(responses) : 0;
  const defined = count > 0 ? `defines invocations 0-${count - 1}` : 'defines none';
  return failure(
    StatesError.Runtime,
    `No mocked response for invocation ${number} of state '${state}' in test case '${testCase.testCase}' of state machine '${testCase.stateMachine}': the response '${responses?.response ?? ''}' ${defined}.`,
  );
}

/**
 * A Task whose `Resource` is a function ARN gets the function's payload as its result, not the Invoke
 * response: a mocked Invoke response (`{StatusCode, Payload}`, the shape the docs give for Lambda) answers
 * with its `Payload`, as LocalStack reads it and as AWS records the real call (local_mocking
 * test_lambda_invoke: the state's output is the payload). Any other Return is the payload itself.
 */
function functionResult(outcome: TaskOutcome): TaskOutcome {
  if (!outcome.ok) return outcome;
  const value = outcome.value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, 'Payload'))
    return { ok: true, value: (value as { Payload: unknown }).Payload };
  return outcome;
}
