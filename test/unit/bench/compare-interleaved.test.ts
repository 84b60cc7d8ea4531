/**
 * `npm run bench:compare -- --interleaved` runs two engines at once, taking turns in blocks, and reads each
 * block's CPU from that engine's own process: each round holds one figure per build, the ratio is the second
 * build's over the first's, and both engines really ran their runs.
 */
import { describe, expect, it } from 'vitest';
import { compareInterleaved, medianWithQuartiles } from '../../../bench/compare-interleaved';
import { AUTOSAVE_BIN } from '../../../scripts/engine-process';

describe('the interleaved comparison of two builds', () => {
  it('gives each round a CPU figure per build and their ratio, the rounds in order', async () => {
    const seen: number[] = [];
    const figures = await compareInterleaved(
      [
        { name: 'first', bin: AUTOSAVE_BIN },
        { name: 'second', bin: AUTOSAVE_BIN, nodeFlags: ['--max-semi-space-size=8'] },
      ],
      { rounds: 3, block: { oneAtATime: 2, inFlight: 20 }, warmupBlocks: 1, onRound: (round) => seen.push(round) },
    );
    expect(seen).toEqual([0, 1, 2]);
    expect(figures.cpuPerRunMs).toHaveLength(2);
    for (const perBuild of figures.cpuPerRunMs) {
      expect(perBuild).toHaveLength(3);
      // Twenty-two runs cost an engine some CPU; /proc counts it in 10 ms ticks, so at least one tick in three rounds.
      expect(perBuild.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    }
    expect(figures.ratios).toEqual(figures.cpuPerRunMs[1].map((ms, i) => ms / figures.cpuPerRunMs[0][i]));
  }, 120_000);

  it('reads the median and the middle half of a set of ratios', () => {
    expect(medianWithQuartiles([9, 1, 5, 3, 7, 2, 8, 4, 6])).toEqual({ median: 5, low: 3, high: 7 });
    expect(medianWithQuartiles([1.25, 0.75, 1, 1.5])).toEqual({ median: 1.125, low: 1, high: 1.25 });
  });
});
