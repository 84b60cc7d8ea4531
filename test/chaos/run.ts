/**
 * `npm run chaos [-- --runs 1000 --kills 50]`: the chaos run (./onboarding-chaos.ts) at full size. Prints
 * its figures; exits 1 unless 0 runs were lost, 0 not SUCCEEDED, 0 side effects duplicated, 0 decisions
 * lost, and every kill was done.
 */
import { parseArgs } from 'node:util';
import { formatChaosFigures, runOnboardingChaos } from './onboarding-chaos';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '1000' }, kills: { type: 'string', default: '50' } },
});
const runs = Number(values.runs);
const kills = Number(values.kills);
console.log(
  `chaos: ${runs} onboarding runs approved through their links, ${kills} SIGKILLs of the engine at random moments`,
);
const figures = await runOnboardingChaos({ runs, kills, log: (line) => console.log(line) });
console.log(formatChaosFigures(figures));
const failed =
  figures.runsLost + figures.runsNotSucceeded + figures.duplicatedSideEffects + figures.decisionsLost > 0 ||
  figures.kills < kills;
console.log(failed ? 'chaos: FAILED' : 'chaos: passed');
process.exit(failed ? 1 : 0);
