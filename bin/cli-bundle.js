// The CLI as it runs: cli/main.ts and everything it imports from this project, bundled by esbuild into
// node_modules/.cache/autosave/cli/ (packages stay external, loaded by Node as they are). Starting from the
// bundle instead of transpiling TypeScript at every start (tsx) is what lets a restarted engine answer in a
// fraction of a second, without tsx's loader thread in the process. The bundle is rebuilt when any of its
// inputs changed (their content hashes are kept beside it), so what runs is always the sources as they are.
// `npm install` builds it (`prepare`), the test suite's global setup too; otherwise the first start does.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The project root (bin/..). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the bundles and their manifest live. */
export const CLI_BUNDLE_DIR = join(PROJECT_ROOT, 'node_modules', '.cache', 'autosave', 'cli');
const ENTRY = 'packages/local/src/cli/main.ts';
const OUT_EXTENSION = '.mjs';
const MANIFEST = join(CLI_BUNDLE_DIR, 'manifest.json');
/** Builds kept besides the newest: a running engine may still load a lazy chunk of the build it started from. */
const KEPT_BUILDS = 3;

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/**
 * Packages that must stay out of the bundle are all of them: Node loads them from node_modules as
 * installed. Our own files each keep their `import.meta.url` (it names the source file, as under tsx), so
 * paths computed from it (the project root, bin/autosave.js, the Lambda entries) stay right.
 */
function ownImportMetaUrl(esbuild) {
  return {
    name: 'own-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
        if (args.path.includes(`${'/'}node_modules${'/'}`)) return undefined;
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const { code } = await esbuild.transform(source, {
          loader: args.path.endsWith('ts') ? 'ts' : 'js',
          format: 'esm',
          sourcefile: args.path,
          define: { 'import.meta.url': JSON.stringify(pathToFileURL(args.path).href) },
        });
        return { contents: code, loader: 'js' };
      });
    },
  };
}

/** The manifest of the current build, or undefined. */
function readManifest() {
  try {
    return JSON.parse(readFileSync(MANIFEST, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * True when every input of the manifest is as it was when built (same size and time, or else same content).
 * Synchronous, one `stat` after another: every start pays for it before anything else, and here it takes half
 * the CPU of the same stats through promises (about 21 ms against 47 for 387 inputs).
 */
function upToDate(manifest) {
  if (!manifest || manifest.node !== process.versions.modules) return false;
  if (!existsSync(join(CLI_BUNDLE_DIR, manifest.build, `main${OUT_EXTENSION}`))) return false;
  // esbuild's paths relative to the root, prefixed rather than join()ed: in a process this young, path.join
  // of each cost a quarter of the check's CPU (19-20 -> 15 ms here, 386 inputs).
  const root = PROJECT_ROOT + sep;
  for (const [file, recorded] of Object.entries(manifest.inputs)) {
    const path = root + file;
    const now = statSync(path, { throwIfNoEntry: false });
    if (!now || now.size !== recorded.size) return false;
    if (now.mtimeMs !== recorded.mtimeMs && sha256(readFileSync(path)) !== recorded.sha256) return false;
  }
  return true;
}

/** The current build when it is up to date: checked without loading esbuild. */
function currentBuild() {
  const manifest = readManifest();
  return upToDate(manifest) ? manifest : undefined;
}

/** Builds the bundle and records its inputs; safe when several processes build at once (rename is atomic). */
async function buildBundle() {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: PROJECT_ROOT,
    entryPoints: [ENTRY],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    packages: 'external',
    write: false,
    outdir: CLI_BUNDLE_DIR,
    outExtension: { '.js': OUT_EXTENSION },
    metafile: true,
    sourcemap: 'linked',
    logLevel: 'error',
    plugins: [ownImportMetaUrl(esbuild)],
  });
  const inputs = {};
  for (const file of Object.keys(result.metafile.inputs).sort()) {
    const path = join(PROJECT_ROOT, file);
    const [bytes, info] = await Promise.all([readFile(path), stat(path)]);
    inputs[file] = { size: info.size, mtimeMs: info.mtimeMs, sha256: sha256(bytes) };
  }
  const build = sha256(JSON.stringify(inputs) + esbuild.version + OUT_EXTENSION).slice(0, 16);
  const target = join(CLI_BUNDLE_DIR, build);
  const staging = `${target}.${process.pid}.tmp`;
  await rm(staging, { recursive: true, force: true });
  for (const file of result.outputFiles) {
    const out = join(staging, relative(CLI_BUNDLE_DIR, file.path));
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, file.contents);
  }
  try {
    await rename(staging, target);
  } catch {
    await rm(staging, { recursive: true, force: true }); // the same build, finished by another process first
  }
  const manifest = {
    build,
    esbuild: esbuild.version,
    node: process.versions.modules,
    builtAt: new Date().toISOString(),
    inputs,
  };
  const manifestStaging = `${MANIFEST}.${process.pid}.tmp`;
  await writeFile(manifestStaging, JSON.stringify(manifest));
  await rename(manifestStaging, MANIFEST);
  await pruneBuilds(build);
  return manifest;
}

/** Removes all but the newest few builds. */
async function pruneBuilds(current) {
  const entries = await readdir(CLI_BUNDLE_DIR, { withFileTypes: true });
  const builds = await Promise.all(
    entries
      .filter((e) => e.isDirectory() && e.name !== current && !e.name.endsWith('.tmp'))
      .map(async (e) => ({ name: e.name, at: (await stat(join(CLI_BUNDLE_DIR, e.name))).mtimeMs })),
  );
  builds.sort((a, b) => b.at - a.at);
  for (const old of builds.slice(KEPT_BUILDS - 1))
    await rm(join(CLI_BUNDLE_DIR, old.name), { recursive: true, force: true });
}

/**
 * The file URL of the CLI bundle's entry, built first when missing or out of date.
 * @param {{ force?: boolean }} [options] force: build even when up to date
 * @returns {Promise<string>}
 */
export async function cliBundle(options = {}) {
  const manifest = (!options.force && currentBuild()) || (await buildBundle());
  return pathToFileURL(join(CLI_BUNDLE_DIR, manifest.build, `main${OUT_EXTENSION}`)).href;
}

// `node bin/cli-bundle.js`: build it now (npm's `prepare`).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const url = await cliBundle({ force: process.argv.includes('--force') });
  console.log(
    `autosave: CLI bundle ${relative(PROJECT_ROOT, fileURLToPath(url))} (${(performance.now() - started).toFixed(0)} ms)`,
  );
}
