/**
 * The executor takes a run's next transition from the header and frame row its last transition wrote
 * (RunHeaders, FrameRows) instead of reading them back. A kept row may be out of date; these cases pin
 * that the run then behaves exactly as if the row had been read.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINE_DB_FILE } from '../../src/store';
import { EngineHarness, jsonata, SHARED_STORE } from '../support/engine-harness';

const waitForToken = jsonata({
  W: {
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
    Arguments: { FunctionName: 'wait', Payload: { token: '{% $states.context.Task.Token %}' } },
    Next: 'Done',
  },
  Done: { Type: 'Pass', Output: { done: true }, End: true },
});

/** The run's timer rows (kind and attempt), as the file holds them. */
function timerRows(dataDir: string, arn: string): { kind: string }[] {
  const db = new Database(join(dataDir, ENGINE_DB_FILE), { readonly: true });
  try {
    return db.prepare('SELECT kind FROM timers WHERE execution_arn = ? ORDER BY kind').all(arn) as { kind: string }[];
  } finally {
    db.close();
  }
}

describe('transitions taken from the rows the executor wrote last', () => {
  let h: EngineHarness;
  afterEach(() => h.close());

  it('a frame whose row moved on behind the executor (its revision bumped by another writer) still takes its token: the transition is computed again from the row', async () => {
    const tokens: string[] = [];
    h = await new EngineHarness({ wait: (p) => void tokens.push(p.token) }, SHARED_STORE).start();
    const arn = await h.run(await h.machine(waitForToken));
    await h.idle();
    expect(tokens).toHaveLength(1);
    const db = new Database(join(h.dataDir, ENGINE_DB_FILE));
    try {
      expect(db.prepare('UPDATE frames SET rev = rev + 1 WHERE execution_arn = ?').run(arn).changes).toBe(1);
    } finally {
      db.close();
    }
    await h.call('SendTaskSuccess', { taskToken: tokens[0], output: '{}' });
    await h.idle();
    expect(await h.describe(arn)).toMatchObject({ status: 'SUCCEEDED', output: '{"done":true}' });
  });

  it("a Task attempt's timeout is gone once its outcome is taken from the kept row, and a later wait's is armed (a frame's timers are replaced, whatever its row says of them)", async () => {
    const tokens: string[] = [];
    h = await new EngineHarness(
      { step: () => ({ ok: true }), wait: (p) => void tokens.push(p.token) },
      SHARED_STORE,
    ).start();
    const timed = jsonata({
      // TimeoutSeconds arms a task-timeout timer with the attempt; its outcome replaces the frame's timers.
      T: {
        Type: 'Task',
        Resource: 'arn:aws:lambda:us-east-1:123456789012:function:step',
        TimeoutSeconds: 3600,
        Next: 'W',
      },
      W: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
        Arguments: { FunctionName: 'wait', Payload: { token: '{% $states.context.Task.Token %}' } },
        Next: 'Untimed',
      },
      Untimed: { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:123456789012:function:step', Next: 'TimedWait' },
      TimedWait: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
        TimeoutSeconds: 60,
        Arguments: { FunctionName: 'wait', Payload: { token: '{% $states.context.Task.Token %}' } },
        End: true,
      },
    });
    const arn = await h.run(await h.machine(timed));
    await h.idle();
    expect(tokens).toHaveLength(1);
    expect(timerRows(h.dataDir, arn)).toEqual([]);
    await h.call('SendTaskSuccess', { taskToken: tokens[0], output: '{}' });
    await h.idle();
    expect(tokens).toHaveLength(2);
    expect(timerRows(h.dataDir, arn)).toEqual([{ kind: 'task-timeout' }]);
    await h.call('SendTaskSuccess', { taskToken: tokens[1], output: '{}' });
    await h.idle();
    expect(await h.describe(arn)).toMatchObject({ status: 'SUCCEEDED' });
  });
});
