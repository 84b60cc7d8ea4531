#!/usr/bin/env node
/**
 * Copies the state machine definitions (`*.asl.json`) of a public repository's git mirror into
 * test/fixtures/corpus/<repo>/ and records each one's source in test/fixtures/corpus/manifest.json
 * (repository, path, commit, license). Definitions are data: nothing else is copied.
 *
 *   node scripts/corpus-import.mjs <git dir> <owner/name> <license>
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';

const [gitDir, repo, license] = process.argv.slice(2);
const git = (...args) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
const commit = git('rev-parse', 'HEAD').trim();
const root = new URL('../test/fixtures/corpus/', import.meta.url);
const manifestUrl = new URL('manifest.json', root);
const manifest = existsSync(manifestUrl) ? JSON.parse(readFileSync(manifestUrl, 'utf8')) : { definitions: [] };
const folder = repo.replace('/', '+');
mkdirSync(new URL(`${folder}/`, root), { recursive: true });
let added = 0;
for (const path of git('ls-tree', '-r', '--name-only', 'HEAD').split('\n').filter((p) => p.endsWith('.asl.json'))) {
  const text = git('show', `HEAD:${path}`);
  try {
    JSON.parse(text);
  } catch {
    continue; // not JSON as committed (a template fragment): not a definition
  }
  const file = `${folder}/${path.replace(/\//g, '__')}`;
  writeFileSync(new URL(file, root), text);
  manifest.definitions = manifest.definitions.filter((d) => d.file !== file);
  manifest.definitions.push({ file, repository: `https://github.com/${repo}`, path, commit, license });
  added++;
}
manifest.definitions.sort((a, b) => (a.file < b.file ? -1 : 1));
writeFileSync(manifestUrl, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`${added} definitions from ${repo}@${commit.slice(0, 12)} (${license})`);
