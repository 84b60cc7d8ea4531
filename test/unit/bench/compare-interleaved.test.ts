/**
 * `npm run bench:compare -- --interleaved` runs two engines at once, taking turns in blocks, and reads each
 * block's CPU from that engine's own process: each round holds one figure per build, the ratio is the second
 * build's over the first's, and both engines really ran their runs.
 */
import { describe, expect, it } from 'vitest';
import { compareInterleaved, ratioInterval } from '../../../bench/compare-interleaved';
import { AUTOSAVE_BIN } from '../../../scripts/engine-process';

describe('the interleaved comparison of two builds', () => {
  it('gives each round a CPU figure per build and their ratio, the rounds in order', async () => {
    const seen: number[] = [];
    const figures = await compareInterleaved(
      [
        { name: 'first', bin: AUTOSAVE_BIN },
        { name: 'second', bin: AUTOSAVE_BIN },
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

  it('starts a build with its Node flags: a flag Node refuses stops the comparison', async () => {
    await expect(
      compareInterleaved(
        [
          { name: 'first', bin: AUTOSAVE_BIN },
          { name: 'second', bin: AUTOSAVE_BIN, nodeFlags: ['--no-such-node-flag'] },
        ],
        { rounds: 1, block: { oneAtATime: 1, inFlight: 1 }, warmupBlocks: 0 },
      ),
    ).rejects.toThrow(/no-such-node-flag/);
  }, 120_000);

  it("reads the rounds' ratios as a geometric mean with a 95% interval from their spread", () => {
    expect(ratioInterval([1.1, 1.1, 1.1])).toEqual({ ratio: 1.1, low: 1.1, high: 1.1 });
    // ln 2 and -ln 2: mean 0, standard deviation ln 2 * sqrt 2, so the interval is 2 to the power -1.96 and 1.96.
    const spread = ratioInterval([2, 0.5]);
    expect(spread.ratio).toBeCloseTo(1, 12);
    expect(spread.low).toBeCloseTo(2 ** -1.96, 12);
    expect(spread.high).toBeCloseTo(2 ** 1.96, 12);
    expect(ratioInterval([0.9]).low).toBeNaN();
  });
});
