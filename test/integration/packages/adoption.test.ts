/**
 * The adoption tier (issue 19, Deliver 1 and 6): the five packages packed once and installed from their
 * tarballs into two fresh apps outside the repository, used the way the README says:
 * - a `cdk init app --language typescript`-shaped app: CommonJS, NodeNext, strict, noImplicitReturns, jest + ts-jest;
 * - an ESM app (NodeNext, verbatimModuleSyntax) with vitest.
 * Each loads every entry of every exports map with `require` and `import`, passes its own tsc from our
 * declarations only, and writes one workflow (a model step, an approval, a tool of its own made with
 * `defineTool`), its autosave.config.ts, a CDK stack holding an existing table of its own beside
 * `AutosaveWorkflows`, and its own tests. Then `cdk synth` holds both; the workflow runs on `autosave local`
 * through the CLI (start --wait, approve); and its own test runner passes its tests through
 * @autosave/local/testing: an approval, a restart in the middle of the run, the tool's side effect once, one
 * step alone with TestState. The CommonJS app installs the oldest aws-cdk-lib @autosave/cdk's peer range
 * allows, the ESM app this repository's. One build, one npm cache, one install per app.
 */
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApp,
  npmInstall,
  PACKAGE_NAMES,
  packedPackages,
  ROOT,
  sh,
  tarballDependencies,
  type PackageName,
} from '../../fixtures/packages/packed-packages';

/** The versions this repository installs (so the apps install from the same npm cache). */
async function rootVersions(names: readonly string[]): Promise<Record<string, string>> {
  const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version: string }>;
  };
  return Object.fromEntries(names.map((name) => [name, lock.packages[`node_modules/${name}`].version]));
}

/** The lowest version a package's peer range (`^x.y.z`) allows, read from its tarball. */
async function peerFloor(tarball: string, peer: string): Promise<string> {
  const manifest = JSON.parse(await sh('tar', ['-xzOf', tarball, 'package/package.json'], ROOT)) as {
    peerDependencies: Record<string, string>;
  };
  const floor = /^\^(\d+\.\d+\.\d+)$/.exec(manifest.peerDependencies[peer])?.[1];
  if (!floor) throw new Error(`${peer}'s peer range is not ^x.y.z: ${manifest.peerDependencies[peer]}`);
  return floor;
}

/** jest and ts-jest as `npm view` lists them on the registry mirror (ts-jest 29.4 accepts jest ^30). */
const JEST = { jest: '30.5.2', 'ts-jest': '29.4.15', '@types/jest': '30.0.0' };

const WORKFLOW = `import { approval, defineWorkflow, model, tool } from '@autosave/workflow';

export const hello = defineWorkflow({
  name: 'hello',
  version: '1',
  exampleInput: { name: 'Ada', email: 'ada@example.com' },
  steps: [
    model('draft', { prompt: 'Write a one-line welcome for {name}' }),
    approval('review', { title: 'Send this welcome to {name}?', approvers: ['{email}'] }),
    tool('greet', { tool: 'record-greeting', idempotencyKey: 'welcome:{email}', input: { to: '{email}', text: '{steps.draft.text}' } }),
  ],
});
`;

/** An ESM NodeNext app writes its relative imports with `.js`, as the README says; a CommonJS one without. */
const ext = (type: 'commonjs' | 'module') => (type === 'module' ? '.js' : '');

const config = (type: 'commonjs' | 'module') => `import { defineConfig } from '@autosave/local';
import { hello } from './workflows/hello${ext(type)}';

import { handler } from './lambdas/tool-step${ext(type)}';

export default defineConfig({ workflows: [hello], functions: { 'tool-step': handler }, model: { script: './model-script.json' } });
`;

/** The app's own tool (defineTool) and tool-step (toolStepHandler); `greetings` is its side effect, one entry per call. */
const TOOL_STEP = `import { defineTool, toolStepHandler } from '@autosave/runtime';

export const greetings: string[] = [];

export const recordGreeting = defineTool({
  name: 'record-greeting',
  description: 'Records a welcome for a customer.',
  inputSchema: { type: 'object', required: ['to', 'text'], properties: { to: { type: 'string' }, text: { type: 'string' } } },
  execute: async (input: { to: string; text: string }) => {
    greetings.push(input.to);
    return { recorded: input.to };
  },
});

export const handler = toolStepHandler({ tools: [recordGreeting] });
`;

