import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AutosaveError } from '../../lib/errors';

/** The file in the data directory that names the process using it. */
export const DATA_DIR_LOCK_FILE = 'engine.pid';

/** Another live process already runs an engine on this data directory. */
export class DataDirectoryInUseError extends AutosaveError {
  override readonly name = 'DataDirectoryInUseError';

  constructor(readonly dataDir: string, readonly pid: number) {
    super(`the data directory ${dataDir} is in use by process ${pid}: stop that engine first, or pass another --data directory`);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the data directory for this process. Two engines on one directory would corrupt each other's
 * stores (dynalite's LevelDB fails with an obscure "Database is closed"), so the second one is refused
 * with a clear error. A lock left by a killed process (SIGKILL leaves it behind) is taken over.
 * Resolves to the release function.
 */
export async function lockDataDirectory(dataDir: string): Promise<() => Promise<void>> {
  const file = join(dataDir, DATA_DIR_LOCK_FILE);
  for (let round = 0; round < 2; round++) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx' });
      return async () => {
        const owner = Number(await readFile(file, 'utf8').catch(() => ''));
        if (owner === process.pid) await rm(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) throw new DataDirectoryInUseError(dataDir, pid);
      await rm(file, { force: true });
    }
  }
  throw new DataDirectoryInUseError(dataDir, NaN);
}
