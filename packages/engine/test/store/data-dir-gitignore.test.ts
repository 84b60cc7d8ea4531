/**
 * An engine's data directory (`.autosave/` in the user's app by default) holds runs, histories, tables and payloads:
 * never something to commit. Taking the directory writes a `.gitignore` of `*` into it, as Python's venv and
 * pytest's cache do, so the user's app needs no line of its own; a `.gitignore` the user put there is kept.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockDataDirectory } from '@autosave/engine/store';

describe('the data directory taken by an engine', () => {
  it('ignores itself in git: a .gitignore of * written when the engine takes it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'autosave-gitignore-'));
    const release = await lockDataDirectory(dir);
    await release();
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe('*\n');
  });

  it("keeps a .gitignore of the user's own", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'autosave-gitignore-'));
    await writeFile(join(dir, '.gitignore'), '!keep-me\n');
    const release = await lockDataDirectory(dir);
    await release();
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe('!keep-me\n');
  });
});
