/**
 * A keyed file log (the local outbox of sent emails) is read whole however many entries it holds: a deploy
 * rehearsal of 10,000 runs lists 11,000 emails, and reading every file at once ran the process out of file
 * descriptors (EMFILE). The list opens a bounded number of files at a time; here under a limit of 128
 * descriptors for 1,000 entries.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyedFileLog } from '../../src/tools/keyed-file-log';

const ENTRIES = 1_000;
const MODULE = fileURLToPath(new URL('../../src/tools/keyed-file-log.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

describe('KeyedFileLog.list', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it(`lists ${ENTRIES} entries in a process allowed 128 open files`, { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'autosave-keyed-log-'));
    dirs.push(dir);
    const log = new KeyedFileLog<{ n: number }>(dir);
    for (let n = 0; n < ENTRIES; n += 50)
      await Promise.all(Array.from({ length: 50 }, (_, i) => log.putOnce(`key-${n + i}`, { n: n + i })));
    const script = `const { KeyedFileLog } = await import(${JSON.stringify(MODULE)}); const l = await new KeyedFileLog(${JSON.stringify(dir)}).list(); console.log(l.length);`;
    const out = execFileSync(
      'bash',
      ['-c', `ulimit -n 128 && exec "${process.execPath}" --import tsx --input-type=module -e '${script}'`],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(Number(out.trim())).toBe(ENTRIES);
  });
});