/** A stack of the app's own: its existing table, passed to AutosaveWorkflows beside the app's tool-step. */
const STACK = (type: 'commonjs' | 'module') => `import { Stack, type StackProps } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { AutosaveWorkflows } from '@autosave/cdk';
import { hello } from '../workflows/hello${ext(type)}';

export class AppStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    const table = new dynamodb.Table(this, 'Customers', { partitionKey: { name: 'id', type: dynamodb.AttributeType.STRING }, timeToLiveAttribute: 'expiration', billingMode: dynamodb.BillingMode.PAY_PER_REQUEST });
    new AutosaveWorkflows(this, 'Agents', { workflows: [hello], table, toolStep: { entry: 'lambdas/tool-step.ts', tools: ['record-greeting'] } });
  }
}
`;
const CDK_APP = (type: 'commonjs' | 'module') => `import { App } from 'aws-cdk-lib';
import { AppStack } from '../lib/app-stack${ext(type)}';

const app = new App();
new AppStack(app, 'AppStack', { env: { account: '111111111111', region: 'us-east-1' } });
`;

const MODEL_SCRIPT = JSON.stringify({ responses: [{ step: 'draft', text: 'Welcome aboard, {{prompt}}' }] });

/** The app's own test, the same text under jest (globals) and vitest (imported). */
const userTest = (
  runner: 'jest' | 'vitest',
  type: 'commonjs' | 'module',
) => `${runner === 'vitest' ? "import { afterAll, beforeAll, expect, test } from 'vitest';\n" : ''}import { AutosaveTestEnvironment } from '@autosave/local/testing';
import { hello } from '../workflows/hello${ext(type)}';
import { greetings, handler } from '../lambdas/tool-step${ext(type)}';

let env: AutosaveTestEnvironment;
beforeAll(async () => {
  env = await AutosaveTestEnvironment.start({ workflows: [hello], functions: { 'tool-step': handler }, model: { script: { responses: [{ step: 'draft', text: 'Hi!' }] } } });
}, 60_000);
afterAll(async () => {
  await env.stop();
});

test('an approved welcome is sent once, across a restart in the middle of the run', async () => {
  const envBefore = JSON.stringify(process.env);
  const run = await env.startRun(hello, { name: 'Ada', email: 'ada@example.com' });
  await env.waitFor(run, 'WAITING_FOR_APPROVAL');
  await env.restart();
  await env.approve(run);
  await env.waitFor(run, 'SUCCEEDED');
  expect(greetings.filter((to) => to === 'ada@example.com')).toHaveLength(1);
  expect(await env.attempts(run, 'greet')).toBe(1);
  expect(await env.attempts(run, 'draft')).toBe(1);
  expect(JSON.stringify(process.env)).toBe(envBefore);
}, 60_000);

test('a rejected welcome is never sent', async () => {
  const run = await env.startRun(hello, { name: 'Bob', email: 'bob@example.com' });
  await env.waitFor(run, 'WAITING_FOR_APPROVAL');
  await env.reject(run);
  await env.waitFor(run, 'SUCCEEDED');
  expect(await env.attempts(run, 'greet')).toBe(0);
  expect(greetings).not.toContain('bob@example.com');
}, 60_000);

test('the greet step alone, with TestState: a throttled tool-step would be retried, and the tool is asked with the welcome key', async () => {
  const input = { input: { name: 'Ada', email: 'ada@example.com' }, steps: { draft: { text: 'Hi!' } } };
  const answer = await env.testState({ definition: hello, stateName: 'greet', input, mock: { error: 'Lambda.ServiceException', cause: 'throttled' } });
  expect(answer.status).toBe('RETRIABLE');
  expect(answer.inspectionData?.afterArguments).toMatchObject({ Payload: { tool: 'record-greeting', idempotencyKey: 'welcome:ada@example.com' } });
}, 60_000);
`;

/** A file of the app importing every package and subpath it uses, as a workflow, a stack and a test would. */
const EVERY_PACKAGE = `import { compileWorkflow, defineWorkflow } from '@autosave/workflow';
import { MAX_ATTEMPTS } from '@autosave/workflow/config';
import * as errors from '@autosave/workflow/errors';
import * as runtime from '@autosave/runtime';
import { functions } from '@autosave/runtime/handlers';
import { AutosaveStack, AutosaveWorkflows } from '@autosave/cdk';
import { startLocal } from '@autosave/local';
import { AutosaveTestEnvironment } from '@autosave/local/testing';

export function loaded(): string[] {
  if (MAX_ATTEMPTS < 1) return [];
  return [typeof compileWorkflow, typeof defineWorkflow, typeof errors, typeof runtime, typeof functions, typeof AutosaveStack, typeof AutosaveWorkflows, typeof startLocal, typeof AutosaveTestEnvironment];
}
`;

