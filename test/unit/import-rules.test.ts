/**
 * The house's import rules (.dependency-cruiser.cjs) hold on the real tree, and each rule catches a
 * violation planted in a small tree of the same shape (run through the same CLI a developer runs).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');
const { SOURCE_ROOTS } = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as {
  SOURCE_ROOTS: string[];
};

interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
}

/** Runs depcruise in `cwd` with `config` and resolves with the violations it found. */
async function cruise(cwd: string, config: string, roots: readonly string[]): Promise<Violation[]> {
  const present = roots.filter((root) => existsSync(join(cwd, root)));
  const run = await promisify(execFile)(DEPCRUISE, ['--config', config, '--output-type', 'json', ...present], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  })
    .then(({ stdout }) => ({ stdout, stderr: '', exitCode: 0 }))
    .catch((error: { stdout?: string; stderr?: string; code?: number }) => ({
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
      exitCode: error.code ?? 1,
    }));
  if (!run.stdout) throw new Error(`depcruise printed no result (exit ${run.exitCode}): ${run.stderr}`);
  const result = JSON.parse(run.stdout) as { summary: { violations: Violation[] } };
  return result.summary.violations;
}

const describeViolation = (v: Violation) => `${v.rule.name}: ${v.from} -> ${v.to}`;

describe('import rules', () => {
  it('hold on the source tree', async () => {
    const violations = await cruise(ROOT, '.dependency-cruiser.cjs', SOURCE_ROOTS);
    expect(violations.map(describeViolation)).toEqual([]);
  });

  describe('on a tree with planted violations', () => {
    /** Imports the layout allows, including the designs other parts rely on (see the comments). */
    const allowed: Record<string, string> = {
      'packages/workflow/src/index.ts': "export * from './compile';",
      'packages/workflow/src/compile.ts': "import { LIMIT } from './config';\nexport const compile = LIMIT;",
      'packages/workflow/src/config/index.ts': "export * from './constants';",
      'packages/workflow/src/config/constants.ts': 'export const LIMIT = 1;',
      'packages/workflow/src/errors/index.ts': "import { LIMIT } from '../config';\nexport const errorLimit = LIMIT;",
      'packages/runtime/src/records/index.ts': "export * from './record-table';",
      'packages/runtime/src/records/record-table.ts':
        "import { LIMIT } from '@autosave/workflow/config';\nexport const table = LIMIT;",
      'packages/runtime/src/handlers/index.ts': "import { table } from '../records';\nexport const handlers = table;",
      'packages/local/src/cloud-assembly/index.ts': "export * from './assembly';",
      'packages/local/src/cloud-assembly/assembly.ts':
        "import { table } from '@autosave/runtime/records';\nexport const assembly = table;",
      'packages/engine/src/store/index.ts':
        "import { LIMIT } from '@autosave/workflow/config';\nexport const store = LIMIT;",
      'packages/engine/src/index.ts': "export * from './engine';",
      'packages/engine/src/engine.ts':
        "import { LIMIT } from '@autosave/workflow/config';\nimport { errorLimit } from '@autosave/workflow/errors';\nimport { store } from './store';\n" +
        "import { shape } from './dataflow';\nexport const engine = LIMIT + errorLimit + store + shape;\n" +
        '/** Injected by the services, so the engine never imports the simulator or the cloud assembly reader. */\n' +
        'export interface IamEvaluator { allowed(action: string): boolean }',
      'packages/engine/src/dataflow/index.ts': "export * from './types';",
      'packages/engine/src/dataflow/types.ts': 'export const shape = 1;',
      'packages/local/src/services/iam.ts':
        "import type { IamEvaluator } from '@autosave/engine';\nimport { assembly } from '../cloud-assembly';\n" +
        'export const evaluator: IamEvaluator = { allowed: () => assembly > 0 };',
      'packages/cdk/src/stack.ts':
        "import { handlers } from '@autosave/runtime/handlers';\nimport { compile } from '@autosave/workflow';\nexport const stack = handlers + compile;",
      'packages/cdk/src/index.ts': "export * from './stack';",
      'packages/local/src/index.ts':
        "export { store } from '@autosave/engine/store';\nexport type { IamEvaluator } from '@autosave/engine';",
      'statemachines/index.ts': "import { compile } from '@autosave/workflow';\nexport const workflows = compile;",
      'infra/app.ts':
        "import { stack } from '@autosave/cdk';\nimport { workflows } from '../statemachines';\nexport const app = stack + workflows;",
      // The CLI is where the engine and the construct meet.
      'packages/local/src/cli/main.ts':
        "import { stack } from '@autosave/cdk';\nimport { engine } from '@autosave/engine';\nexport const main = stack + engine;",
    };
    /** One file per rule, each breaking exactly that rule: [file, source, the violations it must cause]. */
    const planted: [string, string, string[]][] = [
      [
        'packages/workflow/src/uses-runtime.ts',
        "import { table } from '@autosave/runtime/records';\nexport const x = table;",
        [
          'workflow-imports-only-workflow: packages/workflow/src/uses-runtime.ts -> packages/runtime/src/records/index.ts',
        ],
      ],
      [
        'packages/runtime/src/records/uses-local.ts',
        "import { store } from '@autosave/local';\nexport const x = store;",
        ['runtime-imports-workflow: packages/runtime/src/records/uses-local.ts -> packages/local/src/index.ts'],
      ],
      [
        'packages/local/src/services/deploy.ts',
        "import { stack } from '@autosave/cdk';\nexport const x = stack;",
        ['local-never-imports-cdk: packages/local/src/services/deploy.ts -> packages/cdk/src/index.ts'],
      ],
      [
        'packages/cdk/src/local-bridge.ts',
        "import type { IamEvaluator } from '@autosave/local';\nexport type X = IamEvaluator;",
        ['cdk-never-imports-local: packages/cdk/src/local-bridge.ts -> packages/local/src/index.ts'],
      ],
      [
        'packages/engine/src/reads-records.ts',
        "import { table } from '@autosave/runtime/records';\nexport const x = table;",
        [
          'engine-imports-config-errors-store: packages/engine/src/reads-records.ts -> packages/runtime/src/records/index.ts',
        ],
      ],
      // The engine is below the local cloud: it never reaches the services, the console or the CLI.
      [
        'packages/engine/src/uses-local.ts',
        "import { store } from '@autosave/local';\nexport const x = store;",
        ['engine-imports-config-errors-store: packages/engine/src/uses-local.ts -> packages/local/src/index.ts'],
      ],
      [
        'packages/cdk/src/engine-bridge.ts',
        "import type { IamEvaluator } from '@autosave/engine';\nexport type X = IamEvaluator;",
        ['cdk-never-imports-local: packages/cdk/src/engine-bridge.ts -> packages/engine/src/index.ts'],
      ],
      [
        'packages/local/src/services/engine-by-path.ts',
        "import { engine } from '../../../engine/src';\nexport const x = engine;",
        [
          'packages-import-each-other-by-name: packages/local/src/services/engine-by-path.ts -> packages/engine/src/index.ts',
        ],
      ],
      [
        'packages/local/src/services/deep.ts',
        "import { LIMIT } from '../../../workflow/src/config/constants';\nexport const x = LIMIT;",
        [
          'module-entered-through-index: packages/local/src/services/deep.ts -> packages/workflow/src/config/constants.ts',
          'packages-import-each-other-by-name: packages/local/src/services/deep.ts -> packages/workflow/src/config/constants.ts',
        ],
      ],
      [
        'packages/engine/src/executor.ts',
        "import { shape } from './dataflow/types';\nexport const x = shape;",
        ['module-entered-through-index: packages/engine/src/executor.ts -> packages/engine/src/dataflow/types.ts'],
      ],
      // A package reached by a relative path instead of its name; the example app doing the same; a package reading the example app.
      [
        'packages/cdk/src/relative.ts',
        "import { compile } from '../../workflow/src';\nexport const x = compile;",
        ['packages-import-each-other-by-name: packages/cdk/src/relative.ts -> packages/workflow/src/index.ts'],
      ],
      [
        'infra/relative.ts',
        "import { stack } from '../packages/cdk/src/stack';\nexport const x = stack;",
        ['example-app-imports-packages-by-name: infra/relative.ts -> packages/cdk/src/stack.ts'],
      ],
      // A benchmark drives the engine by name, as an app does, not by a path into its sources.
      [
        'bench/by-path.ts',
        "import { engine } from '../packages/engine/src/engine';\nexport const x = engine;",
        ['bench-imports-packages-by-name: bench/by-path.ts -> packages/engine/src/engine.ts'],
      ],
      ['bench/by-name.ts', "import { engine } from '@autosave/engine';\nexport const x = engine;", []],
      [
        'packages/cdk/src/reads-app.ts',
        "import { workflows } from '../../../statemachines';\nexport const x = workflows;",
        ['packages-never-import-the-example-app: packages/cdk/src/reads-app.ts -> statemachines/index.ts'],
      ],
      // The CLI finds the user's workflows through autosave.config.ts: reading the example app's registry is no longer allowed.
      [
        'packages/local/src/cli/command.ts',
        "import { workflows } from '../../../../statemachines';\nexport const command = workflows;",
        ['packages-never-import-the-example-app: packages/local/src/cli/command.ts -> statemachines/index.ts'],
      ],
      // A cycle is reported once, at the edge where the cruiser closes it.
      [
        'packages/runtime/src/ping/index.ts',
        "import { pong } from '../pong';\nexport const ping = () => pong;",
        ['no-cycles: packages/runtime/src/ping/index.ts -> packages/runtime/src/pong/index.ts'],
      ],
      ['packages/runtime/src/pong/index.ts', "import { ping } from '../ping';\nexport const pong = () => ping;", []],
    ];
    let tree: string;
    beforeAll(async () => {
      tree = await mkdtemp(join(tmpdir(), 'autosave-import-rules-'));
      const files = { ...allowed, ...Object.fromEntries(planted.map(([file, source]) => [file, source])) };
      for (const [file, source] of Object.entries(files)) {
        await mkdir(dirname(join(tree, file)), { recursive: true });
        await writeFile(join(tree, file), `${source}\n`);
      }
      // The package names resolve to the sources as in the real tree (tsconfig paths).
      const paths = {
        '@autosave/workflow': ['./packages/workflow/src/index.ts'],
        '@autosave/workflow/config': ['./packages/workflow/src/config/index.ts'],
        '@autosave/workflow/errors': ['./packages/workflow/src/errors/index.ts'],
        '@autosave/runtime/records': ['./packages/runtime/src/records/index.ts'],
        '@autosave/runtime/handlers': ['./packages/runtime/src/handlers/index.ts'],
        '@autosave/cdk': ['./packages/cdk/src/index.ts'],
        '@autosave/local': ['./packages/local/src/index.ts'],
        '@autosave/engine': ['./packages/engine/src/index.ts'],
        '@autosave/engine/store': ['./packages/engine/src/store/index.ts'],
      };
      await writeFile(
        join(tree, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'bundler', strict: true, paths } }),
      );
      // The project's rules, built for this tree (module folders are read from the tree).
      await writeFile(
        join(tree, 'rules.cjs'),
        `const house = require(${JSON.stringify(join(ROOT, '.dependency-cruiser.cjs'))});\n` +
          'module.exports = { forbidden: house.importRules(__dirname), options: house.options };\n',
      );
    });
    afterAll(() => rm(tree, { recursive: true, force: true }));

    it('reports each planted violation under its rule, and nothing the layout allows', async () => {
      const violations = await cruise(tree, 'rules.cjs', SOURCE_ROOTS);
      expect(violations.map(describeViolation).sort()).toEqual(planted.flatMap(([, , expected]) => expected).sort());
    });
  });
});
