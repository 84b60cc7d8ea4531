/**
 * Parallel and Map: a state whose work is child frames. Starting one spawns its children (each branch,
 * each item — iterations beyond MaxConcurrency wait as PENDING rows); every child that ends signals the
 * parent, which re-examines its children: start more, fail (aborting the others), or finish with their
 * outputs in order. Children read the parent's variables as a copy and cannot write them back.
 */
import { StatesError } from '../../../lib/errors';
import type { Clock } from '../../../lib/config';
import type { EngineStore, FrameRow } from '../../store';
import type { EvaluationScope, StateDataFlow, StateDefinition } from '../dataflow';
import { MAP_ITEMS } from './definition-tree';
import { type ChildrenPhase, FrameRecord, type FramePosition, type Phase, type TimerKind } from './frame';
import { type ClosedResume, ENTER, type Effects, type Run, type StateFailure, toFailure } from './transition';
import type { TransitionBatch } from '../../store';

/** What Parallel/Map orchestration uses of the executor. */
export interface TransitionHost {
  readonly store: EngineStore;
  readonly clock: Clock;
  scope(run: Run, frame: FrameRecord, extra?: Partial<EvaluationScope> & { mapItem?: { index: number; value: unknown } }): EvaluationScope;
  flowOf(run: Run, state: StateDefinition): StateDataFlow;
  stateOf(run: Run, frame: FrameRecord): StateDefinition;
  setPhase(frame: FrameRecord, batch: TransitionBatch, fx: Effects, phase: Phase, timers?: { kind: TimerKind; dueMs: number }[]): void;
  exitState(run: Run, frame: FrameRecord, batch: TransitionBatch, fx: Effects, state: StateDefinition, flow: StateDataFlow, result: unknown): Promise<void>;
  stateFailed(run: Run, frame: FrameRecord, batch: TransitionBatch, fx: Effects, state: StateDefinition, failure: StateFailure, resume: ClosedResume): Promise<void>;
  drive(run: Run, frame: FrameRecord, batch: TransitionBatch, fx: Effects): Promise<void>;
}

/** A fresh child group of `frame` (child ids are `<group>.<index>`); a retry of the state gets a new one. */
function spawnGroup(frame: FrameRecord): string {
  const group = `${frame.id}.${frame.pos.spawns}`;
  frame.pos.spawns += 1;
  frame.pos.seq += 1;
  return group;
}

function childFrame(
  host: TransitionHost,
  parent: FrameRecord,
  group: string,
  index: number,
  status: 'RUNNING' | 'PENDING',
  pos: Pick<FramePosition, 'path' | 'state' | 'input'> & { mapItem?: FramePosition['mapItem'] },
): FrameRecord {
  const position: FramePosition = {
    ...pos,
    variables: { ...parent.pos.variables },
    phase: { kind: 'enter' },
    retries: [],
    retryCount: 0,
    enteredMs: host.clock.now(),
    seq: 0,
    spawns: 0,
  };
  return new FrameRecord(parent.executionArn, `${group}.${index}`, group, index, status, position, null, parent);
}

/** Starts a Parallel state's branches, all at once, on its effective input. */
export async function startParallel(host: TransitionHost, run: Run, frame: FrameRecord, batch: TransitionBatch, fx: Effects, state: StateDefinition): Promise<void> {
  const input = await host.flowOf(run, state).effectiveInput(state, host.scope(run, frame));
  const branches = state.Branches as { StartAt: string }[];
  const group = spawnGroup(frame);
  batch.event(frame, 'ParallelStateStarted');
  host.setPhase(frame, batch, fx, { kind: 'children', type: 'Parallel', group, total: branches.length, maxConcurrency: 0 });
  branches.forEach((branch, i) => {
    const child = childFrame(host, frame, group, i, 'RUNNING', { path: [...frame.pos.path, frame.pos.state, i], state: branch.StartAt, input });
    batch.touch(child);
    fx.signals.push({ frameId: child.id, signal: { kind: 'resume' } });
  });
  if (branches.length === 0) fx.signals.push({ frameId: frame.id, signal: { kind: 'resume' } });
}

