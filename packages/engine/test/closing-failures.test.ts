/**
 * A run never stays RUNNING because its close could not be written: packing the history (space only) that
 * fails leaves the events as rows and the run closes; StopExecution stops the run or answers an error, never
 * a stop that changed nothing; a transition that cannot be written twice fails the run with States.Runtime
 * and the error as its cause.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HISTORY_EVENT_LIMIT } from '../../workflow/src/config/constants';
import { EngineStore, HISTORY_LIMIT_FAILURE, TransitionBatch } from '../src/store';
import { EngineHarness, invokeTask, jsonata, jsonpath } from './support/engine-harness';

const waitForever = jsonpath({ W: { Type: 'Wait', Seconds: 86_400, Next: 'P' }, P: { Type: 'Pass', End: true } });

describe('failures while closing a run', () => {
  let h: EngineHarness | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await h?.close();
    h = undefined;
  });

  it('a history that cannot be packed stays as rows: the run closes SUCCEEDED and its history reads whole', async () => {
    h = await new EngineHarness({}).start();
    vi.spyOn(EngineStore.prototype as unknown as { packSegments: () => void }, 'packSegments').mockImplementation(
      () => {
        throw new RangeError('Invalid string length');
      },
    );
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const exec = await h.run(
      await h.machine(jsonpath({ A: { Type: 'Pass', Next: 'B' }, B: { Type: 'Pass', End: true } })),
      { a: 1 },
    );
    expect(await h.describe(exec)).toMatchObject({ status: 'SUCCEEDED' });
    expect(await h.eventTypes(exec)).toEqual([
      'ExecutionStarted',
      'PassStateEntered',
      'PassStateExited',
      'PassStateEntered',
      'PassStateExited',
      'ExecutionSucceeded',
    ]);
  });

  it('StopExecution stops a run whose history cannot be packed', async () => {
    h = await new EngineHarness({}).start();
    vi.spyOn(EngineStore.prototype as unknown as { packSegments: () => void }, 'packSegments').mockImplementation(
      () => {
        throw new RangeError('Invalid string length');
      },
    );
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const exec = await h.run(await h.machine(waitForever), {});
    await h.call('StopExecution', { executionArn: exec, error: 'Stopped', cause: 'by the test' });
    expect(await h.describe(exec)).toMatchObject({ status: 'ABORTED' });
    expect((await h.eventTypes(exec)).at(-1)).toBe('ExecutionAborted');
  });

  it('a closing transition that cannot be written fails the run with States.Runtime, the error in its cause', async () => {
    h = await new EngineHarness({}).start();
    vi.spyOn(EngineStore.prototype, 'deleteFrames').mockImplementation(() => {
      throw new Error('disk I/O error');
    });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const exec = await h.run(
      await h.machine(jsonpath({ W: { Type: 'Wait', Seconds: 1, Next: 'A' }, A: { Type: 'Pass', End: true } })),
      {},
    );
    await h.clock.advance(2_000);
    await h.idle();
    const described = await h.describe(exec);
    expect(described).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    expect(described.cause).toContain('disk I/O error');
    expect((await h.eventTypes(exec)).at(-1)).toBe('ExecutionFailed');
  });

  it('StopExecution stops a run waiting at 24,999 events: event 25,000 closes it', async () => {
    h = await new EngineHarness({ echo: (p) => p }).start();
    // ExecutionStarted (1) + a Lambda Task (5) + 6,248 turns of Pass and Choice (4 each) + WaitStateEntered (1) = 24,999.
    const turns = (HISTORY_EVENT_LIMIT - 1 - 1 - 5 - 1) / 4;
    const exec = await h.run(
      await h.machine(
        jsonata({
          Call: invokeTask('echo', { Next: 'Spin' }),
          Spin: { Type: 'Pass', Assign: { n: '{% ($exists($n) ? $n : 0) + 1 %}' }, Next: 'Again' },
          Again: { Type: 'Choice', Choices: [{ Condition: `{% $n < ${turns} %}`, Next: 'Spin' }], Default: 'Hold' },
          Hold: { Type: 'Wait', Seconds: 86_400, End: true },
        }),
      ),
      {},
    );
    const [before] = (await h.call('GetExecutionHistory', { executionArn: exec, reverseOrder: true, maxResults: 1 }))
      .events;
    expect(before).toMatchObject({ id: HISTORY_EVENT_LIMIT - 1, type: 'WaitStateEntered' });
    const answer = await h.call('StopExecution', { executionArn: exec, error: 'Stopped', cause: 'by the test' });
    const described = await h.describe(exec);
    expect(described.status).not.toBe('RUNNING');
    expect(answer.stopDate).toEqual(described.stopDate);
    // At 24,999 events only ExecutionSucceeded may be the 25,000th (history-limit.test.ts): the run closes
    // with the limit's failure, as any other event at that point would close it.
    expect(described).toMatchObject({ status: 'FAILED', ...HISTORY_LIMIT_FAILURE });
    const [last] = (await h.call('GetExecutionHistory', { executionArn: exec, reverseOrder: true, maxResults: 1 }))
      .events;
    expect(last).toMatchObject({ id: HISTORY_EVENT_LIMIT, type: 'ExecutionFailed' });
    // Stopping it again changes nothing and answers the same stop date.
    expect((await h.call('StopExecution', { executionArn: exec })).stopDate).toEqual(described.stopDate);
  });

  it('StopExecution during a close that cannot be written: the run ends closed, with one closing event', async () => {
    h = await new EngineHarness({}).start();
    vi.spyOn(EngineStore.prototype, 'deleteFrames').mockImplementation(() => {
      throw new Error('disk I/O error');
    });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const exec = await h.run(
      await h.machine(jsonpath({ W: { Type: 'Wait', Seconds: 1, Next: 'A' }, A: { Type: 'Pass', End: true } })),
      {},
    );
    // The timer fires and the close is being written (and failing) while the stop arrives.
    const advancing = h.clock.advance(2_000);
    const stopping = h.call('StopExecution', { executionArn: exec, error: 'Stopped' });
    await advancing;
    await h.idle();
    await expect(stopping).resolves.toHaveProperty('stopDate');
    const described = await h.describe(exec);
    expect(['ABORTED', 'FAILED']).toContain(described.status);
    const closing = (await h.eventTypes(exec)).filter((t) => /^Execution(Succeeded|Failed|Aborted|TimedOut)$/.test(t));
    expect(closing).toHaveLength(1);
  });

  it("a store failure that outlasts the transition's two tries and the first try to fail the run still ends the run FAILED, the error recorded", async () => {
    h = await new EngineHarness({}).start();
    const write = TransitionBatch.prototype.write;
    let failures = 0;
    vi.spyOn(TransitionBatch.prototype, 'write').mockImplementation(function (this: TransitionBatch, store) {
      // The Wait's timer transition and the writes after it fail three times in a row, then the store recovers.
      if (failures < 3 && this.executionArn === target) {
        failures++;
        throw new Error('disk I/O error');
      }
      return write.call(this, store);
    });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    let target = '';
    const exec = await h.run(
      await h.machine(jsonpath({ W: { Type: 'Wait', Seconds: 1, Next: 'A' }, A: { Type: 'Pass', End: true } })),
      {},
    );
    target = exec;
    await h.clock.advance(2_000);
    await h.idle();
    const described = await h.describe(exec);
    expect(failures).toBe(3);
    expect(described).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    expect(described.cause).toContain('disk I/O error');
  });
});
