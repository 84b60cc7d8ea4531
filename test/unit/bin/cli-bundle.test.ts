/**
 * bin/autosave.js runs the CLI bundle that bin/cli-bundle.js builds from the sources: every handler the
 * engine runs is in it, and a bundle whose recorded inputs no longer match the sources is rebuilt, never run.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI_BUNDLE_DIR, cliBundle } from '../../../bin/cli-bundle.js';

interface Manifest {
  build: string;
  builtAt: string;
  inputs: Record<string, { size: number; mtimeMs: number; sha256: string }>;
}
const MANIFEST = join(CLI_BUNDLE_DIR, 'manifest.json');
const readManifest = async () => JSON.parse(await readFile(MANIFEST, 'utf8')) as Manifest;

describe('the CLI bundle', () => {
  it('holds the CLI, the engine and every Lambda handler of the registry', async () => {
    const entry = fileURLToPath(await cliBundle());
    expect(entry.startsWith(CLI_BUNDLE_DIR)).toBe(true);
    const { inputs } = await readManifest();
    for (const file of [
      'packages/local/src/cli/main.ts',
      'packages/local/src/cli/commands/local.ts',
      'packages/local/src/server.ts',
      'packages/runtime/src/handlers/tool-step.ts',
      'packages/runtime/src/handlers/approval-endpoint.ts',
    ]) {
      expect(Object.keys(inputs)).toContain(file);
    }
    // The project's workflows come from its autosave.config.ts at run time, never from the bundle.
    expect(Object.keys(inputs)).not.toContain('statemachines/index.ts');
    expect(Object.keys(inputs).some((f) => f.includes('node_modules/'))).toBe(false);
  });

  it('is rebuilt when a source no longer matches what it was built from', async () => {
    await cliBundle();
    const stale = await readManifest();
    // As if cli/main.ts had been edited since: another time, another size, another hash.
    stale.inputs['packages/local/src/cli/main.ts'] = { size: 1, mtimeMs: 1, sha256: '0'.repeat(64) };
    stale.builtAt = '2000-01-01T00:00:00.000Z';
    await writeFile(MANIFEST, JSON.stringify(stale));
    await cliBundle();
    const rebuilt = await readManifest();
    expect(rebuilt.builtAt).not.toBe(stale.builtAt);
    expect(rebuilt.inputs['packages/local/src/cli/main.ts'].sha256).not.toBe('0'.repeat(64));
  });

  it('is not rebuilt while every source matches', async () => {
    await cliBundle();
    const before = await readManifest();
    await cliBundle();
    expect((await readManifest()).builtAt).toBe(before.builtAt);
  });
});
