/**
 * The README and docs/ say only what exists: every relative link resolves to a file or folder of the
 * repository, and every `npm run <script>` they name is a script of package.json.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const scripts = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts,
);

/** Markdown link targets `[text](target)` that are not URLs or in-page anchors. */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'));
}

describe.each(DOCS)('%s', (doc) => {
  const text = readFileSync(join(ROOT, doc), 'utf8');

  it('links only to files and folders that exist', () => {
    const missing = relativeLinks(text).filter(
      (target) => !existsSync(join(ROOT, dirname(doc), decodeURIComponent(target.split('#')[0]))),
    );
    expect(missing).toEqual([]);
  });

  it('names only npm scripts that package.json has', () => {
    // A script name may hold colons (`lint:imports`) but a colon after it is prose ("npm run build: ...").
    const named = [...text.matchAll(/npm run ([a-z0-9_-]+(?::[a-z0-9_-]+)*)/gi)].map((m) => m[1]);
    expect(named.filter((name) => !scripts.includes(name))).toEqual([]);
  });
});

describe('the link and script checks', () => {
  it('see relative links and skip URLs and anchors', () => {
    expect(
      relativeLinks('[a](docs/x.md) [b](https://aws.amazon.com) [c](#top) [d](../shared/LAYOUT.md "title")'),
    ).toEqual(['docs/x.md', '../shared/LAYOUT.md']);
  });
});
