import { afterEach, describe, expect, it } from 'vitest';
import { EngineHarness, jsonata, namedError } from '../support/engine-harness';

const FN = 'arn:aws:lambda:us-east-1:123456789012:function';

// Recorded on AWS (localstack tests/aws/.../context_object/test_context_object.snapshot.json and
// test_base_scenarios.snapshot.json test_lambda_invoke_with_retry_extended_input): a Pass state's
// `$$.State` is {Name, EnteredTime}; a Task with Retry also has RetryCount (0, then 1 on the retry).
describe('the context object has AWS fields', () => {
  let h: EngineHarness;
  afterEach(() => h.close());

  it('has no State.RetryCount outside a Task with Retry', async () => {
    h = await new EngineHarness().start();
    const m = await h.machine(
      jsonata({ TestState: { Type: 'Pass', Output: '{% $states.context.State %}', End: true } }),
    );
    const state = (await h.output(await h.run(m))) as Record<string, unknown>;
    expect(Object.keys(state).sort()).toEqual(['EnteredTime', 'Name']);
  });

  it('has State.RetryCount in a Task with Retry, counting the retries', async () => {
    let calls = 0;
    const seen: unknown[] = [];
    h = await new EngineHarness({
      f: (p) => {
        seen.push(p.State);
        calls += 1;
        if (calls === 1) throw namedError('Exception', 'Some exception was raised.');
        return 'ok';
      },
    }).start();
    const m = await h.machine(
      jsonata({
        InvokeLambdaWithRetry: {
          Type: 'Task',
          Resource: `${FN}:f`,
          Arguments: '{% $states.context %}',
          Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 1, MaxAttempts: 2 }],
          End: true,
        },
      }),
    );
    const arn = await h.run(m);
    await h.clock.advance(10_000);
    expect((await h.describe(arn)).status).toBe('SUCCEEDED');
    expect(seen.map((s) => (s as { RetryCount: number }).RetryCount)).toEqual([0, 1]);
  });
});
