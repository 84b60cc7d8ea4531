/**
 * The five packages' manifests say what their sources need, and nothing an installing app would regret
 * (issue 19, Deliver 1): every bare import of a package's sources is one of its declared dependencies, and every
 * declared dependency is imported (or has a stated reason); tsconfig.json's development paths name exactly
 * the entries each exports map publishes; no package runs an install script; the AGPL IAM simulator is in no
 * package's dependencies.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const PACKAGES = ['workflow', 'engine', 'runtime', 'cdk', 'local'] as const;

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly scripts?: Record<string, string>;
  readonly exports: Record<string, unknown>;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly files?: readonly string[];
}

const manifest = (name: string): Manifest =>
  JSON.parse(readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8')) as Manifest;
const rootManifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest & {
  workspaces: string[];
};

/** Dependencies a package declares without importing them by name, and why. Nothing else may be unused. */
const DECLARED_WITHOUT_IMPORT: Record<string, Record<string, string>> = {
  cdk: {
    esbuild: "NodejsFunction bundles the app's own Lambda entries with a local esbuild (without it, CDK tries Docker)",
    'cdk-nag':
      "an optional peer: the construct's acknowledgements go through aws-cdk-lib's Validations, which cdk-nag's packs read",
  },
  runtime: {
    '@types/aws-lambda':
      "the declarations of Powertools Metrics (EmfMetrics exposes its Metrics) import it; without it an app's tsc fails on them",
  },
  engine: {
    '@types/better-sqlite3':
      "the declarations of ./store (EngineStore, QueueStore and the rest take a Database) import better-sqlite3, which ships no types; without it an app's tsc fails on them",
    '@aws-sdk/client-lambda': "TestState reads the service's embedded schema to check a mocked result (issue 20)",
    '@aws-sdk/client-eventbridge': "TestState reads the service's embedded schema to check a mocked result (issue 20)",
    '@aws-sdk/client-kms': "TestState reads the service's embedded schema to check a mocked result (issue 20)",
  },
};

/**
 * Imported by name but deliberately undeclared: the AGPL IAM simulator is loaded on demand, only where the app
 * itself installed it (our repository's devDependency), and must never enter an installing app's tree.
 */
const IMPORTED_UNDECLARED = ['@cloud-copilot/iam-simulate'];

/** An npm package name (a specifier inside a template string such as `${value}` is not one). */
const PACKAGE_NAME = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The npm package names a source file imports (static, dynamic, type-only and `typeof import`), builtins aside. */
function importedPackages(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire(?:\.resolve)?\s*\(\s*|\bimport\s+)(['"])([^'"\s]+)\1/g),
  ].map((m) => m[2]);
  return specifiers
    .filter(
      (spec) => !spec.startsWith('.') && !spec.startsWith('node:') && !builtinModules.includes(spec.split('/')[0]),
    )
    .map((spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]))
    .filter((name) => PACKAGE_NAME.test(name));
}

/** tsconfig.json's compilerOptions.paths, read the way TypeScript reads it (comments allowed). */
function tsconfigPaths(): Record<string, string[]> {
  const { config, error } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  return (config as { compilerOptions: { paths: Record<string, string[]> } }).compilerOptions.paths;
}

describe.each(PACKAGES)('@autosave/%s', (name) => {
  const pkg = manifest(name);
  const declared = { ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies };
  const imported = new Set(sources(join(ROOT, 'packages', name, 'src')).flatMap(importedPackages));
  imported.delete(pkg.name);

  it('declares every package its sources import', () => {
    expect([...imported].filter((dep) => !(dep in declared) && !IMPORTED_UNDECLARED.includes(dep)).sort()).toEqual([]);
  });

  it('imports every dependency it declares, or says why not', () => {
    const unused = Object.keys(declared).filter(
      (dep) => !imported.has(dep) && !(dep in (DECLARED_WITHOUT_IMPORT[name] ?? {})),
    );
    expect(unused).toEqual([]);
  });

  it('pins its own dependencies exactly and runs no install script', () => {
    expect(Object.entries(pkg.dependencies ?? {}).filter(([, version]) => !/^\d+\.\d+\.\d+$/.test(version))).toEqual(
      [],
    );
    expect(Object.keys(pkg.scripts ?? {}).filter((script) => /^(pre|post)?install$|^prepare$/.test(script))).toEqual(
      [],
    );
  });

  it('never depends on the AGPL IAM simulator', () => {
    expect(Object.keys(declared)).not.toContain('@cloud-copilot/iam-simulate');
  });

  it('publishes only its built files', () => {
    expect(pkg.files).toEqual(['dist']);
  });

  it("ships the repository's Apache-2.0 LICENSE in its tarball (npm packs a package folder's LICENSE whatever `files` says)", () => {
    expect(pkg).toMatchObject({ license: 'Apache-2.0' });
    expect(readFileSync(join(ROOT, 'packages', name, 'LICENSE'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'LICENSE'), 'utf8'),
    );
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--workspace', `packages/${name}`], {
        cwd: ROOT,
        encoding: 'utf8',
      }),
    ) as { files: { path: string }[] }[];
    expect(packed.files.map((f) => f.path)).toContain('LICENSE');
  }, 60_000);

  it("has a development path for each entry of its exports map, to that entry's source", () => {
    const fromExports = Object.keys(pkg.exports)
      .filter((sub) => sub !== './package.json')
      .map((sub) => [
        pkg.name + sub.slice(1),
        `./packages/${name}/src/${sub === '.' ? '' : `${sub.slice(2)}/`}index.ts`,
      ]);
    const fromPaths = Object.entries(tsconfigPaths())
      .filter(([spec]) => spec === pkg.name || spec.startsWith(`${pkg.name}/`))
      .map(([spec, [target]]) => [spec, target]);
    expect(Object.fromEntries(fromPaths)).toEqual(Object.fromEntries(fromExports));
  });
});

describe('the example app at the repository root', () => {
  it('is private and lists the workspaces in build order (each after the packages it depends on)', () => {
    expect(rootManifest.private).toBe(true);
    expect(rootManifest.workspaces).toEqual(PACKAGES.map((name) => `packages/${name}`));
    PACKAGES.forEach((name, index) => {
      const later = PACKAGES.slice(index).map((other) => `@autosave/${other}`);
      expect(
        Object.keys(manifest(name).dependencies ?? {}).filter(
          (dep) => later.includes(dep) && dep !== `@autosave/${name}`,
        ),
      ).toEqual([]);
    });
  });

  // The engine reaches the app through @autosave/local, as it does a user's app that runs the local cloud.
  it('depends by name on the four packages a user app installs', () => {
    expect(
      Object.keys(rootManifest.dependencies ?? {})
        .filter((dep) => dep.startsWith('@autosave/'))
        .sort(),
    ).toEqual(
      PACKAGES.filter((name) => name !== 'engine')
        .map((name) => `@autosave/${name}`)
        .sort(),
    );
  });
});

describe('in development, with or without a built dist/', () => {
  it('each name resolves to the TypeScript source under vitest (the same module instance as a relative import)', async () => {
    const [byName, bySource] = await Promise.all([
      import('@autosave/workflow/config'),
      import('../../../packages/workflow/src/config'),
    ]);
    expect(byName).toBe(bySource);
  });

  it("each name resolves to the TypeScript source under tsx (cdk.json's app, the benchmarks)", () => {
    const resolved = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', "console.log(import.meta.resolve('@autosave/runtime/tools'))"],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(resolved.trim()).toBe(pathToFileURL(join(ROOT, 'packages/runtime/src/tools/index.ts')).href);
  });
});
