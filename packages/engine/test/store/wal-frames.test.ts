import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PAGE_LABELS, walCommitPageNumbers, walCommitsDuring, walFramesDuring } from '../../src/store/wal-frames';

/** A database file in WAL mode with `synchronous=FULL` and the tables `schema` makes, for each test; closed and removed after. */
function walDatabase(schema: string, pragmas: string[] = []): () => Database.Database {
  let dir: string;
  let db: Database.Database;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wal-frames-'));
    db = new Database(join(dir, 'db.sqlite'));
    for (const pragma of [...pragmas, 'journal_mode = WAL', 'synchronous = FULL']) db.pragma(pragma);
    db.exec(schema);
  });
  afterEach(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });
  return () => db;
}

// SQLite's WAL format: a COMMIT appends one frame per page it changed (https://www.sqlite.org/fileformat.html).
describe('walFramesDuring', () => {
  const database = walDatabase(
    'CREATE TABLE a (k INTEGER PRIMARY KEY, v TEXT); CREATE TABLE b (k INTEGER PRIMARY KEY, v TEXT); CREATE TABLE c (k INTEGER PRIMARY KEY, v TEXT)',
  );
  let db: Database.Database;
  beforeEach(() => {
    db = database();
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

// The WAL's frame header names the page it holds and marks a commit's last frame
// (https://www.sqlite.org/fileformat.html#wal_file_format); dbstat names the b-tree owning a page.
describe('walCommitsDuring', () => {
  const database = walDatabase(
    'CREATE TABLE a (k INTEGER PRIMARY KEY, v TEXT); CREATE TABLE c (k TEXT PRIMARY KEY, v TEXT); CREATE INDEX c_by_v ON c (v)',
    ['auto_vacuum = INCREMENTAL'],
  );
  let db: Database.Database;
  beforeEach(() => {
    db = database();
  });

  it('lists each commit with the table or index each of its pages belongs to', async () => {
    const intoA = db.prepare('INSERT INTO a (v) VALUES (?)');
    const intoC = db.prepare('INSERT INTO c (k, v) VALUES (?, ?)');
    const both = db.transaction((i: number) => {
      intoA.run('x');
      intoC.run(`k${i}`, 'v');
    });
    const commits = await walCommitsDuring(db, async () => {
      intoA.run('alone');
      both(1);
    });
    expect(commits).toHaveLength(2);
    expect(commits[0]).toEqual(['a']);
    expect([...commits[1]].sort()).toEqual(['a', 'c', 'c_by_v', 'sqlite_autoindex_c_1']);
  });

  it('names the pages no b-tree owns: the header and the pointer map of a growing auto-vacuum file', async () => {
    const big = db.prepare('INSERT INTO a (v) VALUES (?)');
    const commits = await walCommitsDuring(db, async () => void big.run('x'.repeat(20_000)));
    expect(commits).toHaveLength(1);
    expect(commits[0]).toContain(PAGE_LABELS.header);
    expect(commits[0]).toContain(PAGE_LABELS.pointerMap);
    expect(commits[0].filter((p) => p === 'a').length).toBeGreaterThanOrEqual(5);
  });

  it('reads no frame of an older WAL generation (other salts)', () => {
    db.prepare('INSERT INTO a (v) VALUES (?)').run('one');
    expect(walCommitPageNumbers(`${db.name}-wal`).length).toBeGreaterThan(0);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.prepare('INSERT INTO a (v) VALUES (?)').run('two');
    expect(walCommitPageNumbers(`${db.name}-wal`)).toHaveLength(1);
  });
});
