/**
 * `npm run bench:memory [-- --snapshot <file>]`: the engine process's memory alone (the API part's memory
 * figures without its throughput): `autosave local` with the bench's functions, its peak RSS under the
 * seven-step workload with 50 in flight, its RSS with 10,000 runs paused on task tokens, and the heap
 * snapshot of the paused engine broken down. With --snapshot, only the breakdown of that file.
 */
import { parseArgs } from 'node:util';
import { measureApi } from './api-engine';
import { describeHeap, heapBreakdown } from './heap-snapshot';

const { values } = parseArgs({ options: { snapshot: { type: 'string' } } });
if (values.snapshot) {
  console.log(describeHeap(heapBreakdown(values.snapshot)));
} else {
  const f = await measureApi({ memoryOnly: true });
  console.log(
    `${f.concurrent.runs} runs ${f.concurrent.inFlight} in flight through the API: ${(f.concurrent.runs / f.concurrent.seconds).toFixed(0)} runs/s`,
  );
  console.log(
    `engine process: peak RSS under load ${(f.peakRssBytes / 1e6).toFixed(0)} MB, with ${f.paused!.runs} runs paused ${(f.paused!.rssBytes / 1e6).toFixed(0)} MB`,
  );
  console.log(f.heap);
  for (const note of f.notes ?? []) console.log(note);
}
