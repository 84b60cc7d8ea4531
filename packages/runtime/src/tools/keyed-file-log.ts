import { randomUUID } from 'node:crypto';
import { mkdir, open, link, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Hex } from '../records';

/** Files {@link KeyedFileLog.list} reads at once. */
const LIST_OPEN_FILES = 32;

/** One entry of a {@link KeyedFileLog}. */
export interface KeyedEntry<T> {
  readonly idempotencyKey: string;
  readonly recordedAt: string;
  readonly value: T;
}

/**
 * A directory holding one JSON file per idempotency key: the local providers' memory of what they did.
 *
 * Safe under concurrent processes and crashes: an entry is written in full to a unique temporary file,
 * fsynced, then hard-linked to its final name. `link` fails if the name exists, so of two writers of the
 * same key exactly one wins and the other reads the winner's entry; a crash leaves either no entry or a
 * complete one (never a torn file), plus at worst a stray temporary file that readers ignore.
 */
export class KeyedFileLog<T> {
  constructor(readonly dir: string) {}

  /** Records `value` under `key` unless an entry exists; returns the entry that is now on disk. */
  async putOnce(
    key: string,
    value: T,
    now = new Date(),
  ): Promise<{ readonly entry: KeyedEntry<T>; readonly created: boolean }> {
    await mkdir(this.dir, { recursive: true });
    const entry: KeyedEntry<T> = { idempotencyKey: key, recordedAt: now.toISOString(), value };
    const final = this.pathOf(key);
    const temp = join(this.dir, `.tmp-${randomUUID()}`);
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(JSON.stringify(entry, null, 2));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temp, final);
      await this.syncDir();
      return { entry, created: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return { entry: (await this.get(key))!, created: false };
    } finally {
      await unlink(temp).catch(() => undefined);
    }
  }

  /** The entry recorded under `key`, if any. */
  async get(key: string): Promise<KeyedEntry<T> | undefined> {
    try {
      return JSON.parse(await readFile(this.pathOf(key), 'utf8')) as KeyedEntry<T>;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Every entry, oldest first. */
  async list(): Promise<KeyedEntry<T>[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    // A bounded number of files open at a time: a log of thousands of entries must not run the process out
    // of file descriptors (EMFILE), which the engine and its sandboxes share.
    const files = names.filter((n) => n.endsWith('.json'));
    const entries: KeyedEntry<T>[] = [];
    for (let i = 0; i < files.length; i += LIST_OPEN_FILES) {
      entries.push(
        ...(await Promise.all(
          files
            .slice(i, i + LIST_OPEN_FILES)
            .map(async (n) => JSON.parse(await readFile(join(this.dir, n), 'utf8')) as KeyedEntry<T>),
        )),
      );
    }
    return entries.sort(
      (a, b) => a.recordedAt.localeCompare(b.recordedAt) || a.idempotencyKey.localeCompare(b.idempotencyKey),
    );
  }

  private pathOf(key: string): string {
    // Hashed: keys contain ':' and '/', and may be long.
    return join(this.dir, `${sha256Hex(key)}.json`);
  }

  private async syncDir(): Promise<void> {
    const dir = await open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }
}
