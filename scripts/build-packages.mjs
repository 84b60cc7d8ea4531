// `npm run build`: builds the five packages into packages/<name>/dist. Per entry of a package's exports map:
// ESM (.js) and CommonJS (.cjs) JavaScript with their declarations (.d.ts, .d.cts), code shared between entries split into chunks so that every entry
// of one format sees the same module instances. Other packages (ours included) stay external: an installing
// app resolves them from its own node_modules. @autosave/local also gets its bin, and @autosave/cdk
// the Lambda functions users do not customize, prebuilt as a synth from the sources bundles them (dist/functions/<name>/index.mjs).
import { readFile, rm } from 'node:fs/promises';
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

const readJson = async (file) => JSON.parse(await readFile(file, 'utf8'));

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
  if (manifest.name === '@autosave/cdk') await prebuildFunctions(outDir);
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
export async function buildPackages(names) {
  const { workspaces } = await readJson(join(ROOT, 'package.json'));
  const started = performance.now();
  const chosen = workspaces.filter((dir) => !names?.length || names.includes(dir.split('/').pop()));
  await Promise.all(chosen.map((dir) => buildPackage(dir)));
  console.log(
    `autosave: built ${chosen.map((dir) => relative(ROOT, join(ROOT, dir, 'dist'))).join(', ')} (${(performance.now() - started).toFixed(0)} ms)`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildPackages(process.argv.slice(2));
}
