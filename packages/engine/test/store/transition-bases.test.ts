/**
 * A transition's write starts from its run's base (the run's number, its status, how many events its
 * history holds). The store keeps the base its own last write of a run left, instead of reading the row
 * and seeking the history again; these cases pin that the kept base never outlives what the file holds:
 * event ids stay gapless and in order (AWS numbers a run's events 1, 2, 3, …), a closed run takes no
 * more transitions, and a run started again under a swept ARN writes its own history.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BatchFrame, EngineStore, StaleTransitionError, TransitionBatch } from '../../src/store';
import { executionRowOf } from '../support/execution-row';

const ARN = 'arn:aws:states:us-east-1:123456789012:execution:m:run';

/** A batch of `types` as execution-level events (each chained after the one before). */
function batchOf(arn: string, ...types: string[]): TransitionBatch {
  const batch = new TransitionBatch(arn, () => 0);
  for (const type of types) batch.event(null, type);
  return batch;
}

describe("the transition base a run's next write starts from", () => {
  let dir: string;
  let store: EngineStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'transition-bases-'));
    store = new EngineStore(dir);
  });
  afterEach(async () => {
    store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const start = (arn = ARN) =>
    store.committer.commit(() => {
      const row = executionRowOf(arn);
      store.insertExecution(row);
      batchOf(arn, 'ExecutionStarted').write(store, row);
    });
  const ids = (arn = ARN) => store.historyPage(arn, 'ASC', 0, 100).map((e) => [e.id, e.type, e.previous_id]);

  it('numbers the events after a write that was rolled back as if it never happened (its savepoint undone)', async () => {
    await start();
    await Promise.allSettled([
      store.committer.commit(() => {
        batchOf(ARN, 'TaskStateEntered', 'TaskScheduled').write(store);
        throw new Error('the rest of this write failed');
      }),
      store.committer.commit(() => batchOf(ARN, 'PassStateEntered').write(store)),
    ]);
    await store.committer.commit(() => batchOf(ARN, 'PassStateExited').write(store));
    expect(ids()).toEqual([
      [1, 'ExecutionStarted', 0],
      [2, 'PassStateEntered', 1],
      [3, 'PassStateExited', 2],
    ]);
  });

  it('numbers the events after a lone write that was rolled back (its transaction undone) from the file', async () => {
    await start();
    await expect(
      store.committer.commit(() => {
        batchOf(ARN, 'TaskStateEntered').write(store);
        throw new Error('the rest of this write failed');
      }),
    ).rejects.toThrow(/failed/);
    await store.committer.commit(() => batchOf(ARN, 'PassStateEntered').write(store));
    expect(ids()).toEqual([
      [1, 'ExecutionStarted', 0],
      [2, 'PassStateEntered', 1],
    ]);
  });

  it('takes no transition of a run after its close, and one again after a redrive reopened it', async () => {
    await start();
    const close = batchOf(ARN, 'ExecutionFailed');
    close.closeExecution({ status: 'FAILED', error: 'E' });
    await store.committer.commit(() => close.write(store));
    await expect(store.committer.commit(() => batchOf(ARN, 'PassStateEntered').write(store))).rejects.toThrow(
      StaleTransitionError,
    );
    await store.committer.commit(() => {
      store.reopenForRedrive(ARN, 1, null);
      batchOf(ARN, 'ExecutionRedriven').write(store);
    });
    await store.committer.commit(() => batchOf(ARN, 'PassStateEntered').write(store));
    expect(ids().map(([id, type]) => [id, type])).toEqual([
      [1, 'ExecutionStarted'],
      [2, 'ExecutionFailed'],
      [3, 'ExecutionRedriven'],
      [4, 'PassStateEntered'],
    ]);
  });

  it('writes the history of a run started again under the ARN of a deleted one as its own, from event 1', async () => {
    await start();
    await store.committer.commit(() => batchOf(ARN, 'PassStateEntered').write(store));
    await store.committer.commit(() => store.deleteExecution(ARN));
    // The ARN's new run, its start written as a plain batch (no row handed over): its base is read afresh.
    await store.committer.commit(() => store.insertExecution(executionRowOf(ARN)));
    await store.committer.commit(() => batchOf(ARN, 'ExecutionStarted').write(store));
    expect(ids()).toEqual([[1, 'ExecutionStarted', 0]]);
  });

  it("threads a frame's events as if written once when its group was rolled back whole and written again (another write in it threw)", async () => {
    const other = `${ARN}-other`;
    await Promise.all([start(), start(other)]);
    // A new frame of the run, its events chained after the start: written in a group with a write that throws.
    const frame: BatchFrame = {
      executionArn: ARN,
      id: 'r',
      parentId: null,
      itemIndex: 0,
      status: 'RUNNING',
      pos: { seq: 0, lastEventId: 1 },
      baseRev: null,
    };
    const batch = new TransitionBatch(ARN, () => 0, 1);
    batch.event(frame, 'PassStateEntered');
    batch.event(frame, 'PassStateExited');
    batch.touch(frame);
    const stale = batchOf(other, 'PassStateEntered');
    stale.closeExecution({ status: 'FAILED' });
    await store.committer.commit(() => stale.write(store), { rerunnable: true });
    const outcomes = await Promise.allSettled([
      store.committer.commit(() => batch.write(store), { rerunnable: true }),
      // The other run is closed: this write throws StaleTransitionError, and the group is written again.
      store.committer.commit(() => batchOf(other, 'PassStateExited').write(store), { rerunnable: true }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    expect(store.committer.rewrites).toBe(1);
    expect(ids()).toEqual([
      [1, 'ExecutionStarted', 0],
      [2, 'PassStateEntered', 1],
      [3, 'PassStateExited', 2],
    ]);
    expect(frame.pos).toMatchObject({ lastEventId: 3, enteredEventId: 2, enteredPreviousEventId: 1 });
  });
});
