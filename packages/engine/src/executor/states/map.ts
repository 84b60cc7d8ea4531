/**
 * Map: one iteration per item, each on its `ItemSelector` input. Up to MaxConcurrency start at
 * once (the rest wait as PENDING rows); ToleratedFailureCount/Percentage let some fail. The limits are
 * read through the data flow, so their Path and JSONata forms take effect too. A distributed Map runs
 * the same way; AWS runs its iterations as child executions, so their events stay out of the run's
 * history (quiet frames) and a MapRunStarted / MapRunSucceeded or MapRunFailed pair stands for them.
 * A distributed Map may read its items from S3 (`ItemReader`, map-item-reader.ts), group them into
 * batches (`ItemBatcher`, map-item-batcher.ts) and write its results to S3 (`ResultWriter`, at the end:
 * see children.ts and map-result-writer.ts).
 *
 * The order of events and failures, as AWS records them with an ItemReader: MapStateStarted (length 0:
 * the items are the Map Run's), then the reader's fields (a MaxItemsPath that is no integer fails the
 * state here: States.Runtime), MapRunStarted, the read (a failure is MapRunFailed States.ItemReaderFailed,
 * then MapStateFailed).
 */
import { randomUUID } from 'node:crypto';
import { type MapLimits, MapToleranceError, StatesRuntimeError } from '../../dataflow';
import type { PreparedStateList } from '../../definition';
import { batchItems } from '../map-item-batcher';
import { ItemReaderFailedError, readMapItems } from '../map-item-reader';
import type { StateModule, Step } from '../step';
import { ENTER } from '../transition';
import { onChildren, spawnGroup } from './children';

/** A Map Run's ARN as AWS forms it: `…:mapRun:<machine>/<Label or state name>:<id>`. */
function mapRunArn(step: Step): string {
  const [arn, partition, service, region, account] = step.run.exec.machine_arn.split(':');
  const label = step.state.definition.Label;
  return [
    arn,
    partition,
    service,
    region,
    account,
    'mapRun',
    `${step.run.exec.machine_name}/${typeof label === 'string' ? label : step.frame.pos.state}`,
    randomUUID(),
  ].join(':');
}

async function startIterations(step: Step): Promise<void> {
  const { flow, frame } = step;
  const definition = step.state.definition;
  const readsItems = definition.ItemReader !== undefined;
  let items = readsItems ? [] : await flow.mapItems(definition, step.scope());
  let limits: MapLimits;
  try {
    limits = await flow.mapLimits(definition, step.scope());
  } catch (err) {
    // AWS fails a Map on its tolerated-failure values only once it has started.
    if (err instanceof MapToleranceError) step.event('MapStateStarted', { length: items.length });
    throw err;
  }
  if (readsItems) step.event('MapStateStarted', { length: 0 });
  const [reader, batcher, resultWriter] = await Promise.all([
    flow.mapItemReader(definition, step.scope()),
    flow.mapItemBatcher(definition, step.scope()),
    flow.mapResultWriter(definition, step.scope()),
  ]);
  for (const [field, value] of [
    ['MaxItemsPerBatch', batcher?.maxItemsPerBatch],
    ['MaxInputBytesPerBatch', batcher?.maxInputBytesPerBatch],
  ] as const) {
    if (value !== undefined && value < 1)
      throw new StatesRuntimeError(`The ${field} field must be a positive integer, got ${value}`);
  }
  const runArn = step.state.distributed ? mapRunArn(step) : undefined;
  if (reader) {
    step.event('MapRunStarted', { mapRunArn: runArn });
    try {
      items = await readMapItems(step.services.integrations.s3, reader);
    } catch (err) {
      if (!(err instanceof ItemReaderFailedError)) throw err;
      const failure = { error: err.name, cause: err.message };
      step.event('MapRunFailed', failure);
      await step.recover(failure, ENTER, { failedEvent: 'MapStateFailed' });
      return;
    }
  }
  const selected: unknown[] = [];
  for (let index = 0; index < items.length; index++) {
    selected.push(await flow.mapItemInput(definition, step.scope({ mapItem: { index, value: items[index] } })));
  }
  // A batch is one iteration: its input is the envelope, and so is its Map item.
  const inputs = batcher ? batchItems(selected, batcher) : selected;
  const iterationItems = batcher ? inputs : items;
  const processor = step.state.itemProcessor as PreparedStateList;
  const { maxConcurrency } = limits;
  const group = spawnGroup(step);
  if (!readsItems) {
    step.event('MapStateStarted', { length: items.length });
    if (runArn !== undefined) step.event('MapRunStarted', { mapRunArn: runArn });
  }
  step.setPhase({
    kind: 'children',
    type: 'Map',
    group,
    total: inputs.length,
    maxConcurrency,
    ...(limits.toleratedFailureCount !== undefined ? { toleratedFailureCount: limits.toleratedFailureCount } : {}),
    ...(limits.toleratedFailurePercentage !== undefined
      ? { toleratedFailurePercentage: limits.toleratedFailurePercentage }
      : {}),
    ...(runArn !== undefined ? { mapRunArn: runArn } : {}),
    ...(resultWriter ? { resultWriter } : {}),
  });
  inputs.forEach((input, index) => {
    const startNow = maxConcurrency === 0 || index < maxConcurrency;
    const child = step.newChild(group, index, startNow ? 'RUNNING' : 'PENDING', {
      path: processor.path,
      state: processor.startAt,
      input,
      mapItem: { index, value: iterationItems[index] },
    });
    if (resultWriter) child.pos.iterationInput = input;
    step.batch.touch(child);
    if (startNow) {
      step.batch.event(child, 'MapIterationStarted', { name: frame.pos.state, index });
      step.fx.signals.push({ frameId: child.id, signal: { kind: 'resume' } });
    }
  });
  if (inputs.length === 0) step.fx.signals.push({ frameId: frame.id, signal: { kind: 'resume' } });
}

export const mapState: StateModule = {
  enter: startIterations,
  attempt: startIterations,
  onChildren,
};
