/**
 * A Map's `ItemBatcher`: items grouped into batches, each one iteration's input `{ BatchInput?, Items }`,
 * as AWS passes them to a child workflow execution. A batch holds at most `MaxItemsPerBatch` items and
 * `MaxInputBytesPerBatch` bytes of its JSON (an item larger than that on its own is a batch of one).
 */
import type { MapItemBatcherSpec } from '../dataflow';

/** The batches of `items` (the items after ItemSelector), in order. */
export function batchItems(items: readonly unknown[], spec: MapItemBatcherSpec): Record<string, unknown>[] {
  const envelope = (batch: unknown[]) => ({
    ...(spec.batchInput !== undefined ? { BatchInput: spec.batchInput } : {}),
    Items: batch,
  });
  const emptyBytes = Buffer.byteLength(JSON.stringify(envelope([])));
  const batches: unknown[][] = [];
  let current: unknown[] = [];
  let bytes = emptyBytes;
  for (const item of items) {
    const itemBytes = Buffer.byteLength(JSON.stringify(item ?? null)) + (current.length > 0 ? 1 : 0);
    const full =
      (spec.maxItemsPerBatch !== undefined && current.length >= spec.maxItemsPerBatch) ||
      (spec.maxInputBytesPerBatch !== undefined &&
        current.length > 0 &&
        bytes + itemBytes > spec.maxInputBytesPerBatch);
    if (full) {
      batches.push(current);
      current = [];
      bytes = emptyBytes;
    }
    bytes += Buffer.byteLength(JSON.stringify(item ?? null)) + (current.length > 0 ? 1 : 0);
    current.push(item);
  }
  if (current.length > 0) batches.push(current);
  return batches.map(envelope);
}
