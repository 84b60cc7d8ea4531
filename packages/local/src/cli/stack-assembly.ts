/**
 * The user's CDK app synthesized into a cloud assembly, as the CDK CLI runs it (cdk.json's `app` command),
 * cached by a hash of the sources, for `autosave local --stack` and `autosave deploy --local`.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { spawn } from 'node:child_process';

/**
 * What an assembly is synthesized from, those of them a project has (a `cdk init` app's bin/ and lib/, the
 * example app's statemachines/, infra/, tools/, lambdas/ and packages/): a change in any of these is a new assembly.
 */
export const ASSEMBLY_SOURCES = [
  'bin',
  'lib',
  'src',
  'tools',
  'lambdas',
  'workflows',
  'statemachines',
  'packages',
  'infra',
  'package-lock.json',
  'cdk.json',
  'tsconfig.json',
] as const;

/** The CDK app the current directory is in: the nearest folder with a cdk.json, walking up. */
export function findCdkApp(from: string = process.cwd()): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'cdk.json'))) return dir;
    if (dirname(dir) === dir)
      throw new Error(
        `no cdk.json in ${resolve(from)} or its parents: run this in your CDK app, or give its cloud assembly with --app <cdk.out>`,
      );
  }
}
/** A synthesis lock older than this was left by a killed process. */
export const SYNTH_LOCK_STALE_MILLIS = 5 * 60_000;
/** The environment variable that moves the assembly cache (CI caches, tests). */
export const ASSEMBLY_CACHE_ENV = 'AUTOSAVE_ASSEMBLY_CACHE';
/** Assemblies kept in the cache (the oldest go first). */
export const ASSEMBLY_CACHE_SIZE = 6;

/** Options of {@link synthesizeAssembly}. */
export interface SynthesizeOptions {
  /** The project whose CDK app is synthesized. @default {@link findCdkApp} from the current directory */
  readonly projectRoot?: string;
  /**
   * Where assemblies are cached by source hash.
   * @default `$AUTOSAVE_ASSEMBLY_CACHE`, else `<projectRoot>/node_modules/.cache/autosave-assemblies`
   */
  readonly cacheDir?: string;
  /** CDK context on top of cdk.json's (`-c key=value`). */
  readonly context?: Readonly<Record<string, string>>;
}

/** A synthesized (or cached) assembly. */
export interface SynthesizedAssembly {
  /** The cloud assembly directory. */
  readonly directory: string;
  /** sha256 (12 hex) of the sources and context it was made from. */
  readonly sourceHash: string;
  /** True when the cache had it: no synthesis ran. */
  readonly cached: boolean;
  readonly millis: number;
}

function hashTree(hash: ReturnType<typeof createHash>, root: string, path: string): void {
  const full = join(root, path);
  if (!existsSync(full)) return;
  if (statSync(full).isDirectory()) {
    for (const entry of readdirSync(full).sort()) {
      if (entry === 'node_modules' || entry.startsWith('.')) continue;
      hashTree(hash, root, join(path, entry));
    }
    return;
  }
  hash.update(relative(root, full)).update('\0').update(readFileSync(full)).update('\0');
}

/** The hash of an app's sources and context (what names its cached assembly). */
export function sourceHash(projectRoot: string, context: Readonly<Record<string, string>> = {}): string {
  const hash = createHash('sha256');
  for (const source of ASSEMBLY_SOURCES) hashTree(hash, projectRoot, source);
  hash.update(JSON.stringify(Object.entries(context).sort()));
  return hash.digest('hex').slice(0, 12);
}

