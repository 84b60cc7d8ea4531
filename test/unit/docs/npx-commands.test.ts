/**
 * What a user types first cannot fetch the wrong package: `npx autosave` without @autosave/local installed would
 * fetch whatever package is named `autosave` on the registry. The README's app sections run the CLI by the package's
 * name, `npx @autosave/local <command>`, which npm exec resolves to the package's only bin.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text of a `## title` section of a Markdown document, up to the next `## `. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`no section '${title}'`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

describe('npx in the docs', () => {
  it('@autosave/local has exactly one bin, so npx runs it by the package name', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'packages/local/package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(Object.keys(manifest.bin)).toEqual(['autosave']);
  });

  it.each(['In your own app', 'Testing your workflows'])("README's %s runs the CLI as npx @autosave/local", (title) => {
    const text = section(readme, title);
    expect(text.match(/npx autosave [a-z-]+/g) ?? []).toEqual([]);
    expect(text).toMatch(/npx @autosave\/local [a-z-]+/);
  });
});
