/**
 * A restart resumes the runs it finds in flight a batch per turn of the event loop (RESUMED_FRAMES_PER_TURN),
 * so that the API answers between batches instead of after every run was read and routed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RESUMED_FRAMES_PER_TURN, successiveTurns } from '../src/executor/executor';
import { EngineHarness, invokeTask, jsonata, neverReturns } from './support/engine-harness';

const RUNS = 3 * RESUMED_FRAMES_PER_TURN;

describe('recovery after a restart', () => {
  const engines: EngineHarness[] = [];
  afterEach(async () => {
    for (const h of engines.splice(0)) await h.engine.stop();
  });

  /** An engine stopped with RUNS runs in flight in a Task whose function had not answered. */
  async function runsLeftInFlight(): Promise<{ h: EngineHarness; machine: string }> {
    const h = await new EngineHarness({ slow: (_, { releaseClock }) => neverReturns(releaseClock) }).start();
    const machine = await h.machine(jsonata({ Slow: invokeTask('slow', { End: true }) }));
    for (let i = 0; i < RUNS; i += 1) await h.call('StartExecution', { stateMachineArn: machine, input: '{}' });
    await h.idle();
    expect(h.count('slow')).toBe(RUNS);
    await h.engine.stop();
    return { h, machine };
  }

  it('answers the API while it resumes the runs it found in flight, not only before or after all of them', async () => {
    const { h, machine } = await runsLeftInFlight();
    let invoked = 0;
    const after = await h.restart({
      slow: (payload) => {
        invoked += 1;
        return payload;
      },
    });
    engines.push(after);
    // An API call a turn of the event loop (as requests come in over the port) while the runs resume: how many
    // runs had been invoked again at each answer.
    const seenAtAnswers: number[] = [];
    while (invoked < RUNS) {
      await new Promise((resolve) => setImmediate(resolve));
      await after.call('DescribeStateMachine', { stateMachineArn: machine });
      seenAtAnswers.push(invoked);
    }
    await after.idle();
    expect(invoked).toBe(RUNS);
    expect(seenAtAnswers.some((n) => n > 0 && n < RUNS)).toBe(true);
    await h.close();
  });

  it('runs no batch in the first turn of the event loop: a request accepted in it is read and answered first', async () => {
    // Node reads a connection's request one turn after it accepts it: a client that waited at the port while
    // the store opened is accepted in the turn the resumption starts, and a batch in that turn came before it.
    let turnsSeen = 0;
    const countTurns = () => {
      turnsSeen += 1;
      if (turnsSeen < 4) setImmediate(countTurns);
    };
    setImmediate(countTurns);
    const [firstBatch] = successiveTurns(1);
    await firstBatch;
    expect(turnsSeen).toBe(2);
  });
});
