/**
 * The chaos run of `npm run chaos`, bounded for the suite: onboarding runs approved through their links
 * while the engine is SIGKILLed (mostly mid-POST) and restarted at once. Nothing may be lost, fail,
 * happen twice or take another decision than the one recorded.
 */
import { describe, expect, it } from 'vitest';
import { formatChaosFigures, runOnboardingChaos } from '../../chaos/onboarding-chaos';

describe('the chaos run, bounded', () => {
  it('loses no run, no decision and duplicates no side effect across SIGKILLs', { timeout: 600_000 }, async () => {
    const figures = await runOnboardingChaos({ runs: 20, kills: 3 });
    console.log(formatChaosFigures(figures));
    expect(figures).toMatchObject({
      kills: 3,
      runsLost: 0,
      runsNotSucceeded: 0,
      duplicatedSideEffects: 0,
      decisionsLost: 0,
    });
    expect(figures.restartDelayMaxMillis).toBeLessThan(200);
  });
});
