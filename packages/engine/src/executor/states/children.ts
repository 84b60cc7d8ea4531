/**
 * What Parallel and Map share: a state whose work is child frames. Every child that ends signals the
 * parent, which re-examines its children: start more (Map under MaxConcurrency), fail (aborting the
 * others), or finish with their outputs in order. Children read the parent's variables as a copy and
 * cannot write them back.
 *
 * Event chaining, as AWS records it: the parent's events after its children follow the children's
 * events. An iteration started when another ended follows that one's last state event (as its
 * MapIterationSucceeded does); a failed Map/Parallel follows the failed child's last state event; a
 * finished one's `…StateSucceeded` follows the latest child event, and its Exited event follows that too.
 * A distributed Map's iterations are child executions on AWS: the parent records only MapRunStarted and
 * MapRunSucceeded/MapRunFailed around them.
 */
import { StatesError } from '@autosave/workflow/errors';
import type { FrameRow } from '../../store';
import { type ChildrenPhase, FrameRecord, type FramePosition } from '../frame';
import { ResultWriterFailedError, writeMapRunResults } from '../map-result-writer';
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

/** The id of the latest event a child wrote, in its chain or beside it. */
const latestEventOf = (pos: FramePosition): number => Math.max(pos.lastEventId ?? 0, pos.sideEventId ?? 0);

/** Map's failure tolerance: whether `failed` of `total` iterations is still within it. */
function tolerated(phase: ChildrenPhase, failed: number): boolean {
  if (phase.type !== 'Map') return false;
  if (failed <= (phase.toleratedFailureCount ?? -1)) return true;
  return (
    phase.toleratedFailurePercentage !== undefined &&
    phase.total > 0 &&
    (failed / phase.total) * 100 <= phase.toleratedFailurePercentage
  );
}

/** The position of the child that failed first. */
function firstFailed(children: FrameRow[]): FramePosition {
  return children
    .filter((c) => c.status === 'FAILED')
    .map(positionOf)
    .sort((a, b) => latestEventOf(a) - latestEventOf(b))[0];
}

/** The failure of a Parallel/Map whose children failed: the first child's, or the threshold's. */
function childrenFailure(phase: ChildrenPhase, first: FramePosition): StateFailure {
  if (phase.toleratedFailureCount !== undefined || phase.toleratedFailurePercentage !== undefined) {
    return {
      error: StatesError.ExceedToleratedFailureThreshold,
      cause: 'The specified tolerated failure threshold was exceeded',
    };
  }
  // A child's Fail without Error/Cause leaves both out of the parent's failure too (AWS records `{}`).
  return {
    ...(first.error !== undefined ? { error: first.error } : {}),
    ...(first.cause !== undefined ? { cause: first.cause } : {}),
  };
}

/** Starts up to `room` PENDING iterations of a Map in index order, each following `afterEventId`. */
function startPending(step: Step, phase: ChildrenPhase, room: number, afterEventId: number | undefined): void {
  const { frame } = step;
  step.batch.touch(frame);
  for (const row of step.services.store.pendingChildren(step.run.exec.arn, phase.group, room)) {
    const child = FrameRecord.fromRow(row);
    child.status = 'RUNNING';
    child.pos.lastEventId = afterEventId;
    step.batch.event(child, 'MapIterationStarted', { name: frame.pos.state, index: row.item_index });
    step.batch.touch(child);
    step.fx.signals.push({ frameId: child.id, signal: { kind: 'resume' } });
  }
}

/**
 * A Parallel/Map re-examines its children: start more, fail, or finish with their outputs.
 * `childLastEventId`: the last state event of the child whose end woke it, when known (not after a restart).
 */
