/**
 * `npm run bench:commit-wait`: what a commit's wait costs the sequential path beyond the wait itself.
 *
 * Runs the seven-step workload in process, one run at a time, in four set-ups, each in a process of its own
 * (the set-up patches better-sqlite3 for that process only): the engine as shipped (`synchronous=FULL`); the
 * engine with `synchronous=OFF` (no fsync: its CPU alone); the same plus a blocking wait of
 * {@link WAIT_MILLIS} ms after every COMMIT (a stand-in fsync that writes nothing); and the floor (one
 * fsync'd insert per step). Prints wall time and CPU (user, system) per step.
 *
 * Why: with the wait the CPU per step grows although the work is the same. A thread that blocks comes back
 * to cold caches, and the engine touches far more code and data per step than the floor's one insert, so
 * the sequential ratio to the floor is bounded by more than the engine's CPU with sync off. None of these
 * set-ups is how the engine runs; they are for reading the sequential figure of `npm run bench`.
 */
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEngine, mustSucceed, ROLE } from './autosave-engine';
import { STEPS, sevenStepDefinition, stepResult } from './workload';

/** The stand-in fsync: about what one costs on the disk this was written on. */
const WAIT_MILLIS = 0.2;
const RUNS = Number(process.env.BENCH_COMMIT_WAIT_RUNS ?? 300);
const WARMUP_RUNS = 100;
const SETUPS = [
  'engine, synchronous=FULL',
  'engine, synchronous=OFF',
  `engine, synchronous=OFF + ${WAIT_MILLIS} ms wait per COMMIT`,
  'floor, synchronous=FULL',
] as const;
type Setup = (typeof SETUPS)[number];

interface PerStep {
  wallMs: number;
  userMs: number;
  systemMs: number;
}

/** Switches every connection this process opens to `synchronous=OFF`, and optionally waits after each COMMIT. */
function patchSqlite(waitMillis: number | undefined): void {
  const database = Object.getPrototypeOf(new Database(':memory:')) as {
    pragma: (source: string, options?: unknown) => unknown;
  };
  const pragma = database.pragma;
  database.pragma = function pragmaWithSyncOff(this: unknown, source: string, options?: unknown) {
    return pragma.call(this, source.replace(/synchronous\s*=\s*FULL/i, 'synchronous = OFF'), options);
  };
  if (waitMillis === undefined) return;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const statement = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as {
    run: (...args: unknown[]) => unknown;
  };
  const run = statement.run;
  statement.run = function runThenWait(this: { source: string }, ...args: unknown[]) {
    const result = run.apply(this, args);
    if (this.source === 'COMMIT') Atomics.wait(cell, 0, 0, waitMillis);
    return result;
  };
}

async function measure(setup: Setup): Promise<PerStep> {
  if (setup === SETUPS[1]) patchSqlite(undefined);
  if (setup === SETUPS[2]) patchSqlite(WAIT_MILLIS);
  const dir = await mkdtemp(join(tmpdir(), 'autosave-bench-commit-wait-'));
  try {
    let runOne: (r: number) => Promise<void>;
    let stop: () => Promise<void> = async () => undefined;
    if (setup === SETUPS[3]) {
      const db = new Database(join(dir, 'floor.sqlite'));
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.exec('CREATE TABLE steps (run INTEGER, step INTEGER, result TEXT)');
      const insert = db.prepare('INSERT INTO steps VALUES (?, ?, ?)');
      runOne = async (r) => {
        for (let s = 1; s <= STEPS; s += 1) {
          insert.run(r, s, JSON.stringify(stepResult(s)));
          await Promise.resolve();
        }
      };
      stop = async () => void db.close();
    } else {
      const { engine, run } = benchEngine(dir, []);
      await engine.start();
      const { stateMachineArn } = (await engine.handle('CreateStateMachine', {
        name: 'seven',
        definition: JSON.stringify(sevenStepDefinition()),
        roleArn: ROLE,
      })) as {
        stateMachineArn: string;
      };
      runOne = async (r) => mustSucceed(await run(stateMachineArn, `run-${r}`));
      stop = () => engine.stop();
    }
    for (let r = 0; r < WARMUP_RUNS; r += 1) await runOne(-1 - r);
    const cpuBefore = process.cpuUsage();
    const began = performance.now();
    for (let r = 0; r < RUNS; r += 1) await runOne(r);
    const wallMs = performance.now() - began;
    const cpu = process.cpuUsage(cpuBefore);
    await stop();
    const steps = RUNS * STEPS;
    return { wallMs: wallMs / steps, userMs: cpu.user / 1000 / steps, systemMs: cpu.system / 1000 / steps };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const only = process.argv[2];
if (only !== undefined) {
  console.log(`COMMIT_WAIT_RESULT ${JSON.stringify(await measure(SETUPS[Number(only)]!))}`);
} else {
  console.log(`${RUNS} runs of ${STEPS} steps one at a time, after ${WARMUP_RUNS} warm-up runs; per step:`);
  for (const [index, setup] of SETUPS.entries()) {
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), String(index)], {
      encoding: 'utf8',
    });
    const line = child.stdout.split('\n').find((l) => l.startsWith('COMMIT_WAIT_RESULT '));
    if (!line) throw new Error(`${setup} printed no result:\n${child.stdout}\n${child.stderr}`);
    const r = JSON.parse(line.slice('COMMIT_WAIT_RESULT '.length)) as PerStep;
    console.log(
      `  ${setup.padEnd(52)} wall ${r.wallMs.toFixed(3)} ms   CPU user ${r.userMs.toFixed(3)} ms, system ${r.systemMs.toFixed(3)} ms`,
    );
  }
}
