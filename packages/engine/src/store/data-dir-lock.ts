import Database from 'better-sqlite3';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AutosaveError } from '@autosave/workflow/errors';
import { ignoreInGit } from './data-dir-gitignore';

/** The lock file in the data directory: an SQLite database held in exclusive locking mode. */
export const DATA_DIR_LOCK_FILE = 'engine.lock';
/** Names the process holding the lock, for the error message only (never probed: see {@link lockDataDirectory}). */
export const DATA_DIR_OWNER_FILE = 'engine.pid';

/**
 * How long a start waits for the lock before calling the directory in use. A killed engine's threads may
 * still be closing its files for a few milliseconds after its main thread already shows as a zombie.
 */
export const DATA_DIR_LOCK_WAIT_MILLIS = 1_000;

/** Another live process already runs an engine on this data directory. */
export class DataDirectoryInUseError extends AutosaveError {
  override readonly name = 'DataDirectoryInUseError';

  constructor(
    readonly dataDir: string,
    readonly pid: number | undefined,
  ) {
    super(
      `the data directory ${dataDir} is in use by ${pid ? `process ${pid}` : 'another process'}: stop that engine first, or pass another --data directory`,
    );
  }
}

/**
 * Takes the data directory for this process. Two engines on one directory would corrupt each other's
 * stores (dynalite's LevelDB fails with an obscure "Database is closed"), so the second one is refused
 * with a clear error. Resolves to the release function. The directory is kept out of git (see {@link ignoreInGit}).
 *
 * The lock is a kernel lock, never a PID probe: a PID file probed with `kill(pid, 0)` is "alive" while the
 * killed engine is a zombie (which, started through `npx` or in a container without an init, may be for
 * ever), so a supervisor's restart was refused. Node has no `flock`; SQLite takes POSIX `fcntl` locks,
 * which the kernel drops the moment the holder dies (its descriptors close before it turns zombie), and
 * which SQLite also enforces between connections of one process. In `locking_mode=EXCLUSIVE` the
 * connection keeps the write lock it takes until it is closed.
 */
export async function lockDataDirectory(dataDir: string): Promise<() => Promise<void>> {
  const ownerFile = join(dataDir, DATA_DIR_OWNER_FILE);
  const db = new Database(join(dataDir, DATA_DIR_LOCK_FILE), { timeout: DATA_DIR_LOCK_WAIT_MILLIS });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // What the file holds does not matter, only the lock: no journal and no fsync, which a start waited for
    // (2 ms on a quiet disk, 30 under another process's fsyncs).
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    // A write takes the exclusive lock; in exclusive locking mode it is kept after the commit.
    db.exec(
      'BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS lock_taken (at_ms INTEGER); DELETE FROM lock_taken; INSERT INTO lock_taken VALUES (0); COMMIT',
    );
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY')
      throw new DataDirectoryInUseError(dataDir, readOwner(ownerFile));
    throw err;
  }
  writeFileSync(ownerFile, String(process.pid));
  // Every engine takes its data directory here (autosave local, startLocal, the test environment).
  ignoreInGit(dataDir);
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    if (readOwner(ownerFile) === process.pid) rmSync(ownerFile, { force: true });
    db.close();
  };
}

function readOwner(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