/** Every subpath of every package's exports map, as an app imports it (`@autosave/workflow/config`, ...). */
async function entrySpecifiers(appDir: string): Promise<string[]> {
  const specifiers: string[] = [];
  for (const name of PACKAGE_NAMES) {
    const manifest = JSON.parse(
      await readFile(join(appDir, 'node_modules/@autosave', name, 'package.json'), 'utf8'),
    ) as { exports: Record<string, unknown> };
    for (const subpath of Object.keys(manifest.exports))
      if (subpath !== './package.json') specifiers.push(`@autosave/${name}${subpath.slice(1)}`);
  }
  return specifiers;
}

/** Loads each specifier in a fresh Node process of the app, with `require` or `import`; resolves to specifier -> export count. */
async function load(
  appDir: string,
  how: 'require' | 'import',
  specifiers: readonly string[],
): Promise<Record<string, number>> {
  const script =
    how === 'require'
      ? `const out = {}; for (const s of ${JSON.stringify(specifiers)}) out[s] = Object.keys(require(s)).length; console.log(JSON.stringify(out));`
      : `const out = {}; for (const s of ${JSON.stringify(specifiers)}) out[s] = Object.keys(await import(s)).length; console.log(JSON.stringify(out));`;
  const args = how === 'require' ? ['-e', script] : ['--input-type=module', '-e', script];
  return JSON.parse(
    await sh(process.execPath, args, appDir, { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' }),
  ) as Record<string, number>;
}

/** What `cdk init app --language typescript` writes into tsconfig.json. */
const CDK_INIT_COMPILER_OPTIONS = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  lib: ['es2022'],
  declaration: true,
  strict: true,
  noImplicitAny: true,
  strictNullChecks: true,
  noImplicitThis: true,
  alwaysStrict: true,
  noUnusedLocals: false,
  noUnusedParameters: false,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: false,
  inlineSourceMap: true,
  inlineSources: true,
  experimentalDecorators: true,
  strictPropertyInitialization: false,
  typeRoots: ['./node_modules/@types'],
  noEmit: true,
};

interface AppKind {
  readonly label: string;
  readonly type: 'commonjs' | 'module';
  readonly runner: 'jest' | 'vitest';
  /** The declarations its tsc must read of ours: the CommonJS ones (.d.cts) or the ESM ones (.d.ts). */
  readonly declarations: RegExp;
  /** Which aws-cdk-lib it installs: the floor of @autosave/cdk's peer range, or the one this repository uses. */
  readonly cdkLib: 'oldest' | 'current';
}
const APPS: readonly AppKind[] = [
  { label: 'cdk-init-app', type: 'commonjs', runner: 'jest', declarations: /\.d\.cts$/, cdkLib: 'oldest' },
  { label: 'esm-vitest-app', type: 'module', runner: 'vitest', declarations: /(?<!\.d\.c)\.d\.ts$/, cdkLib: 'current' },
];

/** Runs `autosave local` of the app until `work` is done; resolves with what work returned. */
async function withEngine<T>(appDir: string, work: (url: string) => Promise<T>): Promise<T> {
  const child = spawn(
    join(appDir, 'node_modules/.bin/autosave'),
    ['local', '--port', '0', '--data', join(appDir, '.autosave')],
    { cwd: appDir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`autosave local did not listen:\n${output}`)), 60_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exited.then(() => reject(new Error(`autosave local exited:\n${output}`)));
    });
    return await work(url);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe('the packed tarballs', () => {
  it('ship built JavaScript, declarations, README and LICENSE only: no TypeScript source, no install script', async () => {
    const tarballs = await packedPackages();
    for (const name of PACKAGE_NAMES) {
      const files = (await sh('tar', ['-tzf', tarballs[name]], ROOT)).trim().split('\n');
      expect(
        files.filter((file) => !/^package\/(dist\/|package\.json$|README\.md$|LICENSE$)/.test(file)),
        name,
      ).toEqual([]);
      expect(
        files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')),
        name,
      ).toEqual([]);
      expect(files, name).toContain('package/LICENSE');
      const manifest = JSON.parse(await sh('tar', ['-xzOf', tarballs[name], 'package/package.json'], ROOT)) as {
        scripts?: Record<string, string>;
      };
      expect(
        Object.keys(manifest.scripts ?? {}).filter((s) => /install|prepare/.test(s)),
        name,
      ).toEqual([]);
    }
  }, 900_000);
});

