import type { Database } from 'better-sqlite3';
import { readFileSync, statSync } from 'node:fs';

/** Sizes from SQLite's WAL file format (https://www.sqlite.org/fileformat.html#the_write_ahead_log). */
const WAL_HEADER_BYTES = 32;
const WAL_FRAME_HEADER_BYTES = 24;

/** What a page written to the WAL belongs to, when no table or index owns it. */
export const PAGE_LABELS = {
  /**
   * Page 1: the file header, which a commit rewrites when the file grows or the free list changes, and the
   * root of `sqlite_schema` (which a transition never changes).
   */
  header: '(header)',
  /** A pointer-map page of an auto-vacuum file (https://www.sqlite.org/fileformat.html#pointer_map_or_ptrmap_pages). */
  pointerMap: '(pointer map)',
  /** A page on the free list, or past the end of the file, when counted. */
  free: '(free)',
} as const;

/**
 * Runs `work` with the WAL checkpointed and emptied first and not checkpointed meanwhile (the automatic
 * checkpoint resumes after), then `count`s what the WAL holds: every frame `work` wrote is in it.
 * `settle` runs after `work`, before the count (a group commit's last flush).
 */
async function withEmptiedWal<T>(
  db: Database,
  work: () => Promise<void>,
  settle: () => void,
  count: (walFile: string, pageSize: number) => T,
): Promise<T> {
  const autocheckpoint = Number(db.pragma('wal_autocheckpoint', { simple: true }));
  settle();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.pragma('wal_autocheckpoint = 0');
  try {
    await work();
    settle();
    return count(`${db.name}-wal`, Number(db.pragma('page_size', { simple: true })));
  } finally {
    db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
  }
}

/**
 * How many pages (WAL frames) `work` writes to a database in WAL mode: each fsync'd COMMIT writes every
 * page it changed, so its cost grows with them. A measuring aid (`npm run bench`): durability is unchanged.
 * `settle` runs after `work`, before the count (a group commit's last flush).
 */
export function walFramesDuring(
  db: Database,
  work: () => Promise<void>,
  settle: () => void = () => {},
): Promise<number> {
  return withEmptiedWal(db, work, settle, (walFile, pageSize) => {
    const bytes = statSync(walFile, { throwIfNoEntry: false })?.size ?? 0;
    return bytes <= WAL_HEADER_BYTES ? 0 : (bytes - WAL_HEADER_BYTES) / (WAL_FRAME_HEADER_BYTES + pageSize);
  });
}

/** The page numbers of each commit in a WAL file, in order (frames of an earlier WAL generation, with other salts, are skipped). */
export function walCommitPageNumbers(walFile: string): number[][] {
  const wal = readFileSync(walFile, { flag: 'r' });
  if (wal.length < WAL_HEADER_BYTES) return [];
  const pageSize = wal.readUInt32BE(8);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  const commits: number[][] = [];
  let pages: number[] = [];
  for (
    let at = WAL_HEADER_BYTES;
    at + WAL_FRAME_HEADER_BYTES + pageSize <= wal.length;
    at += WAL_FRAME_HEADER_BYTES + pageSize
  ) {
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break;
    pages.push(wal.readUInt32BE(at));
    // A commit's last frame holds the database's size in pages after it; the others hold 0.
    if (wal.readUInt32BE(at + 4) !== 0) {
      commits.push(pages);
      pages = [];
    }
  }
  return commits;
}

/**
 * What each page number belongs to (a table's or an index's name, or one of {@link PAGE_LABELS}), read from
 * SQLite's `dbstat` table as the file is now.
 */
export function pageOwners(db: Database, pageNumbers: Iterable<number>): Map<number, string> {
  const wanted = new Set(pageNumbers);
  const owners = new Map<number, string>();
  for (const row of db.prepare('SELECT name, pageno FROM dbstat').iterate() as Iterable<{
    name: string;
    pageno: number;
  }>) {
    if (wanted.has(row.pageno) && row.pageno !== 1) owners.set(row.pageno, row.name);
  }
  const autoVacuum = Number(db.pragma('auto_vacuum', { simple: true })) !== 0;
  // Usable bytes per page over 5 bytes an entry, plus the map page itself (SQLite's ptrmapPageno).
  const pagesPerMap = Math.floor(Number(db.pragma('page_size', { simple: true })) / 5) + 1;
  for (const page of wanted) {
    if (owners.has(page)) continue;
    if (page === 1) owners.set(page, PAGE_LABELS.header);
    else if (autoVacuum && (page - 2) % pagesPerMap === 0) owners.set(page, PAGE_LABELS.pointerMap);
    else owners.set(page, PAGE_LABELS.free);
  }
  return owners;
}

/**
 * The pages each commit of `work` writes, labelled by what they belong to ({@link pageOwners}), one list
 * per commit in commit order: which table, index or bookkeeping page a transition's fsync pays for. A
 * measuring aid like {@link walFramesDuring}.
 */
export function walCommitsDuring(
  db: Database,
  work: () => Promise<void>,
  settle: () => void = () => {},
): Promise<string[][]> {
  return withEmptiedWal(db, work, settle, (walFile) => {
    const commits = statSync(walFile, { throwIfNoEntry: false }) ? walCommitPageNumbers(walFile) : [];
    const owners = pageOwners(db, commits.flat());
    return commits.map((pages) => pages.map((p) => owners.get(p)!));
  });
}
