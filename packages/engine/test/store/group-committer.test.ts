import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommitter } from '../../src/store/group-committer';

describe('GroupCommitter', () => {
  let dir: string;
  let db: Database.Database;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'group-commit-'));
    db = new Database(join(dir, 'db.sqlite'));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
  });
  afterEach(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('commits the writes queued in one turn in one transaction', async () => {
    const committer = new GroupCommitter(db);
    const insert = db.prepare('INSERT INTO t (k) VALUES (?)');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => committer.commit(() => insert.run(`k${i}`).changes)),
    );
    expect(results.every((r) => r === 1)).toBe(true);
    expect(committer.commits).toBe(1);
    expect(committer.writes).toBe(50);
    expect((db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n).toBe(50);
  });

  it('rolls back only the write that throws, and rejects only its promise', async () => {
    const committer = new GroupCommitter(db);
    const insert = db.prepare('INSERT INTO t (k) VALUES (?)');
    const outcomes = await Promise.allSettled([
      committer.commit(() => insert.run('a')),
      committer.commit(() => {
        insert.run('b');
        insert.run('a'); // duplicate key: this write fails as a whole
      }),
      committer.commit(() => insert.run('c')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((db.prepare('SELECT k FROM t ORDER BY k').all() as { k: string }[]).map((r) => r.k)).toEqual(['a', 'c']);
  });

  it('rolls back a lone write that throws whole (it runs without a savepoint), and rejects its promise', async () => {
    const committer = new GroupCommitter(db);
    const insert = db.prepare('INSERT INTO t (k) VALUES (?)');
    await committer.commit(() => insert.run('a'));
    const lone = committer.commit(() => {
      insert.run('b');
      insert.run('a'); // duplicate key: the write fails as a whole
    });
    await expect(lone).rejects.toThrow(/UNIQUE/);
    expect((db.prepare('SELECT k FROM t ORDER BY k').all() as { k: string }[]).map((r) => r.k)).toEqual(['a']);
    expect(db.inTransaction).toBe(false);
    await committer.commit(() => insert.run('c'));
    expect((db.prepare('SELECT k FROM t ORDER BY k').all() as { k: string }[]).map((r) => r.k)).toEqual(['a', 'c']);
  });

  it('rolls back only a deferred write (one statement) that throws beside others, without a savepoint of its own', async () => {
    const committer = new GroupCommitter(db);
    const insert = db.prepare('INSERT INTO t (k) VALUES (?)');
    await committer.commit(() => insert.run('a'));
    const deferredFails = committer.defer(() => insert.run('a')); // duplicate key
    const deferredOk = committer.defer(() => insert.run('d'));
    const outcomes = await Promise.allSettled([
      committer.commit(() => insert.run('b')),
      committer.commit(() => insert.run('c')),
      deferredFails,
      deferredOk,
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((db.prepare('SELECT k FROM t ORDER BY k').all() as { k: string }[]).map((r) => r.k)).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
    expect(db.inTransaction).toBe(false);
  });

  it('lets a deferred write ride along with the next transaction instead of forcing its own', async () => {
    const committer = new GroupCommitter(db);
    const insert = db.prepare('INSERT INTO t (k) VALUES (?)');
    const deferred = committer.defer(() => insert.run('later'));
    expect(committer.idle).toBe(true);
    await committer.commit(() => insert.run('now'));
    await deferred;
    expect(committer.commits).toBe(1);
    expect((db.prepare('SELECT k FROM t ORDER BY k').all() as { k: string }[]).map((r) => r.k)).toEqual([
      'later',
      'now',
    ]);
  });

  it('writes a group of rerunnable writes in one go; when one throws, the group is written again write by write, and only that one fails', async () => {
    const committer = new GroupCommitter(db);
    const insert = db.prepare('INSERT INTO t (k) VALUES (?)');
    const runs = new Map<string, number>();
    const counted = (k: string, write: () => unknown) => () => {
      runs.set(k, (runs.get(k) ?? 0) + 1);
      return write();
    };
    await committer.commit(() => insert.run('a'));
    const outcomes = await Promise.allSettled([
      committer.commit(
        counted('b', () => insert.run('b').changes),
        { rerunnable: true },
      ),
      committer.commit(
        counted('dup', () => {
          insert.run('c');
          insert.run('a'); // duplicate key: this write fails as a whole
        }),
        { rerunnable: true },
      ),
      committer.commit(
        counted('d', () => insert.run('d').changes),
        { rerunnable: true },
      ),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[0] as PromiseFulfilledResult<number>).value).toBe(1);
    expect((db.prepare('SELECT k FROM t ORDER BY k').all() as { k: string }[]).map((r) => r.k)).toEqual([
      'a',
      'b',
      'd',
    ]);
    // The group written whole stops at the write that throws (rolled back); then each runs in a savepoint of its own.
    expect(Object.fromEntries(runs)).toEqual({ b: 2, dup: 2, d: 1 });
    expect(committer.rewrites).toBe(1);
    expect(committer.commits).toBe(2);
    expect(db.inTransaction).toBe(false);
  });

  it('writes a group that holds a write not marked rerunnable with a savepoint each, running every write once', async () => {
    const committer = new GroupCommitter(db);
    const insert = db.prepare('INSERT INTO t (k) VALUES (?)');
    let once = 0;
    const outcomes = await Promise.allSettled([
      committer.commit(() => {
        once += 1;
        return insert.run('x').changes;
      }),
      committer.commit(() => insert.run('x'), { rerunnable: true }), // duplicate key
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    expect(once).toBe(1);
    expect(committer.rewrites).toBe(0);
  });

  it('tells onRollback when a group written whole is rolled back, and when a write in a savepoint is', async () => {
    let rollbacks = 0;
    const committer = new GroupCommitter(db, () => (rollbacks += 1));
    const insert = db.prepare('INSERT INTO t (k) VALUES (?)');
    await Promise.allSettled([
      committer.commit(() => insert.run('y'), { rerunnable: true }),
      committer.commit(() => insert.run('y'), { rerunnable: true }),
    ]);
    // The group rolled back whole, then the duplicate's savepoint.
    expect(rollbacks).toBe(2);
  });
});
