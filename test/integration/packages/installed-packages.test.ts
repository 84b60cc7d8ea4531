/**
 * The four packages load in a user's app as installed from their tarballs (issue 19, Deliver 1): one app
 * shaped like `cdk init app --language typescript` (CommonJS, TypeScript NodeNext, strict, noImplicitReturns,
 * library checks on) and one ESM app, both outside the repository. Each entry of each exports map loads with
 * `require` and with `import`, the apps' own tsc accepts a file importing every package (it sees our
 * declarations, never our sources), the `autosave` bin runs, and the prebuilt Lambda functions are inside
 * @autosave/cdk.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, npmInstall, PACKAGE_NAMES, packedPackages, ROOT, sh, tarballDependencies, type PackageName } from '../../fixtures/packages/packed-packages';

const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
/** What `cdk init app --language typescript` writes into tsconfig.json (its compiler checks, library checks included). */
const CDK_INIT_COMPILER_OPTIONS = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  lib: ['es2022'],
  strict: true,
  noImplicitAny: true,
  strictNullChecks: true,
  noImplicitThis: true,
  alwaysStrict: true,
  noImplicitReturns: true,
  noEmit: true,
  types: ['node'],
};

/** A user's file that imports every package, as a workflow, a stack and a test would. */
const USER_FILE = `import { compileWorkflow, defineWorkflow } from '@autosave/workflow';
import { MAX_ATTEMPTS } from '@autosave/workflow/config';
import * as errors from '@autosave/workflow/errors';
import * as runtime from '@autosave/runtime';
import { functions } from '@autosave/runtime/handlers';
import { AutosaveStack } from '@autosave/cdk';
import { startLocal } from '@autosave/local';

export function loaded(): string[] {
  if (MAX_ATTEMPTS < 1) return [];
  return [typeof compileWorkflow, typeof defineWorkflow, typeof errors, typeof runtime, typeof functions, typeof AutosaveStack, typeof startLocal];
}
`;

/** The versions this repository installs, so the apps install from the same npm cache. */
async function rootVersions(): Promise<Record<string, string>> {
  const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
  const version = (name: string) => lock.packages[`node_modules/${name}`].version;
  return Object.fromEntries(['aws-cdk-lib', 'constructs', 'typescript', '@types/node'].map((name) => [name, version(name)]));
}

