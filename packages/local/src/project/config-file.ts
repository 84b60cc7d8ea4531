import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AutosaveError } from '@autosave/workflow/errors';
import { functions as runtimeFunctions, localFunctionName } from '@autosave/runtime/handlers';
import { importModule, loadUserFunctionTable, moduleDefault } from '../services/lambda/user-functions';
import type { AutosaveConfig } from './config';
import { configKeysProblem, functionsTableProblem } from './config-shape';
import type { Workflow } from '@autosave/workflow';
import type { UserFunctionExport } from '../services/lambda/user-functions';

/** The names a config file may have, in the order they are looked for in each directory. */
export const CONFIG_FILE_NAMES = [
  'autosave.config.ts',
  'autosave.config.mts',
  'autosave.config.cts',
  'autosave.config.js',
  'autosave.config.mjs',
  'autosave.config.cjs',
] as const;

/** A config file that could not be used: it names the file and what is wrong with it. */
export class AutosaveConfigError extends AutosaveError {
  override readonly name = 'AutosaveConfigError';
}

/** The project as the local engine runs it: a config file resolved (paths made absolute, names as invoked). */
export interface LocalProject {
  /** The config file (absolute). */
  readonly configFile: string;
  readonly workflows: readonly Workflow[];
  /** Handlers by the function name they are invoked under (`tool-step` is `autosave-tool-step`). */
  readonly functions: Readonly<Record<string, UserFunctionExport>>;
  /** Environment variables of the functions (the config's own, and `AUTOSAVE_MODEL_SCRIPT` from `model.script`). */
  readonly environment: Readonly<Record<string, string>>;
}

/** The first config file in `from` or one of its parents, or undefined. */
export function findConfigFile(from: string): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    for (const name of CONFIG_FILE_NAMES) {
      const file = join(dir, name);
      if (existsSync(file) && statSync(file).isFile()) return file;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** The name a table key is invoked under: a runtime function's own name gets its `autosave-` prefix. */
export function invokedName(key: string): string {
  return runtimeFunctions.some((f) => f.name === key) ? localFunctionName(key) : key;
}

/** Resolves a config given by value; relative paths are taken from `baseDir` (the config file's directory). */
export async function resolveConfig(config: AutosaveConfig, configFile: string): Promise<LocalProject> {
  const baseDir = dirname(configFile);
  const problem = (what: string) => new AutosaveConfigError(`${configFile}: ${what}`);
  if (!config || typeof config !== 'object')
    throw problem('the default export must be defineConfig({ workflows: [...] })');
  if (!Array.isArray(config.workflows))
    throw problem('`workflows` must be an array of workflows (defineWorkflow(...))');
  config.workflows.forEach((w, i) => {
    if (!w || typeof w.name !== 'string' || !Array.isArray(w.steps))
      throw problem(`workflows[${i}] is not a workflow (defineWorkflow(...))`);
  });
  const seen = new Set<string>();
  for (const w of config.workflows) {
    if (seen.has(w.name)) throw problem(`two workflows are named '${w.name}'`);
    seen.add(w.name);
  }
  const keysProblem = configKeysProblem(config, baseDir);
  if (keysProblem) throw problem(keysProblem);
  const table =
    typeof config.functions === 'string'
      ? await loadFunctionsModule(
          isAbsolute(config.functions) ? config.functions : join(baseDir, config.functions),
          problem,
        )
      : (config.functions ?? {});
  const functions = Object.fromEntries(
    Object.entries(table).map(([key, fn]) => [invokedName(key), fn as UserFunctionExport]),
  );
  const environment: Record<string, string> = { ...config.environment };
  if (config.model?.script !== undefined) environment.AUTOSAVE_MODEL_SCRIPT = resolve(baseDir, config.model.script);
  return { configFile, workflows: config.workflows, functions, environment };
}

/** The `functions` module a config names, its table checked like the config's own. */
async function loadFunctionsModule(
  file: string,
  problem: (what: string) => AutosaveConfigError,
): Promise<Record<string, unknown>> {
  let table: Record<string, unknown>;
  try {
    table = await loadUserFunctionTable(file);
  } catch (err) {
    throw problem(`\`functions\` names ${file}, which could not be loaded: ${(err as Error).message}`);
  }
  const tableProblem = functionsTableProblem(table, 'functions');
  if (tableProblem) throw problem(`${tableProblem} (in ${file})`);
  return table;
}

/**
 * How long a config file (and the functions module it names) may take to load: a top-level `await` that
 * never settles would otherwise hang the CLI with no output. Loading TypeScript on a busy machine takes a
 * few seconds at most.
 */
export const CONFIG_LOAD_TIMEOUT_MILLIS = 30_000;

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /** How long loading may take before it fails naming the file. @default CONFIG_LOAD_TIMEOUT_MILLIS (30 s) */
  readonly timeoutMillis?: number;
}

/** Loads and resolves a config file (TypeScript or JavaScript, in a CommonJS or an ESM project). */
export async function loadConfig(configFile: string, options: LoadConfigOptions = {}): Promise<LocalProject> {
  const file = resolve(configFile);
  if (!existsSync(file)) throw new AutosaveConfigError(`${file}: no such config file`);
  const timeoutMillis = options.timeoutMillis ?? CONFIG_LOAD_TIMEOUT_MILLIS;
  let timer: NodeJS.Timeout | undefined;
  // The timer is kept referenced: a pending import holds no handle, so without it Node could exit silently.
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new AutosaveConfigError(
            `${file} did not finish loading in ${timeoutMillis / 1000} s: does a top-level await in it (or in a module it imports) never settle?`,
          ),
        ),
      timeoutMillis,
    );
  });
  try {
    return await Promise.race([load(file), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

async function load(file: string): Promise<LocalProject> {
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(pathToFileURL(file).href);
  } catch (err) {
    throw new AutosaveConfigError(`${file} could not be loaded: ${(err as Error).message}`, { cause: err });
  }
  return resolveConfig(moduleDefault(mod) as AutosaveConfig, file);
}

/**
 * The project the CLI runs: the config file named (`--config`), else the first one found walking up from
 * `cwd`; undefined when there is none and none was named.
 */
export async function findProject(
  options: { readonly configFile?: string; readonly cwd?: string } = {},
): Promise<LocalProject | undefined> {
  const file = options.configFile ?? findConfigFile(options.cwd ?? process.cwd());
  return file === undefined ? undefined : loadConfig(file);
}

/** What startLocal takes from a project: its workflows, its handlers, their environment, and the console's label. */
export function projectOptions(project: LocalProject): {
  readonly workflows: readonly Workflow[];
  readonly functions: Readonly<Record<string, UserFunctionExport>>;
  readonly environment: Readonly<Record<string, string>>;
  readonly label: string;
} {
  return {
    workflows: project.workflows,
    functions: project.functions,
    environment: project.environment,
    label: `config ${project.configFile}`,
  };
}
