// `npm run build`: builds the five packages into packages/<name>/dist. Per entry of a package's exports map:
// ESM (.js) and CommonJS (.cjs) JavaScript with their declarations (.d.ts, .d.cts), code shared between entries split into chunks so that every entry
// of one format sees the same module instances. Other packages (ours included) stay external: an installing
// app resolves them from its own node_modules. @autosave/local also gets its bin, and @autosave/cdk
// the Lambda functions users do not customize, prebuilt as a synth from the sources bundles them (dist/functions/<name>/index.mjs).
// `node scripts/build-packages.mjs workflow` builds one (each package's `prepack` does, so `npm pack` in its folder
// ships a dist/); a package whose inputs are unchanged since its last build is skipped (`--force` rebuilds).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Every built-in function, the default tool-step and model-step too: the construct deploys these prebuilt bundles wherever the user names no entry of their own. */
export const PREBUILT_FUNCTIONS = [
  'model-step',
  'tool-step',
  'approval-request',
  'approval-endpoint',
  'run-monitor',
  'redrive',
];

/** Where each package's last build records the hash of its inputs: outside dist/, so the tarball does not carry it. */
export const STAMP_DIR = join(ROOT, 'node_modules/.cache/autosave-build');

/** Files every package's build reads besides its own: the compiler options, this script, the locked dependency versions. */
const SHARED_INPUTS = ['tsconfig.json', 'scripts/build-packages.mjs', 'package-lock.json'];

const readJson = async (file) => JSON.parse(await readFile(file, 'utf8'));

/**
 * Whether a package must be built: when it has no complete dist/ (deleted, or a build that failed half-way), no
 * recorded inputs, or inputs that differ from the recorded ones. Pure, so the decision is tested without a build.
 * @param {{ inputs: string, recorded: string | undefined, outputsPresent: boolean, force?: boolean }} state
 * @returns {{ build: boolean, reason: string }}
 */
export function buildDecision({ inputs, recorded, outputsPresent, force = false }) {
  if (force) return { build: true, reason: 'forced' };
  if (!outputsPresent) return { build: true, reason: 'no dist/' };
  if (recorded === undefined) return { build: true, reason: 'no record of a previous build' };
  if (recorded !== inputs) return { build: true, reason: 'inputs changed' };
  return { build: false, reason: 'unchanged since its last build' };
}

/**
 * A hash of what building the package in `dir` reads: its sources, manifest and license, the shared inputs, and
 * (recursively) the same of every @autosave package it depends on, whose sources the build reads through the
 * tsconfig paths (@autosave/cdk bundles @autosave/runtime's into its prebuilt functions).
 * @param {string} dir a workspace folder relative to ROOT, e.g. `packages/workflow`
 * @param {readonly string[]} workspaces every workspace folder
 * @param {string} [root] the repository (a test gives a copy)
 */
export async function inputsHash(dir, workspaces, root = ROOT) {
  const hash = createHash('sha256');
  const seen = new Set();
  // Each file's path and content, so a rename changes the hash as an edit does; an absent file adds its path only.
  const feed = async (file) =>
    hash
      .update(file)
      .update('\0')
      .update(existsSync(join(root, file)) ? await readFile(join(root, file)) : '')
      .update('\0');
  const add = async (pkgDir) => {
    if (seen.has(pkgDir)) return;
    seen.add(pkgDir);
    const manifest = await readJson(join(root, pkgDir, 'package.json'));
    const sources = (await readdir(join(root, pkgDir, 'src'), { withFileTypes: true, recursive: true }))
      .filter((e) => e.isFile())
      .map((e) => relative(root, join(e.parentPath, e.name)))
      .sort();
    for (const file of [`${pkgDir}/package.json`, `${pkgDir}/LICENSE`, ...sources]) await feed(file);
    const ours = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).filter((d) =>
      d.startsWith('@autosave/'),
    );
    for (const dep of ours.sort()) {
      const depDir = workspaces.find((w) => w.split('/').pop() === dep.slice('@autosave/'.length));
      if (depDir) await add(depDir);
    }
  };
  for (const file of SHARED_INPUTS) await feed(file);
  await add(dir);
  return hash.digest('hex');
}

/** Whether dist/ holds a finished build: the main entry's ESM, CommonJS and declarations (written last, by the dts pass). */
const outputsPresent = (dir) =>
  ['index.js', 'index.cjs', 'index.d.ts'].every((f) => existsSync(join(ROOT, dir, 'dist', f)));

const stampFile = (dir) => join(STAMP_DIR, `${dir.split('/').pop()}.sha256`);

/** tsup's `entry` for a package: one per exports-map entry, named by its path under dist/. */
function entries(dir, manifest) {
  return Object.fromEntries(
    Object.keys(manifest.exports)
      .filter((subpath) => subpath !== './package.json')
      .map((subpath) =>
        subpath === '.'
          ? ['index', `${dir}/src/index.ts`]
          : [`${subpath.slice(2)}/index`, `${dir}/src/${subpath.slice(2)}/index.ts`],
      ),
  );
}

