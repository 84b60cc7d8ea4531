import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { functions as registeredFunctions } from '@autosave/runtime/handlers';

/**
 * Where the code of Autosave's built-in functions comes from. They ship **prebuilt** inside `@autosave/cdk`
 * (`dist/functions/<name>/index.mjs`, written by the package build, `scripts/build-packages.mjs`, with {@link bundleBuiltInFunction}), so a
 * user's synth never bundles our sources and needs neither our lock file nor our project root. From the
 * sources (this repository, before a build) they are bundled at synth by esbuild, with the same options and
 * no lock file either.
 */

/** esbuild's options for every function bundle (built-in and the user's own, through NodejsFunction). */
export const FUNCTION_BUNDLING = {
  format: 'esm',
  target: 'node22',
  platform: 'node',
  mainFields: ['module', 'main'],
  // No source map: it would ship inside the zip (4 MB per function, read at every cold start with
  // --enable-source-maps). Names are kept, so a minified stack trace still names its functions.
  minify: true,
  keepNames: true,
  sourcemap: false,
  // esbuild output is ESM; a few bundled dependencies still call `require` (CommonJS), which ESM lacks.
  banner:
    "import { createRequire as __autosaveCreateRequire } from 'node:module'; const require = __autosaveCreateRequire(import.meta.url);",
} as const;

/** The file name of a function bundle (`<dir>/index.mjs`, handler `index.handler`). */
export const BUNDLE_FILE = 'index.mjs';

/** This package's root: the nearest folder above this module holding a package.json. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** Where the package build writes the prebuilt functions: `<@autosave/cdk>/dist/functions/<name>/index.mjs`. */
export const PREBUILT_FUNCTIONS_DIR = join(packageRoot(), 'dist', 'functions');

/** The source file of a built-in function (the registry's entry, or its compiled `.js` once built). */
export function builtInEntry(name: string): string {
  const spec = registeredFunctions.find((f) => f.name === name);
  if (!spec)
    throw new Error(
      `"${name}" is not a built-in function; known: ${registeredFunctions.map((f) => f.name).join(', ')}`,
    );
  const candidates = [spec.entry, spec.entry.replace(/\.ts$/, '.js'), spec.entry.replace(/\.ts$/, '.mjs')];
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`Built-in function ${name}: no source at ${candidates.join(' or ')}`);
  return found;
}

/** Bundles a built-in function into `outdir/index.mjs` (the package build calls this; so does a synth from the sources). */
export function bundleBuiltInFunction(name: string, outdir: string): void {
  // Loaded only here: a user's synth uses the prebuilt bundles and needs no esbuild.
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  esbuild.buildSync({
    ...FUNCTION_BUNDLING,
    mainFields: [...FUNCTION_BUNDLING.mainFields],
    banner: { js: FUNCTION_BUNDLING.banner },
    entryPoints: [builtInEntry(name)],
    bundle: true,
    outfile: join(outdir, BUNDLE_FILE),
    logLevel: 'error',
  });
}

/**
 * The code of a built-in function: its prebuilt bundle when the package has one, else a bundle made at
 * synth by esbuild (skipped, as every bundling is, for stacks outside `aws:cdk:bundling-stacks`).
 */
export function builtInFunctionCode(name: string): lambda.Code {
  const prebuilt = join(PREBUILT_FUNCTIONS_DIR, name);
  if (existsSync(join(prebuilt, BUNDLE_FILE))) return lambda.Code.fromAsset(prebuilt);
  const entry = builtInEntry(name);
  return lambda.Code.fromAsset(dirname(entry), {
    // The bundle depends on every module it pulls in, not on the entry's folder: hash what is built.
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: local bundling below always succeeds or throws (no Docker on this path).
      image: DockerImage.fromRegistry('autosave-local-bundling-only'),
      // CDK caches a staged asset by its source path and options (not the local bundler): the name tells
      // the six functions of one source folder apart.
      command: ['bundle', name],
      local: {
        tryBundle(outputDir: string): boolean {
          bundleBuiltInFunction(name, resolve(outputDir));
          return true;
        },
      },
    },
  });
}
