/**
 * The house's import rules (docs/architecture.md, "Import rules"), checked by
 * test/unit/import-rules.test.ts on every `npm test` and by `npm run lint:imports`.
 *
 * A module is a folder with an index.ts; the list is read from the tree, so a new module (say
 * packages/local/src/cloud-assembly/) is held to the rules the moment it has its index.ts.
 */
const { readdirSync, existsSync } = require('node:fs');
const { join } = require('node:path');

/**
 * The source folders the rules govern (tests may reach into a module to test it): the five packages' sources,
 * the example app at the repository root, and the benchmarks.
 */
const SOURCE_ROOTS = [
  'packages/workflow/src',
  'packages/engine/src',
  'packages/runtime/src',
  'packages/cdk/src',
  'packages/local/src',
  'tools',
  'lambdas',
  'infra',
  'statemachines',
  'bench',
];

/** Every folder under `roots` (relative to `baseDir`) that has an index.ts, parents before children. */
function moduleFolders(baseDir, roots = SOURCE_ROOTS) {
  const found = [];
  const visit = (folder) => {
    // A package's src/ is entered through its package entry points (its index and subpath exports), which
    // the package rules govern; the modules inside it are held to the rule below.
    if (existsSync(join(baseDir, folder, 'index.ts')) && !/^packages\/[^/]+\/src$/.test(folder)) found.push(folder);
    for (const entry of readdirSync(join(baseDir, folder), { withFileTypes: true }))
      if (entry.isDirectory() && entry.name !== 'node_modules') visit(`${folder}/${entry.name}`);
  };
  for (const root of roots) if (existsSync(join(baseDir, root))) visit(root);
  return found;
}

const escapeRegex = (path) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The example app's source folders at the repository root: a user app of the packages. */
const EXAMPLE_APP = ['statemachines', 'infra', 'tools', 'lambdas'];
/**
 * The internals the benchmarks may import by path: each is what a benchmark measures or drives, and no app needs it.
 */
const BENCH_SEAMS = [
  'packages/local/src/services/lambda/lambda-runner.ts',
  'packages/local/src/api/cpu-accounting.ts',
  'packages/local/src/api/wait-for-run.ts',
  'packages/local/src/cli/parent-watch.ts',
];
const NPM_OR_NODE = {
  dependencyTypesNot: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
};

/** The dependency-cruiser rule set for the tree at `baseDir`. */
function importRules(baseDir) {
  return [
    {
      name: 'workflow-imports-only-workflow',
      comment:
        '@autosave/workflow (the builder and compiler) is the bottom layer: it imports nothing outside its package (npm packages aside).',
      severity: 'error',
      from: { path: '^packages/workflow/' },
      to: { pathNot: '^packages/workflow/', ...NPM_OR_NODE },
    },
    {
      name: 'runtime-imports-workflow',
      comment: '@autosave/runtime (what runs in a Lambda) imports only itself and @autosave/workflow.',
      severity: 'error',
      from: { path: '^packages/runtime/' },
      to: { pathNot: ['^packages/runtime/', '^packages/workflow/'], ...NPM_OR_NODE },
    },
    {
      name: 'cdk-never-imports-local',
      comment: '@autosave/cdk describes what ships to AWS; the local engine and cloud are not part of it.',
      severity: 'error',
      from: { path: '^packages/cdk/' },
      to: { path: '^packages/(local|engine)/' },
    },
    {
      name: 'local-never-imports-cdk',
      comment:
        'The engine reads a cloud assembly (a file format), never construct code; the CLI (packages/local/src/cli) is where they meet.',
      severity: 'error',
      from: { path: '^packages/(local|engine)/', pathNot: '^packages/local/src/cli/' },
      to: { path: '^packages/cdk/' },
    },
    {
      name: 'packages-import-each-other-by-name',
      comment:
        'A package imports another only by its name (@autosave/<name> or a subpath its exports map lists), never by a relative ' +
        'path into its folder: that is what an installed package can do, and the name resolves to the sources through tsconfig paths.',
      severity: 'error',
      from: { path: '^packages/([^/]+)/' },
      to: { path: '^packages/', pathNot: '^packages/$1/', dependencyTypesNot: ['aliased-tsconfig-paths'] },
    },
    {
      name: 'example-app-imports-packages-by-name',
      comment:
        'The example app (statemachines/, infra/, tools/, lambdas/) consumes the packages as a user app does: by name.',
      severity: 'error',
      from: { path: `^(${EXAMPLE_APP.join('|')})/` },
      to: { path: '^packages/', dependencyTypesNot: ['aliased-tsconfig-paths'] },
    },
    {
      name: 'bench-imports-packages-by-name',
      comment:
        'The benchmarks drive the packages as an app does, by name; they may reach only the measuring seams listed in ' +
        'BENCH_SEAMS (the in-process Lambda runner, the CPU accounting, the run waiter, the parent watch), never other internals.',
      severity: 'error',
      from: { path: '^bench/' },
      to: {
        path: '^packages/',
        pathNot: BENCH_SEAMS.map((seam) => `^${escapeRegex(seam)}$`),
        dependencyTypesNot: ['aliased-tsconfig-paths'],
      },
    },
    {
      name: 'packages-never-import-the-example-app',
      comment:
        'The packages are installed into apps that have no statemachines/ or infra/ of ours: ' +
        'the CLI finds the project through autosave.config.ts and synthesizes it through cdk.json, as for any user app.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: `^(${EXAMPLE_APP.join('|')})/` },
    },
    {
      name: 'engine-imports-config-errors-store',
      comment:
        'The engine (@autosave/engine, its store included) knows ASL, not our workflows: besides its own files it imports only ' +
        'the config and errors modules of @autosave/workflow (npm packages aside). Anything else (Lambda runner, IAM evaluator, ' +
        'services) is injected through EngineOptions.',
      severity: 'error',
      from: { path: '^packages/engine/' },
      to: {
        pathNot: ['^packages/engine/', '^packages/workflow/src/config/', '^packages/workflow/src/errors/'],
        ...NPM_OR_NODE,
      },
    },
    ...moduleFolders(baseDir).map((folder) => ({
      name: 'module-entered-through-index',
      comment: `${folder}/ is a module: code outside it imports ${folder}/index.ts, never its files.`,
      severity: 'error',
      from: { path: `^(${SOURCE_ROOTS.map(escapeRegex).join('|')})/`, pathNot: `^${escapeRegex(folder)}/` },
      to: { path: `^${escapeRegex(folder)}/`, pathNot: `^${escapeRegex(folder)}/index\\.ts$` },
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
  enhancedResolveOptions: {
    exportsFields: ['exports'],
    conditionNames: ['types', 'import', 'require', 'node', 'default'],
  },
};

module.exports = { forbidden: importRules(__dirname), options };
Object.defineProperties(module.exports, {
  importRules: { value: importRules, enumerable: false },
  SOURCE_ROOTS: { value: SOURCE_ROOTS, enumerable: false },
});
