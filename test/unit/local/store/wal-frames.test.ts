import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { walFramesDuring } from '../../../../packages/local/src/store/wal-frames';

// SQLite's WAL format: a COMMIT appends one frame per page it changed (https://www.sqlite.org/fileformat.html).
describe('walFramesDuring', () => {
  let dir: string;
  let db: Database.Database;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wal-frames-'));
    db = new Database(join(dir, 'db.sqlite'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE a (k INTEGER PRIMARY KEY, v TEXT); CREATE TABLE b (k INTEGER PRIMARY KEY, v TEXT); CREATE TABLE c (k INTEGER PRIMARY KEY, v TEXT)');
  });
  afterEach(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('counts one frame for each commit of a small row into one table', async () => {
    const insert = db.prepare('INSERT INTO a (v) VALUES (?)');
    const frames = await walFramesDuring(db, async () => {
      for (let i = 0; i < 10; i += 1) insert.run('small');
    });
    expect(frames).toBe(10);
  });

  it('counts a page of each table a commit changes', async () => {
    const tables = ['a', 'b', 'c'].map((t) => db.prepare(`INSERT INTO ${t} (v) VALUES (?)`));
    const commit = db.transaction(() => tables.forEach((s) => s.run('small')));
    const frames = await walFramesDuring(db, async () => {
      for (let i = 0; i < 4; i += 1) commit();
    });
    expect(frames).toBe(12);
  });

  it('counts from an emptied WAL, whatever was written before, and restores the automatic checkpoint', async () => {
    const insert = db.prepare('INSERT INTO a (v) VALUES (?)');
    for (let i = 0; i < 100; i += 1) insert.run('before');
    const before = db.pragma('wal_autocheckpoint', { simple: true });
    expect(await walFramesDuring(db, async () => void insert.run('one'))).toBe(1);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(before);
  });
});
