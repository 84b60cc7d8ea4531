/**
 * The execution input in the history as AWS records it (localstack's AWS-validated snapshots, e.g.
 * scenarios/test_base_scenarios test_map_state_legacy_config_*: input sent as `["Hello", "World"]`):
 * ExecutionStarted and the first state's Entered event carry the input text as the caller wrote it;
 * what the states produce is written as compact JSON.
 */
import { describe, expect, it } from 'vitest';
import { jsonpath } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const { harness } = recordedEngine();

describe('execution input text', () => {
  it('is kept as written in ExecutionStarted and the first Entered event, and the Exited output is compact', async () => {
    const arn = await harness.machine(
      jsonpath({ First: { Type: 'Pass', Next: 'Second' }, Second: { Type: 'Pass', End: true } }),
    );
    const text = '["Hello",  "World"]';
    const out = await harness.call('StartExecution', { stateMachineArn: arn, input: text });
    await harness.idle();
    const events = await harness.history(out.executionArn);
    expect(
      events.map(
        (e) =>
          e.executionStartedEventDetails?.input ??
          e.stateEnteredEventDetails?.input ??
          e.stateExitedEventDetails?.output,
      ),
    ).toEqual([text, text, '["Hello","World"]', '["Hello","World"]', '["Hello","World"]', undefined]);
    expect((await harness.describe(out.executionArn)).input).toBe(text);
  });
});
