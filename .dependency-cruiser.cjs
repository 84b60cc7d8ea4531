/**
 * The house's import rules (docs/architecture.md, "Import rules"), checked by
 * test/unit/house/import-rules.test.ts on every `npm test` and by `npm run lint:imports`.
 *
 * A module is a folder with an index.ts; the list is read from the tree, so a new module (say
 * lib/cloud-assembly/) is held to the rules the moment it has its index.ts.
 */
const { readdirSync, existsSync } = require('node:fs');
const { join } = require('node:path');

/** The source folders the rules govern (tests and benchmarks may reach into a module to test it). */
const SOURCE_ROOTS = ['lib', 'local', 'infra', 'cli', 'lambdas', 'statemachines'];

/** Every folder under `roots` (relative to `baseDir`) that has an index.ts, parents before children. */
function moduleFolders(baseDir, roots = SOURCE_ROOTS) {
  const found = [];
  const visit = (folder) => {
    if (existsSync(join(baseDir, folder, 'index.ts'))) found.push(folder);
    for (const entry of readdirSync(join(baseDir, folder), { withFileTypes: true }))
      if (entry.isDirectory() && entry.name !== 'node_modules') visit(`${folder}/${entry.name}`);
  };
  for (const root of roots) if (existsSync(join(baseDir, root))) visit(root);
  return found;
}

const escape = (path) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NPM_OR_NODE = { dependencyTypesNot: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'] };

/** The dependency-cruiser rule set for the tree at `baseDir`. */
function importRules(baseDir) {
  return [
    {
      name: 'lib-imports-only-lib',
      comment: 'lib/ is the runtime every other part uses: it imports nothing outside lib/ (packages aside).',
      severity: 'error',
      from: { path: '^lib/' },
      to: { pathNot: '^lib/', ...NPM_OR_NODE },
    },
    {
      name: 'local-never-imports-infra',
      comment: 'local/ reads a cloud assembly (a file format), never infra/ code; cli/ is where they meet.',
      severity: 'error',
      from: { path: '^local/' },
      to: { path: '^infra/' },
    },
    {
      name: 'infra-never-imports-local',
      comment: 'infra/ describes what ships to AWS; the local engine is not part of it.',
      severity: 'error',
      from: { path: '^infra/' },
      to: { path: '^local/' },
    },
    {
      name: 'engine-imports-config-errors-store',
      comment:
        'local/engine knows ASL, not our workflows: besides its own files it imports only lib/config, ' +
        'lib/errors and local/store (packages aside). Anything else (Lambda runner, IAM evaluator, services) is ' +
        'injected through EngineOptions.',
      severity: 'error',
      from: { path: '^local/engine/' },
      to: { pathNot: ['^local/engine/', '^lib/config/', '^lib/errors/', '^local/store/'], ...NPM_OR_NODE },
    },
    ...moduleFolders(baseDir).map((folder) => ({
      name: 'module-entered-through-index',
      comment: `${folder}/ is a module: code outside it imports ${folder}/index.ts, never its files.`,
      severity: 'error',
      from: { path: `^(${SOURCE_ROOTS.join('|')})/`, pathNot: `^${escape(folder)}/` },
      to: { path: `^${escape(folder)}/`, pathNot: `^${escape(folder)}/index\\.ts$` },
    })),
    {
      name: 'no-cycles',
      comment: 'Imports flow one way; a cycle (type-only imports included) is a layering bug.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ];
}

/** Cruise options shared by the CLI (this file) and the test (which plants violations in a temp tree). */
const options = {
  doNotFollow: { path: 'node_modules' },
  exclude: { path: ['node_modules', '\\.d\\.ts$'] },
  tsPreCompilationDeps: true,
  tsConfig: { fileName: 'tsconfig.json' },
  // Resolve packages the way Node and TypeScript do (package.json "exports", type-only entry points too).
  enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['types', 'import', 'require', 'node', 'default'] },
};

module.exports = { forbidden: importRules(__dirname), options };
Object.defineProperties(module.exports, {
  importRules: { value: importRules, enumerable: false },
  SOURCE_ROOTS: { value: SOURCE_ROOTS, enumerable: false },
});
