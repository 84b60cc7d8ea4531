/**
 * What a package publishes works outside this checkout: no source file of a package names a path that climbs out
 * of its package (this repository's bin/, its root, the example app's folders), and the published CLI has none of
 * the repository's own tools (the deploy rehearsal edits this repository's sources, the crash demo starts its
 * bin/). Those are scripts of the repository: `npm run rehearse`, `npm run demo`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../packages/local/src/cli/main';

const ROOT = resolve(import.meta.dirname, '../../..');
const PACKAGES = readdirSync(join(ROOT, 'packages'));

/** The TypeScript files under a folder. */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** Relative path literals (`'../…'`) in a file that lead out of `packageRoot`, read from the file's folder. */
export function pathsOutOf(packageRoot: string, file: string, text: string): string[] {
  return [...text.matchAll(/['"`]((?:\.\.\/)+[^'"`\n]*|\.\.)['"`]/g)]
    .map((m) => m[1])
    .filter((path) => relative(packageRoot, resolve(dirname(file), path)).startsWith('..'));
}

describe('the published packages', () => {
  it.each(PACKAGES)('%s names no path out of its own folder', (name) => {
    const root = join(ROOT, 'packages', name);
    const found = sourceFiles(join(root, 'src')).flatMap((file) =>
      pathsOutOf(root, file, readFileSync(file, 'utf8')).map((path) => `${relative(ROOT, file)}: ${path}`),
    );
    expect(found).toEqual([]);
  });

  it("the CLI has no command of the repository's own (rehearse, demo)", () => {
    expect(Object.keys(COMMANDS)).not.toContain('rehearse');
    expect(Object.keys(COMMANDS)).not.toContain('demo');
  });

  it('the path check sees a climb out of the package and nothing inside it', () => {
    const root = '/r/packages/local';
    const file = '/r/packages/local/src/cli/x.ts';
    expect(
      pathsOutOf(root, file, "new URL('../../../../bin/autosave.js', u); resolve(d, '../../../..'); import '../args';"),
    ).toEqual(['../../../../bin/autosave.js', '../../../..']);
  });
});
