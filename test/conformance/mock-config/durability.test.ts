/**
 * A mocked run is as durable as any other: its test case and its invocation counter are part of the run's
 * state in the store, so after an engine restart (even one without any mock config) it carries on with
 * the next number of the test case it started with.
 */
import { describe, expect, it } from 'vitest';
import { MockConfig } from '../../../packages/engine/src/mocks';
import { VirtualClock } from '../../../packages/engine/src';
import { EngineHarness, jsonpath } from '../../../packages/engine/test/support/engine-harness';
import { oneCase } from './support';

describe('mocked runs across an engine restart', () => {
  it('a retry after a restart without mock config takes the next number of the test case the run started with', async () => {
    const config = MockConfig.from(
      oneCase(
        'Durable',
        'Retry',
        { Call: 'Flaky' },
        {
          Flaky: {
            '0': { Throw: { Error: 'Busy', Cause: 'first' } },
            '1': { Throw: { Error: 'Busy', Cause: 'second' } },
            '2': { Return: { Payload: 'third' } },
          },
        },
      ),
    );
    const first = await new EngineHarness({}, { mockConfig: config }).start();
    const def = jsonpath({
      Call: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { FunctionName: 'f' },
        Retry: [{ ErrorEquals: ['Busy'], IntervalSeconds: 60, MaxAttempts: 3 }],
        OutputPath: '$.Payload',
        End: true,
      },
    });
    const arn = await first.machine(def, 'Durable');
    const exec = await first.run(`${arn}#Retry`, {});
    await first.engine.stop();
    // No mock config at all now: the run's own test case and counter come from the store.
    const second = await new EngineHarness({}, { clock: new VirtualClock(first.clock.now()) }).start(first.dataDir);
    try {
      for (let i = 0; i < 3; i++) {
        await second.clock.advance(60_000 * 2 ** i);
        await second.idle();
      }
      expect(await second.output(exec)).toBe('third');
      const causes = (await second.history(exec))
        .filter((e) => e.type === 'TaskFailed')
        .map((e) => e.taskFailedEventDetails.cause);
      expect(causes).toEqual(['first', 'second']);
    } finally {
      await second.close();
    }
  });
});
