import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { minutes } from '../../../packages/workflow/src/config/duration';
import {
  EngineHarness,
  invokeTask,
  jsonata,
  namedError,
  neverReturns,
  SHARED_STORE,
} from '../../../packages/engine/test/support/engine-harness';

/**
 * An engine is dropped (no stop: as after a crash, nothing flushed on the way out) or stopped, and a new
 * Engine on the same data dir carries every run on from its last committed transition. A dropped engine keeps
 * its connection open in this process, where a killed one's lock dies with it: the engines here share the
 * file (SHARED_STORE), and the crash tests that kill a process (restart-after-kill.test.ts) keep the default lock.
 */
describe('restart: every RUNNING execution resumes from the store', () => {
  const dirs: string[] = [];
  const engines: EngineHarness[] = [];
  const track = (h: EngineHarness) => {
    engines.push(h);
    if (!dirs.includes(h.dataDir)) dirs.push(h.dataDir);
    return h;
  };
  afterEach(async () => {
    for (const h of engines.splice(0)) await h.engine.stop().catch(() => undefined);
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  it('invokes again a Task whose result was never committed, and does not re-run finished steps', async () => {
    const first = track(
      await new EngineHarness(
        { one: () => 1, slow: (_p, { releaseClock }) => neverReturns(releaseClock) },
        SHARED_STORE,
      ).start(),
    );
    const m = await first.machine(
      jsonata({ One: invokeTask('one', { Next: 'Slow' }), Slow: invokeTask('slow', { End: true }) }),
    );
    const arn = await first.run(m);
    expect(first.count('slow')).toBe(1);
    // Dropped without stop while `slow` is in flight.
    const second = track(await first.restart({ one: () => 1, slow: () => 'done' }));
    await second.idle();
    expect(await second.describe(arn)).toMatchObject({ status: 'SUCCEEDED', output: '"done"' });
    expect([second.count('one'), second.count('slow')]).toEqual([0, 1]);
    const types = await second.eventTypes(arn);
    expect(types.filter((t) => t === 'TaskStarted')).toHaveLength(3); // One, Slow, Slow again
    expect(types.filter((t) => t === 'TaskScheduled')).toHaveLength(2);
  });

  it('keeps task-token waits waiting across a restart without invoking anything again', async () => {
    const tokens: string[] = [];
    const fns = { ask: (p: any) => void tokens.push(p.token) };
    const first = track(await new EngineHarness(fns, SHARED_STORE).start());
    const m = await first.machine(
      jsonata({
        Ask: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
          Arguments: { FunctionName: 'ask', Payload: { token: '{% $states.context.Task.Token %}' } },
          End: true,
        },
      }),
    );
    const arns = await Promise.all([1, 2, 3].map(() => first.run(m)));
    await first.engine.stop();
    const second = track(await first.restart());
    await second.idle();
    expect(second.count('ask')).toBe(0);
    await Promise.all(
      tokens.map((t, i) => second.call('SendTaskSuccess', { taskToken: t, output: JSON.stringify({ i }) })),
    );
    await second.idle();
    for (const arn of arns) expect((await second.describe(arn)).status).toBe('SUCCEEDED');
  });

  it('fires Wait timers at their original time when the engine is back before it', async () => {
    const first = track(await new EngineHarness({}, SHARED_STORE).start());
    const m = await first.machine(
      jsonata({ W: { Type: 'Wait', Seconds: 3600, Next: 'Done' }, Done: { Type: 'Succeed' } }),
    );
    const arn = await first.run(m);
    const startMs = first.clock.now();
    await first.clock.advance(minutes(10));
    const second = track(await first.restart(undefined, startMs + 20 * 60_000));
    await second.clock.advance(minutes(39));
    expect((await second.describe(arn)).status).toBe('RUNNING');
    await second.clock.advance(minutes(1));
    const exited = (await second.history(arn)).find((e) => e.type === 'WaitStateExited');
    expect(exited.timestamp * 1000 - startMs).toBe(3600_000);
    expect((await second.describe(arn)).status).toBe('SUCCEEDED');
  });

  it('fires overdue timers (waits, retry backoffs, task timeouts) late, as soon as the engine is back', async () => {
    let fails = 1;
    const fns = {
      flaky: () => {
        if (fails-- > 0) throw namedError('Blip');
        return 'ok';
      },
      ask: () => ({}),
    };
    const first = track(await new EngineHarness(fns, SHARED_STORE).start());
    const waiting = await first.machine(jsonata({ W: { Type: 'Wait', Seconds: 60, End: true } }));
    const retrying = await first.machine(
      jsonata({ T: invokeTask('flaky', { Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 30 }], End: true }) }),
    );
    const timing = await first.machine(
      jsonata({
        A: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
          TimeoutSeconds: 90,
          Arguments: { FunctionName: 'ask', Payload: {} },
          End: true,
        },
      }),
    );
    const runs = [await first.run(waiting), await first.run(retrying), await first.run(timing)];
    const downUntil = first.clock.now() + 3600_000;
    const second = track(await first.restart(fns, downUntil));
    await second.clock.advance(0);
    const statuses = await Promise.all(runs.map(async (r) => (await second.describe(r)).status));
    expect(statuses).toEqual(['SUCCEEDED', 'SUCCEEDED', 'FAILED']);
    expect(await second.describe(runs[2])).toMatchObject({ error: 'States.Timeout' });
    const late = (await second.history(runs[0])).find((e) => e.type === 'WaitStateExited');
    expect(late.timestamp * 1000).toBe(downUntil);
  });

  it('resumes Parallel branches and Map iterations: finished ones are not run again', async () => {
    let hang = true;
    const counts = { quick: 0 };
    const fns = {
      quick: (p: any) => {
        counts.quick++;
        return p;
      },
      slow: (_p: unknown, { releaseClock }: { releaseClock: () => void }) =>
        hang ? neverReturns(releaseClock) : 'slow-done',
    };
    const first = track(await new EngineHarness(fns, SHARED_STORE).start());
    const m = await first.machine(
      jsonata({
        Fan: {
          Type: 'Parallel',
          Branches: [
            {
              StartAt: 'Q',
              States: {
                Q: {
                  Type: 'Map',
                  Items: '{% [1, 2, 3] %}',
                  ItemProcessor: { StartAt: 'I', States: { I: invokeTask('quick', { End: true }) } },
                  End: true,
                },
              },
            },
            { StartAt: 'S', States: { S: invokeTask('slow', { End: true }) } },
          ],
          End: true,
        },
      }),
    );
    const arn = await first.run(m);
    expect(counts.quick).toBe(3);
    hang = false;
    const second = track(await first.restart(fns));
    await second.idle();
    expect(await second.output(arn)).toEqual([[1, 2, 3], 'slow-done']);
    expect(counts.quick).toBe(3);
  });

  it('starts the pending Map iterations after a restart without re-running finished ones (MaxConcurrency 1)', async () => {
    const seen: number[] = [];
    let hangOn = 1;
    const fns = {
      item: (p: any, { releaseClock }: { releaseClock: () => void }) => {
        seen.push(p);
        return p === hangOn ? neverReturns(releaseClock) : p * 2;
      },
    };
    const first = track(await new EngineHarness(fns, SHARED_STORE).start());
    const m = await first.machine(
      jsonata({
        Each: {
          Type: 'Map',
          Items: '{% [0, 1, 2, 3] %}',
          MaxConcurrency: 1,
          ItemProcessor: { StartAt: 'I', States: { I: invokeTask('item', { End: true }) } },
          End: true,
        },
      }),
    );
    const arn = await first.run(m);
    expect(seen).toEqual([0, 1]);
    hangOn = -1;
    const second = track(await first.restart(fns));
    await second.idle();
    expect(await second.output(arn)).toEqual([0, 2, 4, 6]);
    expect(seen).toEqual([0, 1, 1, 2, 3]);
  });

  it('drops late Task results of a stopped execution', async () => {
    let release: (v: unknown) => void = () => undefined;
    const h = track(
      await new EngineHarness({
        slow: (_p, { releaseClock }) => {
          releaseClock(); // answered by the test, after the stop
          return new Promise((r) => (release = r));
        },
        after: () => 'never',
      }).start(),
    );
    const m = await h.machine(jsonata({ S: invokeTask('slow', { Next: 'A' }), A: invokeTask('after', { End: true }) }));
    const arn = await h.run(m);
    await h.call('StopExecution', { executionArn: arn });
    release('late');
    await h.idle();
    expect((await h.describe(arn)).status).toBe('ABORTED');
    expect(h.count('after')).toBe(0);
    expect((await h.eventTypes(arn)).at(-1)).toBe('ExecutionAborted');
  });
});
