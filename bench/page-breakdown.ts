/**
 * Which pages each transition of the workload writes: the start (StartExecution with the first Task
 * scheduled), a middle one (a Task's outcome and the next Task scheduled) and the close (the last Task's
 * outcome and ExecutionSucceeded), each page labelled by the table or index it belongs to. One run at a
 * time, every commit is one transition, so a run's commits are its transitions in order; with runs in
 * flight, commits carry several, and only totals per step are given.
 */
import type { Engine } from '@autosave/engine';
import { runWithConcurrency, STEPS } from './workload';

/** Commits of one run one at a time: the start, then each Task's outcome (the last closes the run). */
const COMMITS_PER_RUN = STEPS + 1;

/** Pages per commit by label, averaged over `commits`. */
function average(commits: readonly string[][]): { total: number; byLabel: [string, number][] } {
  const byLabel = new Map<string, number>();
  for (const pages of commits) for (const label of pages) byLabel.set(label, (byLabel.get(label) ?? 0) + 1);
  const n = Math.max(1, commits.length);
  return {
    total: commits.reduce((sum, pages) => sum + pages.length, 0) / n,
    byLabel: [...byLabel.entries()]
      .map(([label, count]) => [label, count / n] as [string, number])
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
  };
}

const line = (name: string, figures: { total: number; byLabel: [string, number][] }) =>
  `  ${name.padEnd(8)} ${figures.total.toFixed(2).padStart(5)}  ${figures.byLabel.map(([label, n]) => `${label} ${n.toFixed(2)}`).join(', ')}`;

/**
 * Runs `runs` runs one at a time and `concurrentRuns` with `inFlight` at a time, and returns the
 * breakdown as printable lines. `run(name)` starts a run and resolves once it closed.
 */
export async function pageBreakdown(
  engine: Engine,
  run: (name: string) => Promise<unknown>,
  runs: number,
  concurrentRuns: number,
  inFlight: number,
): Promise<string[]> {
  const sequential = await engine.walCommitsDuring(async () => {
    for (let r = 0; r < runs; r += 1) await run(`pages-${r}`);
  });
  const concurrent = await engine.walCommitsDuring(() =>
    runWithConcurrency(concurrentRuns, inFlight, (r) => run(`pages-c-${r}`)),
  );
  const out: string[] = [];
  out.push(`Pages (WAL frames) per transition, one run at a time (${runs} runs, ${sequential.length} commits):`);
  // The last run's deferred bookkeeping (its close notification's removal) rides along with the next
  // start; at the end it is flushed alone, as one more commit.
  const transitions = sequential.slice(0, runs * COMMITS_PER_RUN);
  if (sequential.length - transitions.length <= 1 && transitions.length === runs * COMMITS_PER_RUN) {
    const at = (k: (i: number) => boolean) => transitions.filter((_, i) => k(i % COMMITS_PER_RUN));
    out.push(line('start', average(at((i) => i === 0))));
    out.push(line('middle', average(at((i) => i > 0 && i < COMMITS_PER_RUN - 1))));
    out.push(line('close', average(at((i) => i === COMMITS_PER_RUN - 1))));
  } else {
    out.push(`  (${sequential.length} commits, not ${COMMITS_PER_RUN} per run: only the average per commit)`);
  }
  const perStep = (commits: string[][], n: number) => {
    const a = average(commits);
    const scale = commits.length / (n * STEPS);
    return { total: a.total * scale, byLabel: a.byLabel.map(([label, v]) => [label, v * scale] as [string, number]) };
  };
  out.push(line('per step', perStep(sequential, runs)));
  out.push(
    `${inFlight} in flight (${concurrentRuns} runs, ${concurrent.length} commits, ${(concurrent.length / (concurrentRuns * STEPS)).toFixed(2)} per step):`,
  );
  out.push(line('per step', perStep(concurrent, concurrentRuns)));
  return out;
}