function prune(cacheDir: string, keep: string): void {
  const entries = readdirSync(cacheDir)
    .filter((e) => !e.endsWith('.tmp') && !e.endsWith('.lock') && e !== keep)
    .map((e) => ({ e, t: statSync(join(cacheDir, e)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const { e } of entries.slice(ASSEMBLY_CACHE_SIZE - 1))
    rmSync(join(cacheDir, e), { recursive: true, force: true });
}

/**
 * The app's cloud assembly: from the cache when the sources are unchanged, else synthesized here —
 * the same `createAutosaveApp` that `cdk synth` runs (bundles built by esbuild), with cdk.json's context,
 * into a temporary directory renamed into the cache once complete (a cut-off synth leaves no assembly).
 */
export async function synthesizeAssembly(options: SynthesizeOptions = {}): Promise<SynthesizedAssembly> {
  const started = Date.now();
  const projectRoot = resolve(options.projectRoot ?? findCdkApp());
  const cacheDir = resolve(
    options.cacheDir ??
      process.env[ASSEMBLY_CACHE_ENV] ??
      join(projectRoot, 'node_modules', '.cache', 'autosave-assemblies'),
  );
  const hash = sourceHash(projectRoot, options.context);
  const directory = join(cacheDir, hash);
  if (existsSync(join(directory, 'manifest.json')))
    return { directory, sourceHash: hash, cached: true, millis: Date.now() - started };

  // One synthesis per source hash at a time, across processes (test files run in parallel): the others
  // wait for its assembly instead of bundling the same sources again.
  mkdirSync(cacheDir, { recursive: true });
  const lock = `${directory}.lock`;
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (existsSync(join(directory, 'manifest.json')))
        return { directory, sourceHash: hash, cached: true, millis: Date.now() - started };
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > SYNTH_LOCK_STALE_MILLIS) rmSync(lock, { force: true });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    if (existsSync(join(directory, 'manifest.json')))
      return { directory, sourceHash: hash, cached: true, millis: Date.now() - started };
    await synthesizeInto(projectRoot, directory, options.context);
  } finally {
    rmSync(lock, { force: true });
  }
  prune(cacheDir, hash);
  return { directory, sourceHash: hash, cached: false, millis: Date.now() - started };
}

/**
 * Runs the app the way the CDK CLI does: `cdk.json`'s `app` command in the project, told where to write
 * (`CDK_OUTDIR`) and its context (`CDK_CONTEXT_JSON`: cdk.json's, then the caller's), into a temporary
 * directory renamed into the cache once complete.
 */
async function synthesizeInto(
  projectRoot: string,
  directory: string,
  context: Readonly<Record<string, string>> | undefined,
): Promise<void> {
  const tmp = `${directory}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  const cdkJson = JSON.parse(readFileSync(join(projectRoot, 'cdk.json'), 'utf8')) as {
    app?: string;
    context?: Record<string, unknown>;
  };
  if (typeof cdkJson.app !== 'string' || cdkJson.app === '')
    throw new Error(`${join(projectRoot, 'cdk.json')} names no "app" command to synthesize`);
  const env = {
    ...process.env,
    CDK_OUTDIR: tmp,
    CDK_CONTEXT_JSON: JSON.stringify({ ...cdkJson.context, ...context }),
    // CloudFormation's own template validation is for `cdk synth` before AWS (seconds of CPU); the engine
    // needs none of it. cdk-nag still runs, as the app registers it.
    CDK_VALIDATION: 'false',
  };
  const output = await new Promise<string>((resolveRun, reject) => {
    const child = spawn(cdkJson.app!, { cwd: projectRoot, env, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString()));
    child.stderr.on('data', (c: Buffer) => (text += c.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0
        ? resolveRun(text)
        : reject(
            new Error(
              `synthesizing ${projectRoot} (${cdkJson.app}) failed (exit ${code ?? signal}):\n${text.slice(-2000)}`,
            ),
          ),
    );
  });
  if (!existsSync(join(tmp, 'manifest.json')))
    throw new Error(
      `${cdkJson.app} wrote no cloud assembly to CDK_OUTDIR (does the app call app.synth()?):\n${output.slice(-2000)}`,
    );
  try {
    renameSync(tmp, directory);
  } catch (err) {
    // Another process synthesized the same sources first: theirs is the same assembly.
    if (!existsSync(join(directory, 'manifest.json'))) throw err;
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The cloud assembly a command runs: the one named by `--app`, or the app synthesized now (cached by source hash). */
export async function appAssembly(
  app: string | undefined,
): Promise<{ readonly directory: string; readonly origin: string }> {
  if (app) return { directory: resolve(app), origin: 'given with --app' };
  const assembly = await synthesizeAssembly();
  return {
    directory: assembly.directory,
    origin: assembly.cached
      ? `synthesized earlier from sources ${assembly.sourceHash}`
      : `synthesized now from sources ${assembly.sourceHash} in ${assembly.millis} ms`,
  };
}
