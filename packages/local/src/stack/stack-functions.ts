import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BundleWorker } from '../services/lambda/bundle-worker';
import type { FunctionSource, ResolvedFunctionVersion } from '../services/lambda/lambda-runner';
import type { LambdaCodeRow, StackStore } from '@autosave/engine/store';

/** Where the stack mode keeps each bundle it deployed, by asset hash: `<data>/lambda-code/<hash>/`. */
export const LAMBDA_CODE_DIR = 'lambda-code';

/** Stands for the engine's URL in recorded values (queue URLs, the Function URL): the port may change between boots. */
export const ENGINE_URL_TOKEN = '{{autosave:engine-url}}';

/** A function's configuration as Lambda keeps it per version (what `GetFunctionConfiguration` shows). */
export interface StackFunctionConfig {
  readonly handler: string;
  readonly runtime: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  /** The template's `Environment.Variables`, resolved to local values (may hold {@link ENGINE_URL_TOKEN}). */
  readonly environment: Readonly<Record<string, string>>;
  readonly roleArn?: string;
  readonly description?: string;
}

/** Options of {@link StackFunctions}. */
export interface StackFunctionsOptions {
  readonly store: StackStore;
  /** The data directory (bundles are kept under {@link LAMBDA_CODE_DIR}). */
  readonly dataDir: string;
  /**
   * A sandbox's whole environment from its function's own variables (resolved from the template): the
   * local endpoints, credentials and region added, AWS-only providers replaced by their local stand-ins.
   */
  readonly sandboxEnvironment: (functionVariables: Readonly<Record<string, string>>) => Record<string, string>;
  /** The engine's URL now (replaces {@link ENGINE_URL_TOKEN}). */
  readonly engineUrl: () => string;
}

const hashOf = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** Replaces {@link ENGINE_URL_TOKEN} in every string of a JSON value. */
export function withEngineUrl<T>(value: T, engineUrl: string): T {
  return JSON.parse(JSON.stringify(value).split(ENGINE_URL_TOKEN).join(engineUrl)) as T;
}

/**
 * The stack's Lambda functions as the local Lambda service holds them: `$LATEST` and immutable published
 * versions, each with **its own bundle** (the asset esbuild wrote for it, copied into the data directory
 * when it was deployed, so a later synth cannot change it) and its own configuration. Each version runs
 * in a sandbox of its own (a worker thread with the version's environment).
 */
export class StackFunctions implements FunctionSource {
  private readonly workers = new Map<string, BundleWorker>();

  constructor(private readonly options: StackFunctionsOptions) {}

  /** Copies a bundle into the data directory under its asset hash (atomically; a second copy is a no-op). */
  keepCode(assetHash: string, assetDirectory: string): void {
    const dir = this.codeDirectory(assetHash);
    if (existsSync(dir)) return;
    mkdirSync(join(this.options.dataDir, LAMBDA_CODE_DIR), { recursive: true });
    const tmp = `${dir}.${process.pid}.tmp`;
    rmSync(tmp, { recursive: true, force: true });
    cpSync(assetDirectory, tmp, { recursive: true, dereference: true, filter: (src) => !src.endsWith('.map') });
    renameSync(tmp, dir);
  }

  codeDirectory(assetHash: string): string {
    return join(this.options.dataDir, LAMBDA_CODE_DIR, assetHash);
  }

  has(name: string): boolean {
    return this.options.store.lambdaFunction(name) !== undefined;
  }

  names(): string[] {
    return this.options.store.lambdaFunctions().map((f) => f.name);
  }

  find(name: string, qualifier?: string): ResolvedFunctionVersion | undefined {
    const store = this.options.store;
    let row: LambdaCodeRow | undefined;
    let executedVersion: string;
    if (qualifier === undefined || qualifier === '$LATEST') {
      row = store.lambdaFunction(name);
      executedVersion = '$LATEST';
    } else if (/^\d+$/.test(qualifier)) {
      row = store.lambdaVersion(name, Number(qualifier));
      executedVersion = qualifier;
    } else {
      return undefined; // Lambda aliases are not in the stacks this mode runs.
    }
    if (!row) return undefined;
    const config = JSON.parse(row.config) as StackFunctionConfig;
    const cacheKey = `${name}:${executedVersion}:${row.code_sha}:${hashOf(row.config)}`;
    const worker = this.worker(cacheKey, name, executedVersion, row.code_sha, config);
    return {
      executedVersion,
      cacheKey,
      fn: {
        name,
        load: () => worker.handler,
        init: worker.init,
        timeoutSeconds: config.timeoutSeconds,
        memoryMb: config.memoryMb,
      },
    };
  }

  private worker(
    key: string,
    name: string,
    version: string,
    codeSha: string,
    config: StackFunctionConfig,
  ): BundleWorker {
    let worker = this.workers.get(key);
    if (!worker) {
      const codeDirectory = this.codeDirectory(codeSha);
      worker = new BundleWorker({
        codeDirectory,
        handler: config.handler,
        memoryMb: config.memoryMb,
        environment: {
          ...this.options.sandboxEnvironment(withEngineUrl(config.environment, this.options.engineUrl())),
          // What Lambda's runtime sets in every sandbox.
          AWS_LAMBDA_FUNCTION_NAME: name,
          AWS_LAMBDA_FUNCTION_VERSION: version,
          AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(config.memoryMb),
          LAMBDA_TASK_ROOT: codeDirectory,
        },
      });
      this.workers.set(key, worker);
    }
    return worker;
  }

  /** Ends every sandbox. */
  async stop(): Promise<void> {
    const workers = [...this.workers.values()];
    this.workers.clear();
    await Promise.all(workers.map((w) => w.stop()));
  }
}
