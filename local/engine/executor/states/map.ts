/**
 * Map: one iteration per item, each on its `ItemSelector` input. Up to MaxConcurrency start at
 * once (the rest wait as PENDING rows); ToleratedFailureCount/Percentage let some fail. The limits are
 * read through the data flow, so their Path and JSONata forms take effect too. A distributed Map runs
 * the same way; AWS runs its iterations as child executions, so their events stay out of the run's
 * history (quiet frames) and a MapRunStarted / MapRunSucceeded or MapRunFailed pair stands for them.
 * Its item sources and sinks (ItemReader, ResultWriter, ItemBatcher) are refused at definition time.
 */
import { randomUUID } from 'node:crypto';
import { type MapLimits, MapToleranceError } from '../../dataflow';
import type { PreparedStateList } from '../../definition';
import type { StateModule, Step } from '../step';
import { onChildren, spawnGroup } from './children';

/** A Map Run's ARN as AWS forms it: `…:mapRun:<machine>/<Label or state name>:<id>`. */
function mapRunArn(step: Step): string {
  const [arn, partition, service, region, account] = step.run.exec.machine_arn.split(':');
  const label = step.state.definition.Label;
  return [arn, partition, service, region, account, 'mapRun', `${step.run.exec.machine_name}/${typeof label === 'string' ? label : step.frame.pos.state}`, randomUUID()].join(':');
}

async function startIterations(step: Step): Promise<void> {
  const { flow, frame } = step;
  const definition = step.state.definition;
  const items = await flow.mapItems(definition, step.scope());
  let limits: MapLimits;
  try {
    limits = await flow.mapLimits(definition, step.scope());
  } catch (err) {
    // AWS fails a Map on its tolerated-failure values only once it has started.
    if (err instanceof MapToleranceError) step.event('MapStateStarted', { length: items.length });
    throw err;
  }
  const inputs: unknown[] = [];
  for (let index = 0; index < items.length; index++) {
    inputs.push(await flow.mapItemInput(definition, step.scope({ mapItem: { index, value: items[index] } })));
  }
  const processor = step.state.itemProcessor as PreparedStateList;
  const { maxConcurrency } = limits;
  const group = spawnGroup(step);
  step.event('MapStateStarted', { length: items.length });
  if (step.state.distributed) step.event('MapRunStarted', { mapRunArn: mapRunArn(step) });
  step.setPhase({
    kind: 'children',
    type: 'Map',
    group,
    total: items.length,
    maxConcurrency,
    ...(limits.toleratedFailureCount !== undefined ? { toleratedFailureCount: limits.toleratedFailureCount } : {}),
    ...(limits.toleratedFailurePercentage !== undefined ? { toleratedFailurePercentage: limits.toleratedFailurePercentage } : {}),
  });
  inputs.forEach((input, index) => {
    const startNow = maxConcurrency === 0 || index < maxConcurrency;
    const child = step.newChild(group, index, startNow ? 'RUNNING' : 'PENDING', {
      path: processor.path,
      state: processor.startAt,
      input,
      mapItem: { index, value: items[index] },
    });
    step.batch.touch(child);
    if (startNow) {
      step.batch.event(child, 'MapIterationStarted', { name: frame.pos.state, index });
      step.fx.signals.push({ frameId: child.id, signal: { kind: 'resume' } });
    }
  });
  if (items.length === 0) step.fx.signals.push({ frameId: frame.id, signal: { kind: 'resume' } });
}

export const mapState: StateModule = {
  enter: startIterations,
  attempt: startIterations,
  onChildren,
};
