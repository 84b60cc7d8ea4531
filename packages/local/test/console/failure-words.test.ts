/**
 * A failed run's error for people first (issue 30, Deliver 5): the causes below are the ones the engine gives,
 * worded as Step Functions words them (States.QueryEvaluationError: "An error occurred while executing the state
 * ..."); the headline says what went wrong in the user's terms and the raw cause stays one click away.
 */
import { describe, expect, it } from 'vitest';
import { describeFailure } from '../../src/operations';

const THREW =
  "An error occurred while executing the state 'send-renewal-email' (entered at the event id #9). The JSONata expression '\"renewal:\" & ($exists($states.input.input.contractId) ? $string($states.input.input.contractId) : $error(\"idempotency key of step 'send-renewal-email': {contractId} is missing\"))' specified for the field 'Arguments/Payload/idempotencyKey' threw an error during evaluation. D3137: idempotency key of step 'send-renewal-email': {contractId} is missing";
const NOTHING =
  "An error occurred while executing the state 'research' (entered at the event id #6). The JSONata expression '$string($states.input.input.question)' specified for the field 'Arguments/Payload/prompt' returned nothing (undefined).";

describe('failure words', () => {
  it('an expression that raised an error: its message first, the step named, no JSONata internals', () => {
    const words = describeFailure('States.QueryEvaluationError', THREW);
    expect(words.headline).toBe("idempotency key of step 'send-renewal-email': {contractId} is missing");
    expect(words.state).toBe('send-renewal-email');
    expect(words.headline).not.toMatch(/JSONata|D3137|\$exists/);
  });

  it('an expression that returned nothing: which field of which step came out empty, and what it reads', () => {
    const words = describeFailure('States.QueryEvaluationError', NOTHING);
    expect(words.headline).toBe(
      "Step 'research': Arguments/Payload/prompt came out empty; $states.input.input.question is missing",
    );
  });

  it("a function's error: its message, with its type", () => {
    const words = describeFailure(
      'States.TaskFailed',
      JSON.stringify({ errorType: 'PlantedDefect', errorMessage: 'the mail server said no', trace: ['at x'] }),
    );
    expect(words.headline).toBe('PlantedDefect: the mail server said no');
  });

  it('anything else: the error and the first line of its cause', () => {
    expect(describeFailure('States.Timeout', 'The state timed out after 30 seconds\nmore').headline).toBe(
      'States.Timeout: The state timed out after 30 seconds',
    );
    expect(describeFailure('Stopped', undefined).headline).toBe('Stopped');
  });
});