/** Builds one package; resolves with the files it wrote (relative to the package). */
async function buildPackage(dir) {
  const { build } = await import('tsup');
  const manifest = await readJson(join(ROOT, dir, 'package.json'));
  const outDir = join(ROOT, dir, 'dist');
  await rm(outDir, { recursive: true, force: true });
  const common = {
    outDir,
    platform: 'node',
    target: 'node20',
    sourcemap: false,
    silent: true,
    // import.meta.url in the CommonJS build, __dirname in the ESM one.
    shims: true,
    tsconfig: join(ROOT, 'tsconfig.json'),
    // Every package, ours too, is the installing app's to resolve; the AGPL simulator is loaded only if the app has it.
    external: [
      ...Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }),
      /^@autosave\//,
      '@cloud-copilot/iam-simulate',
    ],
  };
  // The bin builds with the entries, so it shares their chunks instead of carrying a second copy of the CLI.
  const published = entries(join(ROOT, dir), manifest);
  const entry = { ...published, ...(manifest.bin ? { bin: join(ROOT, dir, 'src/bin.ts') } : {}) };
  await build({ ...common, entry, format: ['esm', 'cjs'], splitting: true, dts: { entry: published }, clean: false });
  await copyDataFiles(join(ROOT, dir, 'src'), outDir);
  if (manifest.name === '@autosave/cdk') await prebuildFunctions(outDir);
}

/**
 * The JSON files under src/, copied to the same place under dist/: a package may read one when it first needs
 * it (the engine's SDK catalog: `lazyRequire('./executor/aws-sdk-catalog.json')`) rather than bundle it into
 * the code every start compiles.
 */
async function copyDataFiles(srcDir, outDir) {
  const files = (await readdir(srcDir, { withFileTypes: true, recursive: true })).filter(
    (e) => e.isFile() && e.name.endsWith('.json'),
  );
  for (const file of files) {
    const target = join(outDir, relative(srcDir, join(file.parentPath, file.name)));
    await mkdir(dirname(target), { recursive: true });
    await copyFile(join(file.parentPath, file.name), target);
  }
}

/**
 * The fixed functions, each bundled into dist/functions/<name>/index.mjs (handler `index.handler`) by the
 * construct's own `bundleBuiltInFunction`, the one a synth from the sources calls: one set of esbuild options
 * for both. It is TypeScript, loaded through tsx.
 */
async function prebuildFunctions(outDir) {
  const { tsImport } = await import('tsx/esm/api');
  const { bundleBuiltInFunction } = await tsImport('../packages/cdk/src/function-code.ts', import.meta.url);
  for (const name of PREBUILT_FUNCTIONS) bundleBuiltInFunction(name, join(outDir, 'functions', name));
}

/**
 * Builds every workspace (`names` limits it to some, by folder name, e.g. `workflow`). They build at once: in the
 * build, as in development, another package's name resolves to its sources (tsconfig paths), so none waits for another.
 */
export async function buildPackages(names, { force = false } = {}) {
  const { workspaces } = await readJson(join(ROOT, 'package.json'));
  const started = performance.now();
  const unknown = (names ?? []).filter((name) => !workspaces.some((dir) => dir.split('/').pop() === name));
  if (unknown.length > 0)
    throw new Error(
      `No package named ${unknown.join(', ')} (known: ${workspaces.map((d) => d.split('/').pop()).join(', ')})`,
    );
  const chosen = workspaces.filter((dir) => !names?.length || names.includes(dir.split('/').pop()));
  await mkdir(STAMP_DIR, { recursive: true });
  await Promise.all(chosen.map((dir) => buildIfChanged(dir, workspaces, force)));
  console.log(`autosave: ${chosen.length} package(s) ready in ${(performance.now() - started).toFixed(0)} ms`);
}

/** Builds one package unless {@link buildDecision} says its dist/ is current, printing a line as it starts and ends. */
async function buildIfChanged(dir, workspaces, force) {
  const name = dir.split('/').pop();
  const inputs = await inputsHash(dir, workspaces);
  const recorded = await readFile(stampFile(dir), 'utf8').catch(() => undefined);
  const decision = buildDecision({ inputs, recorded, outputsPresent: outputsPresent(dir), force });
  if (!decision.build) {
    console.log(`autosave: ${name}: ${decision.reason}, skipped`);
    return;
  }
  console.log(`autosave: ${name}: building (${decision.reason})`);
  const started = performance.now();
  // The record goes first, so a build that fails leaves none and the next one rebuilds.
  await rm(stampFile(dir), { force: true });
  await buildPackage(dir);
  await writeFile(stampFile(dir), inputs);
  console.log(
    `autosave: ${name}: built ${relative(ROOT, join(ROOT, dir, 'dist'))} in ${(performance.now() - started).toFixed(0)} ms`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  await buildPackages(
    args.filter((a) => a !== '--force'),
    { force: args.includes('--force') },
  );
}
