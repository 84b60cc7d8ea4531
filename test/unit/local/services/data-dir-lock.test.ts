import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_DIR_LOCK_FILE, DataDirectoryInUseError, lockDataDirectory } from '../../../../local/services/data-dir-lock';

describe('lockDataDirectory', () => {
  it('refuses a second engine while the first process lives, and frees the directory on release', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'autosave-lock-'));
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    try {
      await writeFile(join(dir, DATA_DIR_LOCK_FILE), String(sleeper.pid));
      const refused = await lockDataDirectory(dir).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(DataDirectoryInUseError);
      expect((refused as Error).message).toContain(`in use by process ${sleeper.pid}`);
    } finally {
      sleeper.kill('SIGKILL');
      await once(sleeper, 'exit');
    }
    // The holder was killed: its lock is stale and taken over.
    const release = await lockDataDirectory(dir);
    expect(await readFile(join(dir, DATA_DIR_LOCK_FILE), 'utf8')).toBe(String(process.pid));
    await release();
    const again = await lockDataDirectory(dir);
    await again();
  });
});
