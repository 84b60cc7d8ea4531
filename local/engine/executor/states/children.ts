/**
 * What Parallel and Map share: a state whose work is child frames. Every child that ends signals the
 * parent, which re-examines its children: start more (Map under MaxConcurrency), fail (aborting the
 * others), or finish with their outputs in order. Children read the parent's variables as a copy and
 * cannot write them back.
 */
import { StatesError } from '../../../../lib/errors';
import type { FrameRow } from '../../../store';
import { type ChildrenPhase, FrameRecord, type FramePosition } from '../frame';
import type { Step } from '../step';
import type { StateFailure } from '../transition';

/** A fresh child group of the step's frame (child ids are `<group>.<index>`); a retry of the state gets a new one. */
export function spawnGroup(step: Step): string {
  const pos = step.frame.pos;
  const group = `${step.frame.id}.${pos.spawns}`;
  pos.spawns += 1;
  pos.seq += 1;
  return group;
}

const positionOf = (row: FrameRow): FramePosition => JSON.parse(row.position) as FramePosition;

/** Map's failure tolerance: whether `failed` of `total` iterations is still within it. */
function tolerated(phase: ChildrenPhase, failed: number): boolean {
  if (phase.type !== 'Map') return false;
  if (failed <= (phase.toleratedFailureCount ?? -1)) return true;
  return phase.toleratedFailurePercentage !== undefined && phase.total > 0 && (failed / phase.total) * 100 <= phase.toleratedFailurePercentage;
}

/** The failure of a Parallel/Map whose children failed: the first child's, or the threshold's. */
function childrenFailure(phase: ChildrenPhase, children: FrameRow[]): StateFailure {
  if (phase.toleratedFailureCount !== undefined || phase.toleratedFailurePercentage !== undefined) {
    return { error: StatesError.ExceedToleratedFailureThreshold, cause: 'The specified tolerated failure threshold was exceeded' };
  }
  const first = children
    .filter((c) => c.status === 'FAILED')
    .map(positionOf)
    .sort((a, b) => (a.lastEventId ?? 0) - (b.lastEventId ?? 0))[0];
  // A child's Fail without Error/Cause leaves both out of the parent's failure too (AWS records `{}`).
  return { ...(first.error !== undefined ? { error: first.error } : {}), ...(first.cause !== undefined ? { cause: first.cause } : {}) };
}

/** Starts up to `room` PENDING iterations of a Map in index order. */
function startPending(step: Step, phase: ChildrenPhase, room: number): void {
  const { frame } = step;
  step.batch.touch(frame);
  for (const row of step.services.store.pendingChildren(step.run.exec.arn, phase.group, room)) {
    const child = FrameRecord.fromRow(row);
    child.status = 'RUNNING';
    child.pos.lastEventId = frame.pos.lastEventId;
    step.batch.event(child, 'MapIterationStarted', { name: frame.pos.state, index: row.item_index });
    step.batch.touch(child);
    step.fx.signals.push({ frameId: child.id, signal: { kind: 'resume' } });
  }
}

/** A Parallel/Map re-examines its children: start more, fail, or finish with their outputs. */
export async function onChildren(step: Step): Promise<void> {
  const { frame, run } = step;
  const store = step.services.store;
  const phase = frame.pos.phase as ChildrenPhase;
  const counts = store.childStatusCounts(run.exec.arn, phase.group);
  if (counts.FAILED > 0 && !tolerated(phase, counts.FAILED)) {
    const children = store.childFrames(run.exec.arn, phase.group);
    step.batch.touch(frame);
    // Running iterations are aborted with the group (unguarded: they may be mid-transition).
    for (const c of children) {
      if (c.status === 'RUNNING' && phase.type === 'Map') step.batch.event(FrameRecord.fromRow(c), 'MapIterationAborted', { name: frame.pos.state, index: c.item_index });
    }
    step.batch.abortGroup(phase.group);
    step.event(`${phase.type}StateFailed`);
    await step.recover(childrenFailure(phase, children), phase);
    await step.drive();
    return;
  }
  if (counts.PENDING > 0 && (phase.maxConcurrency === 0 || counts.RUNNING < phase.maxConcurrency)) {
    startPending(step, phase, phase.maxConcurrency === 0 ? counts.PENDING : phase.maxConcurrency - counts.RUNNING);
    return;
  }
  if (counts.RUNNING > 0 || counts.PENDING > 0) return;
  const result = store.childFrames(run.exec.arn, phase.group).map((c) => {
    const pos = positionOf(c);
    return c.status === 'SUCCEEDED' ? pos.output : { Error: pos.error, Cause: pos.cause };
  });
  step.event(`${phase.type}StateSucceeded`);
  await step.guard(() => step.exit(result));
  await step.drive();
}
