import type { Database } from 'better-sqlite3';
import { statSync } from 'node:fs';

/** Sizes from SQLite's WAL file format (https://www.sqlite.org/fileformat.html#the_write_ahead_log). */
const WAL_HEADER_BYTES = 32;
const WAL_FRAME_HEADER_BYTES = 24;

/**
 * How many pages (WAL frames) `work` writes to a database in WAL mode: each fsync'd COMMIT writes every
 * page it changed, so its cost grows with them. The WAL is checkpointed and emptied first and not
 * checkpointed during `work` (the automatic checkpoint resumes after), so the WAL's length afterwards
 * counts every frame written. A measuring aid (`npm run bench`): durability is unchanged. `settle` runs
 * after `work`, before the count (a group commit's last flush).
 */
export async function walFramesDuring(db: Database, work: () => Promise<void>, settle: () => void = () => {}): Promise<number> {
  const walFile = `${db.name}-wal`;
  const autocheckpoint = Number(db.pragma('wal_autocheckpoint', { simple: true }));
  settle();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.pragma('wal_autocheckpoint = 0');
  try {
    await work();
    settle();
    const pageSize = Number(db.pragma('page_size', { simple: true }));
    const bytes = statSync(walFile, { throwIfNoEntry: false })?.size ?? 0;
    return bytes <= WAL_HEADER_BYTES ? 0 : (bytes - WAL_HEADER_BYTES) / (WAL_FRAME_HEADER_BYTES + pageSize);
  } finally {
    db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
  }
}
