/**
 * The adoption tier's test-only app (issue 32): a library user who tests Step Functions definitions installs
 * @autosave/engine alone (with @autosave/workflow, its one package dependency) from the packed tarballs, and
 * its own vitest test drives the engine through @autosave/engine/testing: a function by value, a retry over the
 * virtual clock, a mocked integration. Beside it, an app that installs @autosave/local for the same purpose; both
 * node_modules footprints are printed, and the engine's must be the smaller.
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApp,
  npmInstall,
  packedPackages,
  ROOT,
  sh,
  type PackageName,
} from '../../fixtures/packages/packed-packages';

const TEST = `import { afterAll, expect, it } from 'vitest';
import { mockConfig, mockReturn, TestEngine } from '@autosave/engine/testing';

let attempts = 0;
const engine = await TestEngine.start({
  functions: {
    quote: (payload) => {
      attempts += 1;
      if (attempts === 1) throw Object.assign(new Error('rates not ready'), { name: 'NotReady' });
      return { price: (payload as { qty: number }).qty * 3 };
    },
  },
  mocks: mockConfig().testCase('order', 'Saved', { Save: 'Ok' }).response('Ok', mockReturn({ SdkHttpMetadata: { HttpStatusCode: 200 } })),
});
afterAll(() => engine.stop());

it('quotes, retries once on the virtual clock, and saves through a mocked DynamoDB', async () => {
  const arn = await engine.createStateMachine('order', {
    QueryLanguage: 'JSONata',
    StartAt: 'Quote',
    States: {
      Quote: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Arguments: { FunctionName: 'arn:aws:lambda:us-east-1:123456789012:function:quote', Payload: '{% $states.input %}' },
        Retry: [{ ErrorEquals: ['NotReady'], IntervalSeconds: 60 }],
        Output: '{% $states.result.Payload %}',
        Next: 'Save',
      },
      Save: { Type: 'Task', Resource: 'arn:aws:states:::dynamodb:putItem', Arguments: { TableName: 'orders', Item: { price: { N: '{% $string($states.input.price) %}' } } }, Output: '{% $states.input %}', End: true },
    },
  });
  const run = await engine.run(arn, { qty: 4 }, { testCase: 'Saved' });
  expect(run.status).toBe('RUNNING');
  await engine.advance(60_000);
  expect(await engine.describe(run.executionArn)).toMatchObject({ status: 'SUCCEEDED', output: { price: 12 } });
  expect(engine.invocationsOf('quote')).toBe(2);
});

it('knows the AWS SDK integrations AWS has, from the catalog the package reads when first needed', async () => {
  const sdkTask = (resource: string) => ({
    StartAt: 'Call',
    States: { Call: { Type: 'Task', Resource: resource, End: true } },
  });
  await expect(engine.createStateMachine('ec2', sdkTask('arn:aws:states:::aws-sdk:ec2:describeInstances'))).resolves.toContain(':stateMachine:ec2');
  await expect(engine.createStateMachine('nope', sdkTask('arn:aws:states:::aws-sdk:ec2:describeNothing'))).rejects.toThrow(/describeNothing/);
});
`;

/** How many packages a node_modules holds (every folder with a package.json, scoped ones too) and their bytes. */
async function footprint(appDir: string): Promise<{ packages: number; megabytes: number }> {
  const kb = Number((await sh('du', ['-sk', join(appDir, 'node_modules')], appDir)).split(/\s/)[0]);
  let packages = 0;
  const visit = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === '.bin' || entry.name === '.cache') continue;
      const path = join(dir, entry.name);
      if (entry.name.startsWith('@')) await visit(path);
      else if (
        await stat(join(path, 'package.json')).then(
          () => true,
          () => false,
        )
      ) {
        packages += 1;
        const nested = join(path, 'node_modules');
        if (
          await stat(nested).then(
            () => true,
            () => false,
          )
        )
          await visit(nested);
      }
    }
  };
  await visit(join(appDir, 'node_modules'));
  return { packages, megabytes: Math.round(kb / 102.4) / 10 };
}

/** The vitest and vite this repository installs (the apps install from the same npm cache). */
async function vitestVersions(): Promise<Record<string, string>> {
  const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version: string }>;
  };
  return { vitest: lock.packages['node_modules/vitest'].version, vite: lock.packages['node_modules/vite'].version };
}

describe('a test-only app with @autosave/engine alone', () => {
  let engineApp: string;
  let localApp: string;

  beforeAll(async () => {
    const tarballs = (await packedPackages()) as Record<PackageName, string>;
    const runner = await vitestVersions();
    const app = (label: string, packages: readonly PackageName[]) =>
      createApp(label, {
        'package.json': JSON.stringify({
          name: label,
          version: '0.1.0',
          private: true,
          type: 'module',
          scripts: { test: 'vitest run' },
          devDependencies: {
            ...Object.fromEntries(packages.map((name) => [`@autosave/${name}`, `file:${tarballs[name]}`])),
            ...runner,
          },
        }),
        'test/order.test.ts': TEST,
      });
    engineApp = await app('engine-alone', ['workflow', 'engine']);
    await npmInstall(engineApp);
    // The same test's needs met by the local cloud: @autosave/local brings the engine, the runtime and the services.
    localApp = await app('local-for-tests', ['workflow', 'engine', 'runtime', 'local']);
    await npmInstall(localApp);
  }, 900_000);

  afterAll(async () => {
    for (const dir of [engineApp, localApp]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('installs no server, emulator or console: no @autosave/local, dynalite, s3rver, tsx or OpenTelemetry', async () => {
    const top = await readdir(join(engineApp, 'node_modules'));
    const scoped = await readdir(join(engineApp, 'node_modules/@autosave'));
    expect(scoped.sort()).toEqual(['engine', 'workflow']);
    expect(top.filter((name) => ['dynalite', 's3rver', 'tsx', '@opentelemetry'].includes(name))).toEqual([]);
  });

  it("passes the app's own vitest test through @autosave/engine/testing", async () => {
    const out = await sh('npm', ['test', '--', '--reporter=dot'], engineApp, { CI: 'true', NO_COLOR: '1' });
    expect(out).toMatch(/1 passed/);
  }, 120_000);

  it('prints both node_modules footprints; the engine alone is the smaller', async () => {
    const engine = await footprint(engineApp);
    const local = await footprint(localApp);
    console.log(
      `node_modules of a test-only app (vitest and vite included in both):\n` +
        `  @autosave/engine alone  ${engine.packages} packages, ${engine.megabytes} MB\n` +
        `  @autosave/local         ${local.packages} packages, ${local.megabytes} MB`,
    );
    expect(engine.packages).toBeLessThan(local.packages);
    expect(engine.megabytes).toBeLessThan(local.megabytes);
  });
});
