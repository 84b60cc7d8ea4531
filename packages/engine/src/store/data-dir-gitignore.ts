import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the data directory's own `.gitignore` holds: everything in it. */
export const DATA_DIR_GITIGNORE = '*\n';

/**
 * Keeps a data directory out of git (runs, histories, tables and payloads are never something to commit): writes a
 * `.gitignore` of `*` into it, as Python's venv and pytest's cache do, so the user's app needs no line of its own.
 * A `.gitignore` already there (the user's) is left as it is.
 */
export function ignoreInGit(dataDir: string): void {
  try {
    writeFileSync(join(dataDir, '.gitignore'), DATA_DIR_GITIGNORE, { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
