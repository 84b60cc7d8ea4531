/**
 * `npm run bench:compare -- --against <rev> [--pairs 4] [--keep]`: this checkout's engine beside the engine
 * of another revision, measured by this checkout's bench code on this machine in the same minutes, the two
 * alternating (this machine's speed moves by half within minutes, so figures from different sessions do not
 * compare; a ratio from one run does). Each pair runs, for each build, the API part of `npm run bench` (engine
 * CPU per run, DescribeExecution's CPU and polls per run) and one restart after SIGKILL on a store of its own
 * with 200 runs in flight. Prints every sample, the medians and the ratios of this build to the other.
 *
 * `--interleaved` measures only the engine's CPU per run, with both engines running at once and taking turns in
 * blocks of a few seconds (bench/compare-interleaved.ts): 30 rounds tell apart a change of about 5%, where the
 * pairs' figures move by a fifth. `--node-flags` starts this checkout's engine with Node flags (a collector setting).
 *
 * The other revision is checked out in a git worktree in the temporary directory, with links to this
 * checkout's installed packages and a CLI bundle of its own; it is removed afterwards unless `--keep`. When the
 * two package-lock.json files differ, the other revision runs on this checkout's packages, and the output
 * says so.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AUTOSAVE_BIN } from '../scripts/engine-process';
import { REPOSITORY_ROOT } from '../scripts/repository-root';
import { compareInterleaved, type InterleavedBuild, ratioInterval } from './compare-interleaved';
import { ENGINE_BIN_ENV } from './engine-bin';
import { runPartProcess } from './part-process';
import { javascriptFunctionsModule, measureRestart } from './restart';
import { median, type WorkloadFigures } from './workload';

/** One build's figures in one pair. */
interface Sample {
  readonly engineCpuPerRunMs: number;
  readonly describeCpuMs: number;
  readonly pollsPerRun: number;
  readonly restartAnswerSeconds: number;
  readonly restartDoneSeconds: number;
}

/** What the output prints of a sample, in order. */
const FIGURES: readonly { key: keyof Sample; label: string; digits: number }[] = [
  { key: 'engineCpuPerRunMs', label: 'API part: engine CPU per run, ms', digits: 2 },
  { key: 'describeCpuMs', label: 'API part: engine CPU per DescribeExecution, ms', digits: 3 },
  { key: 'pollsPerRun', label: 'API part: DescribeExecution polls per run', digits: 2 },
  { key: 'restartAnswerSeconds', label: 'restart: API answers, s', digits: 3 },
  { key: 'restartDoneSeconds', label: 'restart: runs caught in flight done, s', digits: 3 },
];

/** The scope of this repository's own packages, which npm links to their folders under packages/. */
const WORKSPACE_SCOPE = '@autosave';

