import { subscribe } from 'node:diagnostics_channel';
import { setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';

/**
 * How far V8 lets the old generation grow past what the last full collection kept alive before it collects
 * again, in percent. V8's own factor (up to 4x when collections look cheap next to the program's work) let
 * the deploy rehearsal's heap reach 240 MB around 70 MB live; at 30% it stays near 110 MB (peak RSS at 1,000
 * runs in flight 538 -> 420 MiB), the full collections of a heap that small taking a few ms each.
 */
export const ENGINE_HEAP_GROWING_PERCENT = 30;

/** Keeps the young generation at the size it has now (V8 grows it 2x at a time when many objects survive). */
const keepYoungGenerationSize = () => setFlagsFromString('--semi-space-growth-factor=1');

/**
 * Keeps the V8 heap of a process running the engine near what it holds live: the young generation at its
 * first size (1 MB semi-spaces instead of growing to 16 MB ones under load: about 30 MB less resident at 50
 * runs in flight, throughput the same within this machine's noise, npm run bench:memory) and the old generation within
 * {@link ENGINE_HEAP_GROWING_PERCENT} of its live size. V8 reads both flags at each resize, so they hold
 * though set after start (NODE_OPTIONS refuses them and `--max-semi-space-size` is read only at start).
 * The flags are the process's: the Lambda sandboxes' worker threads follow them too.
 *
 * Every new isolate sets the growth factor back to V8's minimum of 2 (each Lambda sandbox is a worker thread,
 * so the first cold start let the engine's young generation grow to 32 MB again): it is set again once each
 * worker thread is up.
 */
export function keepEngineHeapSmall(): void {
  keepYoungGenerationSize();
  setFlagsFromString(`--heap-growing-percent=${ENGINE_HEAP_GROWING_PERCENT}`);
  subscribe(
    'worker_threads',
    (message) => void (message as { worker: Worker }).worker.once('online', keepYoungGenerationSize),
  );
}
