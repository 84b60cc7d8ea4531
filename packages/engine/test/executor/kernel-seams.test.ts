import { afterEach, describe, expect, it } from 'vitest';
import { days } from '@autosave/workflow/config';
import { EngineHarness, invokeTask, jsonata, jsonpath } from '../support/engine-harness';

/** A Map over `$.items` whose iterations fail on the item "bad" and pass the others through. */
const mapOver = (limits: object) => ({
  Type: 'Map',
  ItemsPath: '$.items',
  ItemProcessor: {
    StartAt: 'Check',
    States: {
      Check: { Type: 'Choice', Choices: [{ Variable: '$', StringEquals: 'bad', Next: 'Bad' }], Default: 'Good' },
      Bad: { Type: 'Fail', Error: 'BadItem', Cause: 'a bad item' },
      Good: { Type: 'Pass', End: true },
    },
  },
  ...limits,
  End: true,
});

describe('the kernel wires the data flow seams', () => {
  let h: EngineHarness;
  afterEach(() => h.close());

  it('MaxConcurrencyPath takes effect: with 1, each iteration starts only after the one before it ended', async () => {
    h = await new EngineHarness().start();
    const m = await h.machine(jsonpath({ Each: mapOver({ MaxConcurrencyPath: '$.limit' }) }));
    const arn = await h.run(m, { items: ['a', 'b', 'c'], limit: 1 });
    expect((await h.describe(arn)).status).toBe('SUCCEEDED');
    const iterationEvents = (await h.history(arn))
      .filter((e) => e.type.startsWith('MapIteration'))
      .map(
        (e) => `${e.type}:${e.mapIterationStartedEventDetails?.index ?? e.mapIterationSucceededEventDetails?.index}`,
      );
    expect(iterationEvents).toEqual([
      'MapIterationStarted:0',
      'MapIterationSucceeded:0',
      'MapIterationStarted:1',
      'MapIterationSucceeded:1',
      'MapIterationStarted:2',
      'MapIterationSucceeded:2',
    ]);
  });

  it.each([
    ['ToleratedFailureCountPath', { ToleratedFailureCountPath: '$.tolerate' }, { tolerate: 1 }],
    ['ToleratedFailurePercentagePath', { ToleratedFailurePercentagePath: '$.tolerate' }, { tolerate: 50 }],
  ])('%s takes effect: a failed iteration within the tolerance lets the Map succeed', async (_name, limits, input) => {
    h = await new EngineHarness().start();
    const m = await h.machine(jsonpath({ Each: mapOver(limits) }));
    const arn = await h.run(m, { items: ['a', 'bad', 'c'], ...input });
    expect(await h.describe(arn)).toMatchObject({ status: 'SUCCEEDED' });
    expect(await h.output(arn)).toEqual(['a', { Error: 'BadItem', Cause: 'a bad item' }, 'c']);
  });

  it('a JSONata MaxConcurrency expression takes effect', async () => {
    h = await new EngineHarness().start();
    const m = await h.machine(
      jsonata({
        Each: {
          Type: 'Map',
          Items: '{% $states.input.items %}',
          MaxConcurrency: '{% $states.input.limit %}',
          ItemProcessor: { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } },
          End: true,
        },
      }),
    );
    const arn = await h.run(m, { items: [1, 2], limit: 1 });
    const types = (await h.eventTypes(arn)).filter((t) => t.startsWith('MapIteration'));
    expect(types).toEqual([
      'MapIterationStarted',
      'MapIterationSucceeded',
      'MapIterationStarted',
      'MapIterationSucceeded',
    ]);
  });

  it('$now() and $millis() read the engine clock: on a virtual clock they give virtual time', async () => {
    h = await new EngineHarness().start();
    const m = await h.machine(
      jsonata({
        Later: { Type: 'Wait', Seconds: 86_400, Next: 'Now' },
        Now: { Type: 'Pass', Output: { now: '{% $now() %}', millis: '{% $millis() %}' }, End: true },
      }),
    );
    const started = h.clock.now();
    const arn = await h.run(m);
    await h.clock.advance(days(1));
    expect(await h.output(arn)).toEqual({
      now: new Date(started + 86_400_000).toISOString(),
      millis: started + 86_400_000,
    });
  });

  it('a Lambda in flight holds virtual time: a timer cannot fire before its result is committed, however slow the Lambda', async () => {
    // A second of wall time stands for a Lambda on a loaded machine (longer than any settle guess the engine could make).
    h = await new EngineHarness({
      slow: () => new Promise((resolve) => setTimeout(() => resolve({ done: true }), 1_000)),
    }).start();
    const m = await h.machine(
      jsonata({
        Both: {
          Type: 'Parallel',
          Branches: [
            { StartAt: 'Call', States: { Call: invokeTask('slow', { End: true }) } },
            { StartAt: 'Pause', States: { Pause: { Type: 'Wait', Seconds: 1, End: true } } },
          ],
          End: true,
        },
      }),
    );
    const arn = await h.run(m);
    await h.clock.advance(5_000);
    expect((await h.describe(arn)).status).toBe('SUCCEEDED');
    const types = await h.eventTypes(arn);
    expect(types.indexOf('TaskSucceeded')).toBeGreaterThan(-1);
    expect(types.indexOf('TaskSucceeded')).toBeLessThan(types.indexOf('WaitStateExited'));
  });
});
