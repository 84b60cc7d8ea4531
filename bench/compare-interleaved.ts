/**
 * Two engines' CPU per run, measured side by side in short alternating blocks (`npm run bench:compare --
 * --interleaved`). This machine's speed moves by a fifth within minutes, so two figures taken a minute apart
 * differ by more than most changes to the engine. Here both engines run at once (started as `npm start` starts
 * one, in the example app's folder) and take turns: a block of the user-driven workload on one, then the same
 * block on the other, who goes first alternating. Each block's CPU is read from /proc for each engine, and the
 * ratio of the two blocks of a round is taken. Neighbouring blocks see the same machine; what still moves a
 * round's ratio is the engine's own lumps (a full collection lands in one block or the next), so the rounds'
 * ratios are printed with a 95% interval ({@link ratioInterval}).
 */
import { SFNClient } from '@aws-sdk/client-sfn';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { spawnEngine, type EngineProcess } from '../scripts/engine-process';
import { EXAMPLE_APP_DIR, processCpuSeconds, userDrivenRuns } from './api-engine';
import { javascriptFunctionsModule } from './restart';
import { IN_FLIGHT, runWithConcurrency } from './workload';

/** What one block runs: runs one at a time, then runs {@link IN_FLIGHT} in flight. */
export interface Block {
  readonly oneAtATime: number;
  readonly inFlight: number;
}

/**
 * The user-driven part's proportion (1 to 5), large enough that a full collection falling in one block or the
 * next moves a round's ratio by little.
 */
const BLOCK: Block = { oneAtATime: 60, inFlight: 300 };
/** Blocks each engine runs before the measured rounds (JIT, caches, file growth). */
const WARMUP_BLOCKS = 3;

/** Options of {@link compareInterleaved}. */
export interface InterleavedOptions {
  /** Rounds measured: each runs one block on each build. */
  readonly rounds: number;
  /** @default 60 runs one at a time, then 300 in flight */
  readonly block?: Block;
  /** Blocks each build runs before the first round. @default 3 */
  readonly warmupBlocks?: number;
  /** Called after each round with each build's CPU per run in it, ms. @default nothing */
  readonly onRound?: (round: number, cpuPerRunMs: readonly number[]) => void;
}

/** What one build is: its `autosave` bin, and Node flags for its process. */
export interface InterleavedBuild {
  readonly name: string;
  readonly bin: string;
  /** @default none */
  readonly nodeFlags?: readonly string[];
}

/** The figures of an interleaved comparison. */
export interface InterleavedFigures {
  /** Engine CPU per run in each round, ms, by build (in the order given). */
  readonly cpuPerRunMs: readonly (readonly number[])[];
  /** Each round's ratio of the second build's CPU per run to the first's. */
  readonly ratios: readonly number[];
}

interface Contender {
  readonly engine: EngineProcess;
  readonly sfn: SFNClient;
  readonly block: () => Promise<number>;
}

async function startContender(
  build: InterleavedBuild,
  dir: string,
  functionsModule: string,
  size: Block,
): Promise<Contender> {
  const { bin, nodeFlags } = build;
  const engine = await spawnEngine({ bin, nodeFlags, dataDir: dir, functionsModule, cwd: EXAMPLE_APP_DIR });
  const sfn = new SFNClient({ endpoint: engine.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const { driver } = await userDrivenRuns(sfn);
  let next = 0;
  /** Runs one block; its engine CPU per run, ms. */
  const block = async (): Promise<number> => {
    const from = processCpuSeconds(engine.pid);
    for (let r = 0; r < size.oneAtATime; r += 1) await driver.runToEnd((next += 1));
    await runWithConcurrency(size.inFlight, IN_FLIGHT, () => driver.runToEnd((next += 1)));
    return ((processCpuSeconds(engine.pid) - from) * 1000) / (size.oneAtATime + size.inFlight);
  };
  return { engine, sfn, block };
}

/** Runs rounds of a block on each of two builds, alternating which goes first. */
export async function compareInterleaved(
  builds: readonly [InterleavedBuild, InterleavedBuild],
  options: InterleavedOptions,
): Promise<InterleavedFigures> {
  const { rounds, block = BLOCK, warmupBlocks = WARMUP_BLOCKS, onRound = () => undefined } = options;
  const dir = await mkdtemp(join(tmpdir(), 'autosave-bench-interleaved-'));
  const contenders: Contender[] = [];
  try {
    const functionsModule = await javascriptFunctionsModule(dir);
    for (const [i, build] of builds.entries())
      contenders.push(await startContender(build, join(dir, `data-${i}`), functionsModule, block));
    for (let w = 0; w < warmupBlocks; w += 1) for (const c of contenders) await c.block();
    const cpuPerRunMs: number[][] = builds.map(() => []);
    const ratios: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      const figures: number[] = [];
      for (const i of order) figures[i] = await contenders[i].block();
      for (const [i, ms] of figures.entries()) cpuPerRunMs[i].push(ms);
      ratios.push(figures[1] / figures[0]);
      onRound(round, figures);
    }
    return { cpuPerRunMs, ratios };
  } finally {
    for (const c of contenders) {
      c.sfn.destroy();
      await c.engine.stop();
    }
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The rounds' ratios as their geometric mean with a 95% interval (the normal one on their logarithms, from
 * their spread): how far the figure can be trusted. One round gives no interval (its bounds are NaN).
 */
export function ratioInterval(ratios: readonly number[]): { ratio: number; low: number; high: number } {
  const logs = ratios.map(Math.log);
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const variance = logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1);
  const half = 1.96 * Math.sqrt(variance / logs.length);
  return { ratio: Math.exp(mean), low: Math.exp(mean - half), high: Math.exp(mean + half) };
}
