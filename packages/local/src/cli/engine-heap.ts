import { subscribe } from 'node:diagnostics_channel';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';

/**
 * How far V8 lets the old generation grow past what the last full collection kept alive before it collects
 * again, in percent. V8's own factor (up to 4x when collections look cheap next to the program's work) let
 * the deploy rehearsal's heap reach 240 MB around 70 MB live; at 30% it stays near 110 MB (peak RSS at 1,000
 * runs in flight 538 -> 420 MiB), the full collections of a heap that small taking a few ms each.
 */
export const ENGINE_HEAP_GROWING_PERCENT = 30;

/**
 * The size V8's young generation may grow to in the engine process, in MB (V8's `new_space` size; its own
 * limit is 32). Kept at V8's first size of 1 MB, a scavenge came every three runs at 50 in flight and the
 * state of the runs in flight survived it, so garbage collection took a third of the engine's CPU; at 8 MB the
 * engine's CPU per run through the API fell by about a quarter (npm run bench's api-user part, interleaved:
 * 2.66 and 2.78 -> 2.18 and 1.84 ms) for about 16 MB more resident. 16 and 32 MB cost more memory and saved no
 * more CPU.
 */
export const ENGINE_YOUNG_GENERATION_MB = 8;

const youngGenerationMb = (): number =>
  (getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0) / 2 ** 20;

/** The growth factor last set; 0 when an isolate may have set V8's own back. */
let growthFactor = 0;

/**
 * Lets the young generation grow (V8's factor of 2) until it reaches {@link ENGINE_YOUNG_GENERATION_MB}, then
 * holds it there (a factor of 1). Checked after every collection (V8 shrinks the young generation again when
 * the process idles, and may then grow it back), as an event of its own: when collections come faster than
 * events, it may grow once more before the check.
 */
function limitYoungGeneration(): void {
  const factor = youngGenerationMb() < ENGINE_YOUNG_GENERATION_MB ? 2 : 1;
  if (factor === growthFactor) return;
  growthFactor = factor;
  setFlagsFromString(`--semi-space-growth-factor=${factor}`);
}

/**
 * Keeps the V8 heap of a process running the engine near what it holds live: the young generation within
 * {@link ENGINE_YOUNG_GENERATION_MB} and the old generation within {@link ENGINE_HEAP_GROWING_PERCENT} of its
 * live size. V8 reads both flags at each resize, so they hold though set after start (NODE_OPTIONS refuses
 * them, and `--max-semi-space-size` is read only at start). The flags are the process's: the Lambda sandboxes'
 * worker threads follow them too.
 *
 * Every new isolate sets the growth factor back to V8's minimum of 2 (each Lambda sandbox is a worker thread,
 * so the first cold start let the engine's young generation grow to 32 MB): the limit is set again once each
 * worker thread is up.
 */
export function keepEngineHeapSmall(): void {
  setFlagsFromString(`--heap-growing-percent=${ENGINE_HEAP_GROWING_PERCENT}`);
  limitYoungGeneration();
  new PerformanceObserver(limitYoungGeneration).observe({ entryTypes: ['gc'] });
  subscribe('worker_threads', (message) =>
    (message as { worker: Worker }).worker.once('online', () => {
      growthFactor = 0;
      limitYoungGeneration();
    }),
  );
}