describe.each(APPS)('$label, installed from the tarballs', (kind) => {
  let appDir: string;
  let cdkLibVersion: string;
  const autosave = (args: string[]) => sh(join(appDir, 'node_modules/.bin/autosave'), args, appDir);

  beforeAll(async () => {
    const tarballs = await packedPackages();
    const versions = await rootVersions([
      'aws-cdk-lib',
      'constructs',
      'typescript',
      '@types/node',
      'vitest',
      'vite',
      'aws-cdk',
      'esbuild',
      'tsx',
    ]);
    const { '@autosave/local': local, ...runtimeDeps } = tarballDependencies(tarballs as Record<PackageName, string>);
    const runnerDeps = kind.runner === 'jest' ? JEST : { vitest: versions.vitest, vite: versions.vite };
    cdkLibVersion = kind.cdkLib === 'oldest' ? await peerFloor(tarballs.cdk, 'aws-cdk-lib') : versions['aws-cdk-lib'];
    appDir = await createApp(kind.label, {
      'package.json': JSON.stringify({
        name: kind.label,
        version: '0.1.0',
        private: true,
        type: kind.type,
        scripts: { test: kind.runner === 'jest' ? 'jest' : 'vitest run' },
        // What cdk init writes into jest.config.js: ts-jest for .ts files, the tests under test/.
        ...(kind.runner === 'jest'
          ? {
              jest: {
                testEnvironment: 'node',
                roots: ['<rootDir>/test'],
                testMatch: ['**/*.test.ts'],
                transform: { '^.+\\.tsx?$': 'ts-jest' },
              },
            }
          : {}),
        dependencies: { ...runtimeDeps, 'aws-cdk-lib': cdkLibVersion, constructs: versions.constructs },
        devDependencies: {
          '@autosave/local': local,
          'aws-cdk': versions['aws-cdk'],
          esbuild: versions.esbuild,
          tsx: versions.tsx,
          typescript: versions.typescript,
          '@types/node': versions['@types/node'],
          ...runnerDeps,
        },
      }),
      'tsconfig.json': JSON.stringify({
        compilerOptions: {
          ...CDK_INIT_COMPILER_OPTIONS,
          ...(kind.type === 'module' ? { verbatimModuleSyntax: true } : {}),
          types: kind.runner === 'jest' ? ['node', 'jest'] : ['node'],
        },
        include: ['workflows', 'lambdas', 'lib', 'bin', 'test', 'autosave.config.ts'],
      }),
      'workflows/hello.ts': WORKFLOW,
      'autosave.config.ts': config(kind.type),
      'lambdas/tool-step.ts': TOOL_STEP,
      'lib/app-stack.ts': STACK(kind.type),
      'lib/every-package.ts': EVERY_PACKAGE,
      'bin/app.ts': CDK_APP(kind.type),
      'cdk.json': JSON.stringify({ app: 'npx tsx bin/app.ts', context: { 'cli-telemetry': false } }),
      'model-script.json': MODEL_SCRIPT,
      'test/hello.test.ts': userTest(kind.runner, kind.type),
    });
    await npmInstall(appDir);
  }, 900_000);

  afterAll(async () => {
    if (appDir) await rm(appDir, { recursive: true, force: true });
  });

  it.each(['require', 'import'] as const)(
    'loads every entry of every exports map with %s',
    async (how) => {
      const specifiers = await entrySpecifiers(appDir);
      const counts = await load(appDir, how, specifiers);
      expect(Object.keys(counts).sort()).toEqual([...specifiers].sort());
      expect(Object.entries(counts).filter(([, count]) => count === 0)).toEqual([]);
    },
    120_000,
  );

  it("passes the app's own tsc (its workflow, config, stack and tests), which reads our declarations only", async () => {
    const files = await sh(
      process.execPath,
      [join(appDir, 'node_modules/typescript/bin/tsc'), '-p', '.', '--listFiles'],
      appDir,
    );
    const ours = files.split('\n').filter((file) => file.includes('/node_modules/@autosave/'));
    expect(ours.length).toBeGreaterThan(0);
    expect(ours.filter((file) => !kind.declarations.test(file))).toEqual([]);
  }, 600_000);

  /** `cdk synth` as the user types it; the template holds the app's table and the construct's state machine, and no second table. */
  const synth = async () => {
    await rm(join(appDir, 'cdk.out'), { recursive: true, force: true });
    await sh(join(appDir, 'node_modules/.bin/cdk'), ['synth', '--quiet', '--no-notices'], appDir);
    const template = JSON.parse(await readFile(join(appDir, 'cdk.out/AppStack.template.json'), 'utf8')) as {
      Resources: Record<string, { Type: string }>;
    };
    const ofType = (type: string) => Object.entries(template.Resources).filter(([, r]) => r.Type === type);
    expect(ofType('AWS::DynamoDB::Table').map(([id]) => id)).toEqual([expect.stringMatching(/^Customers/)]);
    expect(ofType('AWS::StepFunctions::StateMachine')).toHaveLength(1);
    expect(ofType('AWS::StepFunctions::StateMachineAlias')).toHaveLength(1);
  };

  it(`synthesizes its stack with cdk synth on ${kind.cdkLib === 'oldest' ? "the oldest aws-cdk-lib @autosave/cdk's peer range allows" : "this repository's aws-cdk-lib"}: its own table beside the construct and its state machine`, async () => {
    const installed = (
      JSON.parse(await readFile(join(appDir, 'node_modules/aws-cdk-lib/package.json'), 'utf8')) as { version: string }
    ).version;
    expect(installed).toBe(cdkLibVersion);
    await synth();
  }, 600_000);

  it('compiles and runs the workflow on autosave local through the CLI: start --wait stops at the approval, approve finishes it', async () => {
    expect(JSON.parse(await autosave(['compile', 'hello'])).States).toHaveProperty('review');
    await withEngine(appDir, async (url) => {
      const started = await autosave([
        'start',
        'hello',
        '--input',
        JSON.stringify({ name: 'Ada', email: 'ada@example.com' }),
        '--name',
        'cli-run',
        '--wait',
        '--endpoint',
        url,
      ]);
      expect(started).toContain('waiting on a human at review');
      const id = /autosave approve (?:\[--reject\] \[--comment "\.\.\."\] -- )?(\S+)/.exec(started)?.[1];
      expect(id, started).toBeDefined();
      await autosave(['approve', id!, '--endpoint', url]);
      let status = '';
      for (let i = 0; i < 300 && status !== 'SUCCEEDED'; i++) {
        status = (
          JSON.parse(await autosave(['describe', 'cli-run', '--json', '--endpoint', url])) as { status: string }
        ).status;
        if (status === 'RUNNING') await new Promise((r) => setTimeout(r, 100));
        else expect(status).toBe('SUCCEEDED');
      }
      expect(status).toBe('SUCCEEDED');
    });
  }, 300_000);

  it(`passes its own tests under ${kind.runner}, through the test environment, with no transform configuration of ours`, async () => {
    // jest prints its summary on stderr.
    const out = stripVTControlCharacters(
      await sh('sh', ['-c', 'npm test 2>&1'], appDir, { CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' }),
    );
    expect(out).toMatch(kind.runner === 'jest' ? /Tests:\s+3 passed, 3 total/ : /Tests\s+3 passed \(3\)/);
  }, 300_000);

  if (kind.type === 'module') {
    it('carries every built-in Lambda function prebuilt inside @autosave/cdk (the default tool-step and model-step too), each exporting its handler', async () => {
      const names = ['model-step', 'tool-step', 'approval-request', 'approval-endpoint', 'run-monitor', 'redrive'];
      const dir = join(appDir, 'node_modules/@autosave/cdk/dist/functions');
      const script = `import { pathToFileURL } from 'node:url';
        for (const name of ${JSON.stringify(names)}) {
          const { handler } = await import(pathToFileURL(${JSON.stringify(dir)} + '/' + name + '/index.mjs').href);
          if (typeof handler !== 'function') throw new Error(name + ' exports no handler');
        }
        console.log('ok');`;
      expect(
        (await sh(process.execPath, ['--input-type=module', '-e', script], appDir, { AWS_REGION: 'us-east-1' })).trim(),
      ).toBe('ok');
    }, 120_000);
  }
});