/** Starts a Map state's iterations: up to MaxConcurrency now, the rest as PENDING rows. */
export async function startMap(host: TransitionHost, run: Run, frame: FrameRecord, batch: TransitionBatch, fx: Effects, state: StateDefinition): Promise<void> {
  const flow = host.flowOf(run, state);
  const items = await flow.mapItems(state, host.scope(run, frame));
  const inputs: unknown[] = [];
  for (let index = 0; index < items.length; index++) {
    inputs.push(await flow.mapItemInput(state, host.scope(run, frame, { mapItem: { index, value: items[index] } })));
  }
  const processor = (state.ItemProcessor ?? state.Iterator) as { StartAt: string };
  const maxConcurrency = typeof state.MaxConcurrency === 'number' ? state.MaxConcurrency : 0;
  const group = spawnGroup(frame);
  batch.event(frame, 'MapStateStarted', { length: items.length });
  host.setPhase(frame, batch, fx, {
    kind: 'children',
    type: 'Map',
    group,
    total: items.length,
    maxConcurrency,
    ...(typeof state.ToleratedFailureCount === 'number' ? { toleratedFailureCount: state.ToleratedFailureCount } : {}),
    ...(typeof state.ToleratedFailurePercentage === 'number' ? { toleratedFailurePercentage: state.ToleratedFailurePercentage } : {}),
  });
  inputs.forEach((input, index) => {
    const startNow = maxConcurrency === 0 || index < maxConcurrency;
    const child = childFrame(host, frame, group, index, startNow ? 'RUNNING' : 'PENDING', {
      path: [...frame.pos.path, frame.pos.state, MAP_ITEMS],
      state: processor.StartAt,
      input,
      mapItem: { index, value: items[index] },
    });
    batch.touch(child);
    if (startNow) {
      batch.event(child, 'MapIterationStarted', { name: frame.pos.state, index });
      fx.signals.push({ frameId: child.id, signal: { kind: 'resume' } });
    }
  });
  if (items.length === 0) fx.signals.push({ frameId: frame.id, signal: { kind: 'resume' } });
}

const positionOf = (row: FrameRow): FramePosition => JSON.parse(row.position) as FramePosition;

/** A Parallel/Map re-examines its children: start more, fail, or finish with their outputs. */
export async function onChildren(host: TransitionHost, run: Run, frame: FrameRecord, batch: TransitionBatch, fx: Effects): Promise<void> {
  const phase = frame.pos.phase as ChildrenPhase;
  const state = host.stateOf(run, frame);
  const counts = host.store.childStatusCounts(run.exec.arn, phase.group);
  const failed = counts.FAILED;
  const tolerated =
    phase.type === 'Map' &&
    (failed <= (phase.toleratedFailureCount ?? -1) ||
      (phase.toleratedFailurePercentage !== undefined && phase.total > 0 && (failed / phase.total) * 100 <= phase.toleratedFailurePercentage));
  if (failed > 0 && !tolerated) {
    const children = host.store.childFrames(run.exec.arn, phase.group);
    const first = children
      .filter((c) => c.status === 'FAILED')
      .map(positionOf)
      .sort((a, b) => (a.lastEventId ?? 0) - (b.lastEventId ?? 0))[0];
    const thresholdSet = phase.toleratedFailureCount !== undefined || phase.toleratedFailurePercentage !== undefined;
    const failure = thresholdSet
      ? { error: StatesError.ExceedToleratedFailureThreshold, cause: 'The specified tolerated failure threshold was exceeded' }
      : { error: first.error ?? StatesError.BranchFailed, cause: first.cause ?? '' };
    batch.touch(frame);
    // Running iterations are aborted by abortDescendants (unguarded: they may be mid-transition).
    for (const c of children) {
      if (c.status === 'RUNNING' && phase.type === 'Map') batch.event(FrameRecord.fromRow(c), 'MapIterationAborted', { name: frame.pos.state, index: c.item_index });
    }
    batch.abortGroup(phase.group);
    batch.event(frame, `${phase.type}StateFailed`);
    await host.stateFailed(run, frame, batch, fx, state, failure, phase);
    await host.drive(run, frame, batch, fx);
    return;
  }
  if (counts.PENDING > 0 && (phase.maxConcurrency === 0 || counts.RUNNING < phase.maxConcurrency)) {
    const room = phase.maxConcurrency === 0 ? counts.PENDING : phase.maxConcurrency - counts.RUNNING;
    const pending = host.store.pendingChildren(run.exec.arn, phase.group, room);
    batch.touch(frame);
    for (const row of pending) {
      const child = FrameRecord.fromRow(row);
      child.status = 'RUNNING';
      child.pos.lastEventId = frame.pos.lastEventId;
      batch.event(child, 'MapIterationStarted', { name: frame.pos.state, index: row.item_index });
      batch.touch(child);
      fx.signals.push({ frameId: child.id, signal: { kind: 'resume' } });
    }
    return;
  }
  if (counts.RUNNING > 0 || counts.PENDING > 0) return;
  const result = host.store.childFrames(run.exec.arn, phase.group).map((c) => {
    const pos = positionOf(c);
    return c.status === 'SUCCEEDED' ? pos.output : { Error: pos.error, Cause: pos.cause };
  });
  batch.event(frame, `${phase.type}StateSucceeded`);
  try {
    await host.exitState(run, frame, batch, fx, state, host.flowOf(run, state), result);
  } catch (err) {
    await host.stateFailed(run, frame, batch, fx, state, toFailure(err), ENTER);
  }
  await host.drive(run, frame, batch, fx);
}
