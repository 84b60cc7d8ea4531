/**
 * The floor: one bare SQLite insert per step, each its own commit with fsync (WAL, synchronous=FULL) — the
 * least any engine that checkpoints every step on this disk can pay. Concurrency cannot help it: a commit
 * per step is a commit per step.
 */
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureWorkload, peakRssBytes, STEPS, stepResult, type WorkloadFigures } from './workload';

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
  db.close();
  await rm(dir, { recursive: true, force: true });
  return { ...figures, peakRssBytes: peakRssBytes() };
}