const git = (...args: string[]): string =>
  execFileSync('git', args, { cwd: REPOSITORY_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * This checkout's installed packages for the worktree at `dir`, as links: Node resolves a linked package to its
 * real path, so each still finds its own dependencies here. The workspace packages (`@autosave/*`) are linked to
 * the worktree's own, as npm links them; the caches are left out (the other build makes its own CLI bundle).
 */
async function linkPackages(dir: string): Promise<void> {
  const installed = join(REPOSITORY_ROOT, 'node_modules');
  await mkdir(join(dir, 'node_modules', WORKSPACE_SCOPE), { recursive: true });
  for (const entry of await readdir(installed)) {
    if (entry === '.cache' || entry === WORKSPACE_SCOPE) continue;
    await symlink(join(installed, entry), join(dir, 'node_modules', entry));
  }
  for (const pkg of await readdir(join(dir, 'packages')))
    await symlink(join('..', '..', 'packages', pkg), join(dir, 'node_modules', WORKSPACE_SCOPE, pkg));
}

/** The other revision as a worktree with this checkout's packages and its own CLI bundle; its `autosave` bin. */
async function checkOut(revision: string): Promise<{ sha: string; dir: string; bin: string; notes: string[] }> {
  const sha = git('rev-parse', '--verify', `${revision}^{commit}`);
  // Outside any node_modules: esbuild applies no tsconfig paths to files within one, so the other build's CLI
  // bundle would import our packages' unbuilt dist instead of bundling their sources.
  const dir = join(tmpdir(), `autosave-baseline-${sha.slice(0, 12)}`);
  const notes: string[] = [];
  // Written last: a checkout interrupted half-way is made again.
  const ready = join(dir, 'node_modules', '.autosave-baseline-ready');
  if (!existsSync(ready)) {
    await rm(dir, { recursive: true, force: true });
    git('worktree', 'prune');
    git('worktree', 'add', '--detach', dir, sha);
    await linkPackages(dir);
    execFileSync(process.execPath, [join(dir, 'bin', 'cli-bundle.js'), '--force'], { cwd: dir, stdio: 'ignore' });
    await writeFile(ready, sha);
  }
  if (git('diff', '--name-only', sha, '--', 'package-lock.json') !== '')
    notes.push(`package-lock.json differs at ${sha.slice(0, 12)}: it runs on this checkout's installed packages`);
  return { sha, dir, bin: join(dir, 'bin', 'autosave.js'), notes };
}

/** One build's figures: the API part in a process of its own, then one restart on a store of its own. */
async function measure(bin: string): Promise<Sample> {
  const api = await runPartProcess<WorkloadFigures>('api', { [ENGINE_BIN_ENV]: bin });
  const dir = await mkdtemp(join(tmpdir(), 'autosave-bench-compare-'));
  try {
    const restart = await measureRestart({
      dataDir: join(dir, 'data'),
      functionsModule: await javascriptFunctionsModule(dir),
      cwd: dir,
      bin,
    });
    return {
      engineCpuPerRunMs: api.apiCosts!.engineCpuPerRunMs,
      describeCpuMs: api.apiCosts!.describeCpuMs,
      pollsPerRun: api.apiCosts!.pollsPerRun,
      restartAnswerSeconds: restart.apiSeconds,
      restartDoneSeconds: restart.doneSeconds,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Each build's API part and one restart, `pairs` times alternated; the medians, their ratios and every sample. */
async function printPairs(builds: readonly InterleavedBuild[], pairs: number): Promise<void> {
  const samples = builds.map(() => [] as Sample[]);
  for (let pair = 0; pair < pairs; pair += 1) {
    // Alternating which goes first, so a machine speeding up or slowing down favours neither.
    for (const i of pair % 2 === 0 ? [0, 1] : [1, 0]) {
      samples[i].push(await measure(builds[i].bin));
      console.log(`pair ${pair + 1}/${pairs}: ${builds[i].name} measured`);
    }
  }
  const [baseline, current] = builds;
  const [was, now] = samples;
  console.log(`\n${current.name} against ${baseline.name}, ${pairs} pairs alternated; medians, then every sample:`);
  for (const { key, label, digits } of FIGURES) {
    const [a, b] = [median(was.map((s) => s[key])), median(now.map((s) => s[key]))];
    const list = (of: Sample[]) => of.map((s) => s[key].toFixed(digits)).join(', ');
    console.log(
      `${label}: ${b.toFixed(digits)} against ${a.toFixed(digits)} (${(b / a).toFixed(2)}x); ` +
        `this [${list(now)}], other [${list(was)}]`,
    );
  }
}

/** The interleaved comparison (bench/compare-interleaved.ts), printed round by round and then as ratios. */
async function printInterleaved(builds: readonly [InterleavedBuild, InterleavedBuild], rounds: number): Promise<void> {
  const label = (b: InterleavedBuild) => b.name + (b.nodeFlags?.length ? ` with ${b.nodeFlags.join(' ')}` : '');
  console.log(`interleaved: ${label(builds[1])} against ${label(builds[0])}, ${rounds} rounds`);
  const figures = await compareInterleaved(builds, {
    rounds,
    onRound: (round, ms) =>
      console.log(
        `round ${round + 1}: this ${ms[1].toFixed(3)} ms per run, other ${ms[0].toFixed(3)} (${(ms[1] / ms[0]).toFixed(3)}x)`,
      ),
  });
  const ratio = ratioInterval(figures.ratios);
  const [was, now] = figures.cpuPerRunMs.map((f) => f.reduce((a, b) => a + b, 0) / f.length);
  console.log(
    `\nengine CPU per run over every round: ${now.toFixed(3)} ms against ${was.toFixed(3)} (${(now / was).toFixed(3)}x); ` +
      `the rounds' ratios: geometric mean ${ratio.ratio.toFixed(3)}x, 95% interval ${ratio.low.toFixed(3)}-${ratio.high.toFixed(3)}x`,
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      against: { type: 'string' },
      pairs: { type: 'string', default: '4' },
      keep: { type: 'boolean', default: false },
      interleaved: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '30' },
      'node-flags': { type: 'string', default: '' },
    },
  });
  const [pairs, rounds] = [Number(values.pairs), Number(values.rounds)];
  const badCount = (n: number) => !Number.isInteger(n) || n < 1;
  // Node flags apply to the interleaved engines only: the pairs' engines are started by the bench's parts.
  if (!values.against || badCount(pairs) || badCount(rounds) || (values['node-flags'] && !values.interleaved)) {
    console.error(
      'usage: npm run bench:compare -- --against <git revision> [--pairs <n>, default 4 | --interleaved ' +
        '[--rounds <n>, default 30] [--node-flags="<flags for this checkout\'s engine>"]] [--keep]',
    );
    process.exitCode = 2;
    return;
  }
  try {
    git('rev-parse', '--verify', '--quiet', `${values.against}^{commit}`);
  } catch {
    console.error(`bench:compare: ${values.against} is not a commit of this repository`);
    process.exitCode = 2;
    return;
  }
  const other = await checkOut(values.against);
  const ours = git('rev-parse', '--short=12', 'HEAD') + (git('status', '--porcelain') ? ' with changes' : '');
  const builds: [InterleavedBuild, InterleavedBuild] = [
    { name: `${other.sha.slice(0, 12)} (${values.against})`, bin: other.bin },
    { name: `this checkout (${ours})`, bin: AUTOSAVE_BIN },
  ];
  try {
    if (values.interleaved)
      await printInterleaved(
        [builds[0], { ...builds[1], nodeFlags: values['node-flags'].split(' ').filter(Boolean) }],
        rounds,
      );
    else await printPairs(builds, pairs);
  } finally {
    if (!values.keep) git('worktree', 'remove', '--force', other.dir);
  }
  for (const note of other.notes) console.log(`note: ${note}`);
  if (values.keep) console.log(`kept: ${other.dir} (git worktree remove --force <dir> removes it)`);
}

await main();
