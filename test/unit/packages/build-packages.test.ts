/**
 * The package build (scripts/build-packages.mjs) is incremental and each package builds itself when packed
 * (issue 32, item 5): a package whose inputs are unchanged since its last build is skipped, a changed source
 * or dependency rebuilds it, and `npm pack` in a package's folder runs its `prepack`, which builds that package,
 * so the tarball never ships without dist/.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildDecision, inputsHash } from '../../../scripts/build-packages.mjs';

const ROOT = resolve(import.meta.dirname, '../../..');

describe('buildDecision', () => {
  it('skips a package whose inputs match its last build and whose dist/ is complete', () => {
    expect(buildDecision({ inputs: 'a', recorded: 'a', outputsPresent: true })).toEqual({
      build: false,
      reason: 'unchanged since its last build',
    });
  });

  it('rebuilds when the inputs changed, were never recorded, dist/ is gone, or when forced', () => {
    expect(buildDecision({ inputs: 'b', recorded: 'a', outputsPresent: true }).build).toBe(true);
    expect(buildDecision({ inputs: 'a', recorded: undefined, outputsPresent: true }).build).toBe(true);
    expect(buildDecision({ inputs: 'a', recorded: 'a', outputsPresent: false }).build).toBe(true);
    expect(buildDecision({ inputs: 'a', recorded: 'a', outputsPresent: true, force: true }).build).toBe(true);
  });
});

describe('inputsHash', () => {
  const WORKSPACES = ['packages/base', 'packages/top'];
  let root: string;

  /** A repository of two packages, `top` depending on `base`. */
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'autosave-build-inputs-'));
    const files: Record<string, string> = {
      'tsconfig.json': '{}',
      'scripts/build-packages.mjs': '// build',
      'package-lock.json': '{}',
      'packages/base/package.json': JSON.stringify({ name: '@autosave/base' }),
      'packages/base/src/index.ts': 'export const base = 1;',
      'packages/top/package.json': JSON.stringify({
        name: '@autosave/top',
        dependencies: { '@autosave/base': '0.1.0' },
      }),
      'packages/top/src/index.ts': "export { base } from '@autosave/base';",
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(join(root, file, '..'), { recursive: true });
      await writeFile(join(root, file), text);
    }
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const hashOf = (dir: string) => inputsHash(dir, WORKSPACES, root);
  const edit = async (file: string) =>
    writeFile(join(root, file), `${await readFile(join(root, file), 'utf8')}\n// edited`);

  it('is the same for the same inputs, so an unchanged package is skipped', async () => {
    const first = await hashOf('packages/top');
    expect(await hashOf('packages/top')).toBe(first);
    expect(buildDecision({ inputs: await hashOf('packages/top'), recorded: first, outputsPresent: true }).build).toBe(
      false,
    );
  });

  it('changes with a source, a new source file, the manifest or a shared input', async () => {
    for (const change of [
      () => edit('packages/top/src/index.ts'),
      () => writeFile(join(root, 'packages/top/src/extra.ts'), 'export {};'),
      () =>
        writeFile(
          join(root, 'packages/top/package.json'),
          JSON.stringify({ name: '@autosave/top', version: '0.2.0', dependencies: { '@autosave/base': '0.1.0' } }),
        ),
      () => edit('tsconfig.json'),
      () => edit('scripts/build-packages.mjs'),
    ]) {
      const before = await hashOf('packages/top');
      await change();
      const after = await hashOf('packages/top');
      expect(after).not.toBe(before);
      expect(buildDecision({ inputs: after, recorded: before, outputsPresent: true }).build).toBe(true);
    }
  });

  it("changes with a dependency's source, but not with a dependent's", async () => {
    const top = await hashOf('packages/top');
    const base = await hashOf('packages/base');
    await edit('packages/base/src/index.ts');
    expect(await hashOf('packages/top')).not.toBe(top);
    const baseAfter = await hashOf('packages/base');
    expect(baseAfter).not.toBe(base);
    await edit('packages/top/src/index.ts');
    expect(await hashOf('packages/base')).toBe(baseAfter);
  });
});

describe('every published package', () => {
  const packages = readdirSync(join(ROOT, 'packages'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);

  it.each(packages)('%s builds itself before it is packed (prepack)', (name) => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    expect(manifest.scripts?.prepack).toBe(`node ../../scripts/build-packages.mjs ${name}`);
  });
});
