/**
 * autosave.config.ts: found by walking up from the current directory, loaded as the user's app is built
 * (TypeScript in a CommonJS or an ESM package), every relative path taken from the config file's folder.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AutosaveConfigError, findConfigFile, loadConfig } from '../../src/project';
import { run as compile } from '../../src/cli/commands/compile';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'autosave-config-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A project folder with a package.json of that module type, a helper module and a config importing it extensionless. */
async function project(name: string, type: 'commonjs' | 'module', config: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(join(dir, 'src', 'deep'), { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name, type }));
  await writeFile(
    join(dir, 'workflows.ts'),
    `export const hello = { name: 'hello-${type}', version: '1', type: 'STANDARD', steps: [] as const };\n` +
      `export const greet = async () => ({ greeting: 'hi' });\n`,
  );
  await mkdir(join(dir, 'fixtures'), { recursive: true });
  await writeFile(join(dir, 'fixtures', 'script.json'), JSON.stringify({ responses: [] }));
  await writeFile(join(dir, 'autosave.config.ts'), config);
  return dir;
}

const CONFIG = `import { hello, greet } from './workflows';
export default {
  workflows: [hello],
  functions: { 'tool-step': greet, 'my-function': { handler: greet, timeoutSeconds: 5 } },
  model: { script: './fixtures/script.json' },
  environment: { GREETING: 'hi' },
};
`;

describe('findConfigFile', () => {
  it('walks up from a nested folder to the nearest autosave.config.ts', async () => {
    const dir = await project('walk', 'module', CONFIG);
    expect(findConfigFile(join(dir, 'src', 'deep'))).toBe(join(dir, 'autosave.config.ts'));
  });

  it('finds nothing in a folder with no config above it (never a path of its own invention)', () => {
    expect(findConfigFile('/')).toBeUndefined();
  });
});

describe('loadConfig', () => {
  it.each(['commonjs', 'module'] as const)(
    'loads a TypeScript config in a %s package, with extensionless relative imports',
    async (type) => {
      const dir = await project(`app-${type}`, type, CONFIG);
      const loaded = await loadConfig(join(dir, 'autosave.config.ts'));
      expect(loaded.configFile).toBe(join(dir, 'autosave.config.ts'));
      expect(loaded.workflows.map((w) => w.name)).toEqual([`hello-${type}`]);
      // A runtime function's name gets the prefix it is invoked under; any other name stays as written.
      expect(Object.keys(loaded.functions).sort()).toEqual(['autosave-tool-step', 'my-function']);
      // The model script is taken from the config's folder, not from wherever the command runs.
      expect(loaded.environment).toEqual({
        GREETING: 'hi',
        AUTOSAVE_MODEL_SCRIPT: join(dir, 'fixtures', 'script.json'),
      });
    },
  );

  it('loads a functions module named by a path relative to the config file', async () => {
    const dir = await project(
      'functions-module',
      'module',
      `import { hello } from './workflows';\nexport default { workflows: [hello], functions: './handlers.ts' };\n`,
    );
    await writeFile(
      join(dir, 'handlers.ts'),
      `export const modelStep = async () => ({});\nexport default { 'model-step': async () => ({ text: 'scripted' }) };\n`,
    );
    const loaded = await loadConfig(join(dir, 'autosave.config.ts'));
    expect(Object.keys(loaded.functions)).toEqual(['autosave-model-step']);
  });

  it.each([
    ['no workflows', 'export default { functions: {} };', /`workflows` must be an array/],
    ['a workflow that is not one', 'export default { workflows: [42] };', /workflows\[0\] is not a workflow/],
    [
      'two workflows of one name',
      `import { hello } from './workflows';\nexport default { workflows: [hello, hello] };`,
      /two workflows are named 'hello-module'/,
    ],
    ['a syntax error', 'export default {', /could not be loaded/],
    [
      'functions: 42',
      `import { hello } from './workflows';\nexport default { workflows: [hello], functions: 42 };`,
      /`functions` must be a table of handlers .* or the path of a module exporting one; it is 42/,
    ],
    [
      'a function that is not a handler',
      `import { hello } from './workflows';\nexport default { workflows: [hello], functions: { 'my-function': 'greet' } };`,
      /`functions\['my-function'\]` is not a Lambda handler/,
    ],
    [
      'a model script that does not exist',
      `import { hello } from './workflows';\nexport default { workflows: [hello], model: { script: './no-such-script.json' } };`,
      /`model.script` names .*no-such-script.json, which does not exist/,
    ],
    [
      'a model script that is not a path',
      `import { hello } from './workflows';\nexport default { workflows: [hello], model: { script: 7 } };`,
      /`model.script` must be the path of a JSON file/,
    ],
    [
      'environment values that are not strings',
      `import { hello } from './workflows';\nexport default { workflows: [hello], environment: { PORT: 8080 } };`,
      /`environment.PORT` must be a string/,
    ],
  ])('refuses %s with an error naming the file', async (label, config, message) => {
    const dir = await project(`bad-${label.replaceAll(' ', '-')}`, 'module', config);
    const error = await loadConfig(join(dir, 'autosave.config.ts')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AutosaveConfigError);
    expect((error as Error).message).toContain(join(dir, 'autosave.config.ts'));
    expect((error as Error).message).toMatch(message);
  });
});

describe('a config that never finishes loading', () => {
  it('times out naming the file, instead of hanging with no output', async () => {
    const dir = await project(
      'never-settles',
      'module',
      `await new Promise(() => undefined);\nexport default { workflows: [] };\n`,
    );
    const started = Date.now();
    const error = await loadConfig(join(dir, 'autosave.config.ts'), { timeoutMillis: 1500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AutosaveConfigError);
    expect((error as Error).name).toBe('AutosaveConfigError');
    expect((error as Error).message).toMatch(
      new RegExp(`^${join(dir, 'autosave.config.ts').replace(/[.]/g, '\\.')} did not finish loading in 1.5 s`),
    );
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe('autosave compile --config', () => {
  it("writes the config's workflows, not the example app's", async () => {
    const dir = await project('compile', 'commonjs', CONFIG.replace('steps: [] as const', 'steps: []'));
    await writeFile(
      join(dir, 'workflows.ts'),
      `import { defineWorkflow, tool } from ${JSON.stringify(join(process.cwd(), 'packages/workflow/src/index.ts'))};\n` +
        `export const hello = defineWorkflow({ name: 'hello-app', version: '1', steps: [tool('greet', { tool: 'greet', idempotencyKey: '{id}:greet' })] });\n` +
        `export const greet = async () => ({});\n`,
    );
    const out = join(dir, 'asl');
    expect(await compile(['--config', join(dir, 'autosave.config.ts'), '--out', out])).toBe(0);
    const asl = JSON.parse(await readFile(join(out, 'hello-app.asl.json'), 'utf8')) as {
      States: Record<string, unknown>;
    };
    expect(Object.keys(asl.States)).toContain('greet');
  });
});
