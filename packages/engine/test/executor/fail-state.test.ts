import { afterEach, describe, expect, it } from 'vitest';
import { EngineHarness, jsonpath } from '../support/engine-harness';

// Recorded on AWS (localstack tests/aws/.../test_base_scenarios.snapshot.json: test_state_fail_empty,
// test_map_state_catch_empty_fail): ExecutionFailed carries `{}` and DescribeExecution has no error/cause.
describe('a Fail state without Error and Cause', () => {
  let h: EngineHarness;
  afterEach(() => h.close());

  it('leaves both out of ExecutionFailed and DescribeExecution (not "")', async () => {
    h = await new EngineHarness().start();
    const m = await h.machine(jsonpath({ Stop: { Type: 'Fail' } }));
    const arn = await h.run(m);
    const described = await h.describe(arn);
    expect(described.status).toBe('FAILED');
    expect(described).not.toHaveProperty('error');
    expect(described).not.toHaveProperty('cause');
    const failed = (await h.history(arn)).at(-1);
    expect(failed.type).toBe('ExecutionFailed');
    expect(failed.executionFailedEventDetails).toEqual({});
  });

  it('inside a Map iteration, leaves both out of the Map failure and the run failure', async () => {
    h = await new EngineHarness().start();
    const m = await h.machine(
      jsonpath({
        MapState: { Type: 'Map', ItemProcessor: { StartAt: 'Stop', States: { Stop: { Type: 'Fail' } } }, End: true },
      }),
    );
    const arn = await h.run(m, [1]);
    const types = await h.eventTypes(arn);
    expect(types.slice(-4)).toEqual(['FailStateEntered', 'MapIterationFailed', 'MapStateFailed', 'ExecutionFailed']);
    expect((await h.history(arn)).at(-1).executionFailedEventDetails).toEqual({});
    expect(await h.describe(arn)).not.toHaveProperty('error');
  });
});