export async function onChildren(step: Step, childLastEventId?: number): Promise<void> {
  const { frame, run } = step;
  const store = step.services.store;
  const phase = frame.pos.phase as ChildrenPhase;
  const tally = store.childTally(run.exec.arn, phase.group);
  if (tally.failed > 0 && !tolerated(phase, tally.failed)) {
    const children = store.childFrames(run.exec.arn, phase.group);
    const first = firstFailed(children);
    step.batch.touch(frame);
    const failure = childrenFailure(phase, first);
    // A distributed Map's run is one event pair in the parent's history; its iterations are not there.
    if (step.state.distributed)
      step.event('MapRunFailed', {
        ...(failure.error !== undefined ? { error: failure.error } : {}),
        ...(failure.cause !== undefined ? { cause: failure.cause } : {}),
      });
    else frame.pos.lastEventId = first.lastEventId;
    // Running iterations are aborted with the group (unguarded: they may be mid-transition).
    // A running Task in them is aborted too, as AWS records it (after its iteration's MapIterationAborted).
    for (const c of children) {
      if (c.status !== 'RUNNING') continue;
      const child = FrameRecord.fromRow(c);
      if (phase.type === 'Map')
        step.batch.event(child, 'MapIterationAborted', { name: frame.pos.state, index: c.item_index });
      if (child.pos.phase.kind === 'task') step.batch.event(child, 'TaskStateAborted', undefined, { advance: false });
    }
    step.batch.abortGroup(phase.group);
    await step.recover(failure, phase, { failedEvent: `${phase.type}StateFailed` });
    await step.drive();
    return;
  }
  if (tally.waiting && (phase.maxConcurrency === 0 || tally.running < phase.maxConcurrency)) {
    startPending(
      step,
      phase,
      phase.maxConcurrency === 0 ? Number.MAX_SAFE_INTEGER : phase.maxConcurrency - tally.running,
      childLastEventId ?? frame.pos.lastEventId,
    );
    return;
  }
  if (tally.running > 0 || tally.waiting) return;
  const children = store.childFrames(run.exec.arn, phase.group).map((c) => ({ status: c.status, pos: positionOf(c) }));
  let result: unknown = children.map(({ status, pos }) =>
    status === 'SUCCEEDED' ? pos.output : { Error: pos.error, Cause: pos.cause },
  );
  if (phase.resultWriter) {
    // The results go to S3 before the Map Run ends; the Map's result then names them.
    try {
      result = await mapRunResult(step, phase, children, result as unknown[]);
    } catch (err) {
      if (!(err instanceof ResultWriterFailedError)) throw err;
      step.batch.touch(frame);
      const failure = { error: err.name, cause: err.message };
      step.event('MapRunFailed', failure);
      await step.recover(failure, phase, { failedEvent: `${phase.type}StateFailed` });
      await step.drive();
      return;
    }
  }
  // AWS chains a distributed Map's exit after MapRunStarted: MapRunSucceeded and MapStateSucceeded stay beside
  // the chain, the second after the first (recorded since Nov 2024; MapRunSucceeded before, until Aug 2024).
  if (step.state.distributed) step.event('MapRunSucceeded', undefined, { advance: false });
  else if (children.length > 0) frame.pos.lastEventId = Math.max(...children.map((c) => latestEventOf(c.pos)));
  step.event(`${phase.type}StateSucceeded`, undefined, { advance: false, afterSide: step.state.distributed === true });
  await step.guard(() => step.exit(result));
  await step.drive();
}

/**
 * A distributed Map's result under its ResultWriter: written to S3 (Resource s3:putObject), the result
 * names the manifest; with only a WriterConfig, the outputs formatted as it says (FLATTEN flattens arrays).
 */
async function mapRunResult(
  step: Step,
  phase: ChildrenPhase,
  children: { status: string; pos: FramePosition }[],
  outputs: unknown[],
): Promise<unknown> {
  const spec = phase.resultWriter as NonNullable<ChildrenPhase['resultWriter']>;
  if (spec.resource === undefined || phase.mapRunArn === undefined) {
    return spec.transformation === 'FLATTEN' ? outputs.flatMap((o) => (Array.isArray(o) ? o : [o])) : outputs;
  }
  return writeMapRunResults(step.services.integrations.s3, spec, {
    mapRunArn: phase.mapRunArn,
    startMs: step.frame.pos.enteredMs,
    stopMs: step.now(),
    children: children.map(({ status, pos }) => ({
      status: status === 'SUCCEEDED' ? 'SUCCEEDED' : 'FAILED',
      input: pos.iterationInput,
      ...(status === 'SUCCEEDED'
        ? { output: pos.output }
        : {
            ...(pos.error !== undefined ? { error: pos.error } : {}),
            ...(pos.cause !== undefined ? { cause: pos.cause } : {}),
          }),
    })),
  });
}
