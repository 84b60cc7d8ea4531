/**
 * The house's import rules (.dependency-cruiser.cjs) hold on the real tree, and each rule catches a
 * violation planted in a small tree of the same shape (run through the same CLI a developer runs).
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');
const { SOURCE_ROOTS } = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as { SOURCE_ROOTS: string[] };

interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
}

/** Runs depcruise in `cwd` with `config` and resolves with the violations it found. */
async function cruise(cwd: string, config: string, roots: readonly string[]): Promise<Violation[]> {
  const run = await promisify(execFile)(DEPCRUISE, ['--config', config, '--output-type', 'json', ...roots], { cwd, maxBuffer: 64 * 1024 * 1024 })
    .then(({ stdout }) => ({ stdout, stderr: '', exitCode: 0 }))
    .catch((error: { stdout?: string; stderr?: string; code?: number }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '', exitCode: error.code ?? 1 }));
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
      'lib/config/index.ts': "export * from './constants';",
      'lib/config/constants.ts': 'export const LIMIT = 1;',
      'lib/errors/index.ts': "import { LIMIT } from '../config';\nexport const errorLimit = LIMIT;",
      'lib/records/index.ts': "export * from './record-table';",
      'lib/records/record-table.ts': "import { LIMIT } from '../config';\nexport const table = LIMIT;",
      // lib/cloud-assembly is read by local/services (the engine booted from a stack) and by infra/.
      'lib/cloud-assembly/index.ts': "export * from './assembly';",
      'lib/cloud-assembly/assembly.ts': "import { table } from '../records';\nexport const assembly = table;",
      'local/store/index.ts': "import { LIMIT } from '../../lib/config';\nexport const store = LIMIT;",
      'local/engine/index.ts': "export * from './engine';",
      'local/engine/engine.ts':
        "import { LIMIT } from '../../lib/config';\nimport { errorLimit } from '../../lib/errors';\nimport { store } from '../store';\n" +
        "import { shape } from './dataflow';\nexport const engine = LIMIT + errorLimit + store + shape;\n" +
        '/** Injected by local/services, so the engine never imports the simulator or lib/cloud-assembly. */\n' +
        'export interface IamEvaluator { allowed(action: string): boolean }',
      'local/engine/dataflow/index.ts': "export * from './types';",
      'local/engine/dataflow/types.ts': 'export const shape = 1;',
      'local/services/iam.ts':
        "import type { IamEvaluator } from '../engine';\nimport { assembly } from '../../lib/cloud-assembly';\n" +
        'export const evaluator: IamEvaluator = { allowed: () => assembly > 0 };',
      'infra/stack.ts': "import { assembly } from '../lib/cloud-assembly';\nimport { workflows } from '../statemachines';\nexport const stack = assembly + workflows;",
      'lambdas/index.ts': "import { table } from '../lib/records';\nexport const handlers = table;",
      'statemachines/index.ts': "import { LIMIT } from '../lib/config';\nexport const workflows = LIMIT;",
      // cli/ is where local/ and infra/ meet.
      'cli/main.ts': "import { stack } from '../infra/stack';\nimport { engine } from '../local/engine';\nexport const main = stack + engine;",
    };
    /** One file per rule, each breaking exactly that rule: [file, source, the violations it must cause]. */
    const planted: [string, string, string[]][] = [
      ['lib/records/uses-local.ts', "import { store } from '../../local/store';\nexport const x = store;", ['lib-imports-only-lib: lib/records/uses-local.ts -> local/store/index.ts']],
      ['local/services/deploy.ts', "import { stack } from '../../infra/stack';\nexport const x = stack;", ['local-never-imports-infra: local/services/deploy.ts -> infra/stack.ts']],
      ['infra/local-bridge.ts', "import type { IamEvaluator } from '../local/engine';\nexport type X = IamEvaluator;", ['infra-never-imports-local: infra/local-bridge.ts -> local/engine/index.ts']],
      ['local/engine/reads-records.ts', "import { table } from '../../lib/records';\nexport const x = table;", ['engine-imports-config-errors-store: local/engine/reads-records.ts -> lib/records/index.ts']],
      ['local/services/deep.ts', "import { LIMIT } from '../../lib/config/constants';\nexport const x = LIMIT;", ['module-entered-through-index: local/services/deep.ts -> lib/config/constants.ts']],
      ['local/engine/executor.ts', "import { shape } from './dataflow/types';\nexport const x = shape;", ['module-entered-through-index: local/engine/executor.ts -> local/engine/dataflow/types.ts']],
      // A cycle is reported once, at the edge where the cruiser closes it.
      ['lib/ping/index.ts', "import { pong } from '../pong';\nexport const ping = () => pong;", ['no-cycles: lib/ping/index.ts -> lib/pong/index.ts']],
      ['lib/pong/index.ts', "import { ping } from '../ping';\nexport const pong = () => ping;", []],
    ];
    let tree: string;
    beforeAll(async () => {
      tree = await mkdtemp(join(tmpdir(), 'autosave-import-rules-'));
      const files = { ...allowed, ...Object.fromEntries(planted.map(([file, source]) => [file, source])) };
      for (const [file, source] of Object.entries(files)) {
        await mkdir(dirname(join(tree, file)), { recursive: true });
        await writeFile(join(tree, file), `${source}\n`);
      }
      await writeFile(join(tree, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'bundler', strict: true } }));
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
