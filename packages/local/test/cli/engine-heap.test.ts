/**
 * The engine process lets its V8 young generation grow to ENGINE_YOUNG_GENERATION_MB and no further
 * (cli/engine-heap.ts): a flag set after start, which V8 sets back to its minimum growth factor of 2 whenever
 * an isolate is created — each Lambda sandbox is a worker thread, so the engine's first cold start let its
 * young generation grow to 32 MB again. Measured in a child process of its own: V8's flags are the process's.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENGINE_YOUNG_GENERATION_MB } from '../../src/cli/engine-heap';

const ENGINE_HEAP = fileURLToPath(new URL('../../src/cli/engine-heap.ts', import.meta.url));

/**
 * The young generation's size (MB) when the process starts keeping it (or would), and after a worker thread
 * started and many young objects survived scavenges, a round of them per turn of the event loop.
 */
function youngGenerationAfterAWorker(keepSmall: boolean): { first: number; after: number } {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { Worker } from 'node:worker_threads';
    import { keepEngineHeapSmall } from ${JSON.stringify(ENGINE_HEAP)};
    const youngMb = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20;
    const first = youngMb();
    if (${keepSmall}) keepEngineHeapSmall();
    await new Promise((resolve) => new Worker('1', { eval: true }).once('exit', resolve));
    const kept = [];
    for (let round = 0; round < 600; round++) {
      kept.push(Array.from({ length: 10_000 }, (_, i) => ({ i, s: "x" + i })));
      if (kept.length > 200) kept.shift();
      await new Promise((resolve) => setImmediate(resolve)); // the engine's work comes as events, so does the check
    }
    console.log(JSON.stringify({ first, after: youngMb() }));
  `;
  return JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }),
  ) as { first: number; after: number };
}

describe("the engine process's young generation", () => {
  it('grows to its limit (give or take one doubling) after a Lambda sandbox (a worker thread) starts, where V8 alone grows it to 32 MB', () => {
    expect(youngGenerationAfterAWorker(false).after).toBe(32);
    const kept = youngGenerationAfterAWorker(true);
    expect(kept.first).toBeLessThan(ENGINE_YOUNG_GENERATION_MB);
    expect(ENGINE_YOUNG_GENERATION_MB).toBeLessThan(32);
    // The limit is checked after each collection, so when collections come faster than events it may grow once more.
    expect(kept.after).toBeGreaterThanOrEqual(ENGINE_YOUNG_GENERATION_MB);
    expect(kept.after).toBeLessThanOrEqual(2 * ENGINE_YOUNG_GENERATION_MB);
  }, 60_000);
});
