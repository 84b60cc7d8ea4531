#!/usr/bin/env node
/**
 * Copies the state machine definitions of a public repository's git mirror into
 * test/fixtures/corpus/<repo>/ and records each one's source in test/fixtures/corpus/manifest.json
 * (repository, path, commit, license, and where in the file the definition sits). Definitions are data:
 * nothing else is copied.
 *
 * A definition is any object with a string `StartAt` and an object `States` (not inside another one) in a
 * `.json`, `.yaml` or `.yml` file, or a JSON code block of a `.md` page (a workshop's step): `*.asl.json` /
 * `*.asl.yaml` files, and definitions inline in SAM or
 * CloudFormation templates (`Definition`, or a `DefinitionString` holding JSON). A template's intrinsic
 * functions become the `${...}` placeholders its DefinitionSubstitutions would be (`!GetAtt Fn.Arn` →
 * `${Fn.Arn}`, `!Ref X` → `${X}`, `!Sub 'text'` → its text), which the corpus tier fills in as the samples'
 * templates do. Each distinct definition is kept once (the first path that has it), across repositories.
 *
 *   node scripts/corpus-import.mjs <git dir> <owner/name> <license>
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import YAML from 'yaml';

const [gitDir, repo, license] = process.argv.slice(2);
const git = (...args) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
const commit = git('rev-parse', 'HEAD').trim();
const root = new URL('../test/fixtures/corpus/', import.meta.url);
const manifestUrl = new URL('manifest.json', root);
const manifest = existsSync(manifestUrl) ? JSON.parse(readFileSync(manifestUrl, 'utf8')) : { definitions: [] };
const folder = repo.replace('/', '+');
mkdirSync(new URL(`${folder}/`, root), { recursive: true });

/** An intrinsic function's value as the placeholder a DefinitionSubstitution would leave. */
const placeholderOf = (name, value) => {
  if (name === 'Ref') return `\${${value}}`;
  if (name === 'Fn::GetAtt') return `\${${Array.isArray(value) ? value.join('.') : value}}`;
  if (name === 'Fn::Sub') return Array.isArray(value) ? value[0] : value;
  if (name === 'Fn::Join' && Array.isArray(value?.[1]))
    return value[1].map((v) => (typeof v === 'string' ? v : resolve(v))).join(value[0]);
  return `\${${name.replace('Fn::', '')}}`;
};
const resolve = (v) => {
  if (Array.isArray(v)) return v.map(resolve);
  if (v && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length === 1 && (keys[0] === 'Ref' || keys[0].startsWith('Fn::')))
      return placeholderOf(keys[0], resolve(v[keys[0]]));
    return Object.fromEntries(keys.map((k) => [k, resolve(v[k])]));
  }
  return v;
};
/** CloudFormation's short-form tags, read as their long form. */
const cfnTags = [
  'Ref',
  'GetAtt',
  'Sub',
  'Join',
  'If',
  'Select',
  'FindInMap',
  'ImportValue',
  'Base64',
  'Split',
  'Equals',
  'Not',
  'And',
  'Or',
  'Condition',
  'GetAZs',
  'Cidr',
  'Transform',
].flatMap((n) =>
  ['scalar', 'seq', 'map'].map((collection) => ({
    tag: `!${n}`,
    ...(collection === 'scalar' ? {} : { collection }),
    resolve: (value) => ({
      [n === 'Ref' || n === 'Condition' ? n : `Fn::${n}`]:
        collection === 'scalar' && n === 'GetAtt' ? value : (value?.toJSON?.() ?? value),
    }),
  })),
);
const parse = (path, text) => {
  if (path.endsWith('.json')) return JSON.parse(text);
  if (path.endsWith('.md')) {
    // a workshop page: the JSON code blocks it tells its reader to paste in the console
    const blocks = [...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => {
      try {
        return JSON.parse(m[1]);
      } catch {
        return undefined;
      }
    });
    return Object.fromEntries(blocks.map((b, i) => [`block${i}`, b]).filter(([, b]) => b !== undefined));
  }
  return YAML.parse(text, { customTags: cfnTags, logLevel: 'silent', uniqueKeys: false, maxAliasCount: -1 });
};
const isDefinition = (v) =>
  v &&
  typeof v === 'object' &&
  typeof v.StartAt === 'string' &&
  v.States &&
  typeof v.States === 'object' &&
  !Array.isArray(v.States);
/** Every definition in a parsed file, with a pointer to where it sits. */
function* definitions(value, pointer = '') {
  if (isDefinition(value)) return yield [pointer, value];
  if (typeof value === 'string' && /"StartAt"/.test(value)) {
    try {
      const inner = JSON.parse(value);
      if (isDefinition(inner)) yield [pointer, inner];
    } catch {
      // a string that is not JSON (a Terraform or Jinja template): not a definition as committed
    }
    return;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) yield* definitions(v, `${pointer}/${k}`);
  }
}

const hash = (definition) => createHash('sha256').update(JSON.stringify(definition)).digest('hex');
const seen = new Set(
  manifest.definitions
    .filter((d) => !d.file.startsWith(`${folder}/`))
    .map((d) => hash(JSON.parse(readFileSync(new URL(d.file, root), 'utf8')))),
);
manifest.definitions = manifest.definitions.filter((d) => !d.file.startsWith(`${folder}/`));
const grep = (...args) => {
  try {
    return git(...args);
  } catch (err) {
    if (err.status === 1) return ''; // git grep found nothing
    throw err;
  }
};
const candidates = grep(
  'grep',
  '-l',
  '-I',
  '-E',
  '"?StartAt"?[[:space:]]*:',
  'HEAD',
  '--',
  '*.json',
  '*.yaml',
  '*.yml',
  '*.md',
)
  .split('\n')
  .map((p) => p.replace(/^HEAD:/, ''))
  .filter((p) => p && !/(^|\/)(node_modules|cdk\.out|botocore|\.aws-sam)\//.test(p));
let added = 0;
for (const path of candidates) {
  let parsed;
  try {
    parsed = parse(path, git('show', `HEAD:${path}`));
  } catch {
    continue; // not JSON or YAML as committed (a template fragment): no definition to read
  }
  for (const [pointer, raw] of definitions(parsed)) {
    const definition = resolve(raw);
    const key = hash(definition);
    if (seen.has(key)) continue; // the same definition again (a copy in another sample or language)
    seen.add(key);
    const file = `${folder}/${path.replace(/\//g, '__').replace(/\.(json|ya?ml)$/, '')}${pointer ? `__${hash(pointer).slice(0, 8)}` : ''}.json`;
    writeFileSync(new URL(file, root), `${JSON.stringify(definition, null, 2)}\n`);
    manifest.definitions.push({
      file,
      repository: `https://github.com/${repo}`,
      path,
      ...(pointer ? { pointer } : {}),
      commit,
      license,
    });
    added++;
  }
}
manifest.definitions.sort((a, b) => (a.file < b.file ? -1 : 1));
writeFileSync(manifestUrl, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`${added} definitions from ${repo}@${commit.slice(0, 12)} (${license})`);
