/**
 * The floor: one bare SQLite insert per step, each its own commit with fsync (WAL, synchronous=FULL) — the
 * least any engine that checkpoints every step on this disk can pay. Concurrency cannot help it: a commit
 * per step is a commit per step.
 */
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { walFramesDuring } from '@autosave/engine/store';
import { measureWorkload, PAGE_SAMPLE_RUNS, peakRssBytes, STEPS, stepResult, type WorkloadFigures } from './workload';

export async function measureFloor(): Promise<WorkloadFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'autosave-bench-floor-'));
  const db = new Database(join(dir, 'floor.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE steps (run INTEGER, step INTEGER, result TEXT)');
  const insert = db.prepare('INSERT INTO steps VALUES (?, ?, ?)');
  const run = async (r: number) => {
    for (let s = 1; s <= STEPS; s += 1) {
      insert.run(r, s, JSON.stringify(stepResult(s)));
      await Promise.resolve();
    }
  };
  const figures = await measureWorkload(run);
  const pages = await walFramesDuring(db, async () => {
    for (let r = 0; r < PAGE_SAMPLE_RUNS; r += 1) await run(-1 - r);
  });
  db.close();
  await rm(dir, { recursive: true, force: true });
  const perStep = pages / (PAGE_SAMPLE_RUNS * STEPS);
  return { ...figures, peakRssBytes: peakRssBytes(), pagesPerStep: { sequential: perStep, concurrent: perStep } };
}