/** Every subpath of every package's exports map, as an app imports it (`@autosave/workflow/config`, ...). */
async function entrySpecifiers(appDir: string): Promise<string[]> {
  const specifiers: string[] = [];
  for (const name of PACKAGE_NAMES) {
    const manifest = JSON.parse(await readFile(join(appDir, 'node_modules/@autosave', name, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    for (const subpath of Object.keys(manifest.exports)) if (subpath !== './package.json') specifiers.push(`@autosave/${name}${subpath.slice(1)}`);
  }
  return specifiers;
}

/** Loads each specifier in a fresh Node process of the app, with `require` or `import`; resolves to specifier -> export count. */
async function load(appDir: string, how: 'require' | 'import', specifiers: readonly string[]): Promise<Record<string, number>> {
  const script =
    how === 'require'
      ? `const out = {}; for (const s of ${JSON.stringify(specifiers)}) out[s] = Object.keys(require(s)).length; console.log(JSON.stringify(out));`
      : `const out = {}; for (const s of ${JSON.stringify(specifiers)}) out[s] = Object.keys(await import(s)).length; console.log(JSON.stringify(out));`;
  const args = how === 'require' ? ['-e', script] : ['--input-type=module', '-e', script];
  return JSON.parse(await sh(process.execPath, args, appDir, { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' })) as Record<string, number>;
}

describe('the packages installed from their tarballs', () => {
  let tarballs: Record<PackageName, string>;
  let cjsApp: string;
  let esmApp: string;

  beforeAll(async () => {
    tarballs = await packedPackages();
    const versions = await rootVersions();
    const manifest = (name: string, type: 'commonjs' | 'module') =>
      JSON.stringify({
        name,
        version: '1.0.0',
        private: true,
        type,
        dependencies: { ...tarballDependencies(tarballs), 'aws-cdk-lib': versions['aws-cdk-lib'], constructs: versions.constructs },
        devDependencies: { typescript: versions.typescript, '@types/node': versions['@types/node'] },
      });
    cjsApp = await createApp('cjs-app', {
      'package.json': manifest('cjs-app', 'commonjs'),
      'tsconfig.json': JSON.stringify({ compilerOptions: CDK_INIT_COMPILER_OPTIONS, include: ['lib'] }),
      'lib/user.ts': USER_FILE,
    });
    esmApp = await createApp('esm-app', {
      'package.json': manifest('esm-app', 'module'),
      'tsconfig.json': JSON.stringify({ compilerOptions: { ...CDK_INIT_COMPILER_OPTIONS, verbatimModuleSyntax: true }, include: ['src'] }),
      'src/user.ts': USER_FILE,
    });
    await npmInstall(cjsApp);
    await npmInstall(esmApp);
  }, 900_000);

  afterAll(async () => {
    for (const dir of [cjsApp, esmApp]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('ship built JavaScript and declarations only: no TypeScript source, no install script', async () => {
    for (const name of PACKAGE_NAMES) {
      const files = (await sh('tar', ['-tzf', tarballs[name]], ROOT)).trim().split('\n');
      expect(files.filter((file) => !/^package\/(dist\/|package\.json$|README\.md$|LICENSE$)/.test(file)), name).toEqual([]);
      expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')), name).toEqual([]);
      const manifest = JSON.parse(await sh('tar', ['-xzOf', tarballs[name], 'package/package.json'], ROOT)) as { scripts?: Record<string, string> };
      expect(Object.keys(manifest.scripts ?? {}).filter((s) => /install|prepare/.test(s)), name).toEqual([]);
    }
  });

  it.each(['require', 'import'] as const)('load every entry of every exports map with %s (in the CommonJS and the ESM app)', async (how) => {
    for (const app of [cjsApp, esmApp]) {
      const specifiers = await entrySpecifiers(app);
      const counts = await load(app, how, specifiers);
      expect(Object.keys(counts).sort()).toEqual([...specifiers].sort());
      expect(Object.entries(counts).filter(([, count]) => count === 0)).toEqual([]);
    }
  }, 120_000);

  /** The app's tsc, run as the app runs it (a whole program check, our declarations included), once per app. */
  const TYPE_CHECK_TIMEOUT_MS = 600_000;

  it(
    "type-check under the CommonJS app's NodeNext, strict, noImplicitReturns tsc, from our declarations only",
    async () => {
      const files = await sh(process.execPath, [TSC, '-p', '.', '--listFiles'], cjsApp);
      const ours = files.split('\n').filter((file) => file.includes('/node_modules/@autosave/'));
      expect(ours.length).toBeGreaterThan(0);
      expect(ours.filter((file) => !file.endsWith('.d.cts'))).toEqual([]);
    },
    TYPE_CHECK_TIMEOUT_MS,
  );

  it(
    "type-check under the ESM app's NodeNext tsc, from the ESM declarations",
    async () => {
      const files = await sh(process.execPath, [TSC, '-p', '.', '--listFiles'], esmApp);
      const ours = files.split('\n').filter((file) => file.includes('/node_modules/@autosave/'));
      expect(ours.length).toBeGreaterThan(0);
      expect(ours.filter((file) => !file.endsWith('.d.ts'))).toEqual([]);
    },
    TYPE_CHECK_TIMEOUT_MS,
  );

  it('give the app the autosave command', async () => {
    expect(await sh(join(esmApp, 'node_modules/.bin/autosave'), ['help'], esmApp)).toMatch(/^usage: autosave <command>/);
  }, 120_000);

  it('carry every built-in Lambda function prebuilt inside @autosave/cdk (the default tool-step and model-step too), each exporting its handler', async () => {
    const names = ['model-step', 'tool-step', 'approval-request', 'approval-endpoint', 'run-monitor', 'redrive'];
    const dir = join(esmApp, 'node_modules/@autosave/cdk/dist/functions');
    const script = `import { pathToFileURL } from 'node:url';
      for (const name of ${JSON.stringify(names)}) {
        const { handler } = await import(pathToFileURL(${JSON.stringify(dir)} + '/' + name + '/index.mjs').href);
        if (typeof handler !== 'function') throw new Error(name + ' exports no handler');
      }
      console.log('ok');`;
    expect((await sh(process.execPath, ['--input-type=module', '-e', script], esmApp, { AWS_REGION: 'us-east-1' })).trim()).toBe('ok');
  }, 120_000);
});
