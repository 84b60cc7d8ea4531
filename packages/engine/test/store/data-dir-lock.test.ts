import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DATA_DIR_OWNER_FILE, DataDirectoryInUseError, lockDataDirectory } from '../../src/store/data-dir-lock';

const ROOT = resolve(fileURLToPath(new URL('./', import.meta.url)), '../../../..');
const HOLDER = 'test/fixtures/runtime/hold-data-dir.ts';

/**
 * Runs the holder under a parent that never reaps its children (`sh` that `exec`s `sleep`), so that once
 * killed it stays a zombie — as it does in a container without an init, or for a while under `npx`.
 */
async function holderUnderNonReapingParent(dir: string): Promise<{ pid: number; kill(): void; stopParent(): void }> {
  const parent = spawn(
    'sh',
    ['-c', `"${process.execPath}" --import tsx ${HOLDER} "${dir}" & echo "pid $!"; exec sleep 60`],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`the holder did not lock in time: ${out}`)), 30_000);
    parent.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('locked')) {
        clearTimeout(timer);
        done();
      }
    });
  });
  const pid = Number(/pid (\d+)/.exec(out)![1]);
  return { pid, kill: () => process.kill(pid, 'SIGKILL'), stopParent: () => parent.kill('SIGKILL') };
}

const processState = (pid: number) =>
  readFile(`/proc/${pid}/stat`, 'utf8').then(
    (s) => s.slice(s.lastIndexOf(')') + 2)[0],
    () => 'gone',
  );

describe('lockDataDirectory', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => cleanups.splice(0).forEach((c) => c()));

  it('refuses a second engine while the holder lives, naming its pid', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'autosave-lock-'));
    const holder = await holderUnderNonReapingParent(dir);
    cleanups.push(
      () => holder.stopParent(),
      () => holder.kill(),
    );
    const refused = await lockDataDirectory(dir).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DataDirectoryInUseError);
    expect((refused as Error).message).toContain(`in use by process ${holder.pid}`);
  });

  it('takes the directory at once from a holder killed with SIGKILL, even while it is a zombie', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'autosave-lock-'));
    const holder = await holderUnderNonReapingParent(dir);
    cleanups.push(() => holder.stopParent());
    holder.kill();
    for (let i = 0; i < 200 && (await processState(holder.pid)) !== 'Z'; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await processState(holder.pid)).toBe('Z');
    const release = await lockDataDirectory(dir);
    expect(await readFile(join(dir, DATA_DIR_OWNER_FILE), 'utf8')).toBe(String(process.pid));
    await release();
  });

  it('refuses a second lock in the same process, and frees the directory on release', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'autosave-lock-'));
    const release = await lockDataDirectory(dir);
    await expect(lockDataDirectory(dir)).rejects.toBeInstanceOf(DataDirectoryInUseError);
    await release();
    const again = await lockDataDirectory(dir);
    await again();
  });
});
