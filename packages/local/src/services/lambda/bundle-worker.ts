import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { LambdaContext, LambdaHandler } from './lambda-runner';

/**
 * The worker's program (CommonJS, evaluated): imports the bundle once — a cold start — and answers each
 * invocation message. It runs with the function's own environment (`process.env` is the worker's copy),
 * as a Lambda sandbox does; callback-style handlers are supported as Lambda's Node.js runtime does.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
const loaded = import(pathToFileURL(workerData.file).href).then((mod) => {
  const handler = mod[workerData.exportName] ?? mod.default?.[workerData.exportName];
  if (typeof handler !== 'function') {
    const err = new Error(workerData.file + ' does not export a function "' + workerData.exportName + '"');
    err.name = 'Runtime.HandlerNotFound';
    throw err;
  }
  return handler;
});
// Init done (or failed: the invocation reports it): the sandbox may take invocations.
loaded.then(() => parentPort.postMessage({ ready: true }), () => parentPort.postMessage({ ready: true }));
parentPort.on('message', async ({ id, event, context }) => {
  try {
    const handler = await loaded;
    const ctx = { ...context, getRemainingTimeInMillis: () => Math.max(0, context.deadlineMillis - Date.now()) };
    const result = await new Promise((resolve, reject) => {
      const returned = handler(event, ctx, (error, value) => (error ? reject(error) : resolve(value)));
      if (returned !== undefined || handler.length < 3) Promise.resolve(returned).then(resolve, reject);
    });
    parentPort.postMessage({ id, ok: true, result: result === undefined ? null : JSON.stringify(result) });
  } catch (error) {
    const e = error instanceof Error ? error : new Error(typeof error === 'string' ? error : JSON.stringify(error));
    parentPort.postMessage({ id, ok: false, error: { name: e.name, message: e.message, stack: e.stack } });
  }
});
`;

/** Options of {@link BundleWorker}. */
export interface BundleWorkerOptions {
  /** The bundle's directory (the asset folder esbuild wrote: `index.mjs`). */
  readonly codeDirectory: string;
  /** Lambda's `Handler` setting: `<module>.<export>`, e.g. `index.handler`. */
  readonly handler: string;
  /** The function's environment variables: the worker's whole `process.env`. */
  readonly environment: Readonly<Record<string, string>>;
  /** `--max-old-space-size` of the worker, from the function's memory setting. */
  readonly memoryMb?: number;
  /** How long a sandbox with nothing to run stays up before it is stopped. @default {@link SANDBOX_IDLE_STOP_MILLIS} */
  readonly idleStopMillis?: number;
}

/** The Lambda `Handler` setting could not be found in the bundle. */
export class HandlerNotFoundError extends Error {
  override readonly name = 'Runtime.HandlerNotFound';
}

/** The module file Lambda's Node.js runtime loads for `<module>.<export>`: `.mjs`, then `.js`, then `.cjs`. */
export function handlerModule(codeDirectory: string, handler: string): { file: string; exportName: string } {
  const dot = handler.lastIndexOf('.');
  if (dot <= 0) throw new HandlerNotFoundError(`Bad handler "${handler}": expected <module>.<export>`);
  const base = handler.slice(0, dot);
  for (const ext of ['.mjs', '.js', '.cjs']) {
    const file = join(codeDirectory, base + ext);
    if (existsSync(file)) return { file, exportName: handler.slice(dot + 1) };
  }
  throw new HandlerNotFoundError(`Cannot find module ${base} (.mjs, .js or .cjs) in ${codeDirectory}`);
}

/**
 * The young generation of each sandbox's V8 heap, in MB (two 1 MB semi-spaces and their large-object space).
 * V8's default lets each one grow to 16 MB semi-spaces: with a worker per function version, the deploy
 * rehearsal's sandboxes held about 160 MB more at 1,000 runs in flight (peak RSS 700 -> 538 MiB). Handlers
 * run short invocations, so the extra scavenges cost nothing measurable. Only memory: nothing a handler sees.
 */
export const SANDBOX_YOUNG_GENERATION_MB = 3;

/**
 * A sandbox idle this long is stopped; the next invocation starts a fresh one (a cold start). Lambda, too,
 * shuts down execution environments that are not used for a while, so no handler may count on a warm one.
 * Here it frees the memory of versions no run calls any more: in the deploy rehearsal, the sandboxes of the
 * function versions only the starts use sat idle through the minutes of approvals.
 */
export const SANDBOX_IDLE_STOP_MILLIS = 60_000;

type Pending = { resolve: (value: unknown) => void; reject: (error: unknown) => void; deadlineMillis: number };

/**
 * How long after an invocation's timeout its sandbox is stopped. Any positive delay orders the stop after the
 * runner's own timeout timer (timers fire by due time), so the runner reports the invocation as
 * `Sandbox.Timedout`, not as the `Runtime.ExitError` the stop gives what was still pending.
 */
const SANDBOX_STOP_AFTER_TIMEOUT_MILLIS = 5;

/** One worker thread and the invocations it is running. */
interface Sandbox {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
  /** Invocations that outlived their timeout: the sandbox only finishes the others, then stops. */
  readonly timedOut: Set<number>;
  /** Settles when the worker has imported the bundle (Lambda's Init phase), or died trying. */
  readonly ready: Promise<void>;
  /** Armed while nothing runs: stops the sandbox when it fires. */
  idle?: NodeJS.Timeout;
}

/**
 * One function version's sandbox: a worker thread that imported the version's own bundle with the
 * version's own environment. Invocations are messages; the worker starts on the first one.
 *
 * Lambda stops a sandbox whose invocation outlives its timeout, so nothing that invocation was doing runs on.
 * Here one worker serves concurrent invocations, so a timed-out invocation retires its worker: new invocations
 * get a fresh one (a cold start), and the retired worker is stopped once only timed-out invocations remain.
 */
export class BundleWorker {
  private sandbox?: Sandbox;
  private readonly retired = new Set<Sandbox>();
  private nextId = 0;

  constructor(private readonly options: BundleWorkerOptions) {}

  /**
   * Lambda's Init phase for the next invocation: starts a sandbox if there is none and waits until it has
   * imported the bundle. The runner awaits it before the invocation's timeout starts, as Lambda keeps Init out.
   */
  readonly init = (): Promise<void> => this.start().ready;

  /** A {@link LambdaHandler} that runs in this worker (for the in-process runner, which times it out). */
  readonly handler: LambdaHandler = (event, context) => this.invoke(event, context);

  private invoke(event: unknown, context: LambdaContext): Promise<unknown> {
    const sandbox = this.start();
    clearTimeout(sandbox.idle);
    const id = this.nextId++;
    const { getRemainingTimeInMillis, ...plain } = context;
    const remainingMillis = getRemainingTimeInMillis();
    const deadlineMillis = Date.now() + remainingMillis;
    return new Promise((resolve, reject) => {
      const overdue = setTimeout(() => this.timedOut(sandbox, id), remainingMillis);
      overdue.unref();
      const settled = () => {
        clearTimeout(overdue);
        sandbox.pending.delete(id);
        this.stopIfOnlyTimedOut(sandbox);
        this.stopWhenIdle(sandbox);
      };
      sandbox.pending.set(id, {
        deadlineMillis,
        resolve: (value) => (settled(), resolve(value)),
        reject: (error) => (settled(), reject(error)),
      });
      sandbox.worker.postMessage({ id, event, context: { ...plain, deadlineMillis } });
    });
  }

  /** At the timeout: no new invocation goes to this sandbox. */
  private timedOut(sandbox: Sandbox, id: number): void {
    if (!sandbox.pending.has(id)) return;
    sandbox.timedOut.add(id);
    if (this.sandbox === sandbox) this.sandbox = undefined;
    this.retired.add(sandbox);
    setTimeout(() => this.stopIfOnlyTimedOut(sandbox), SANDBOX_STOP_AFTER_TIMEOUT_MILLIS).unref();
  }

  /** Arms the idle stop of the current sandbox once it has nothing to run. */
  private stopWhenIdle(sandbox: Sandbox): void {
    if (this.sandbox !== sandbox || sandbox.pending.size > 0) return;
    clearTimeout(sandbox.idle);
    sandbox.idle = setTimeout(() => {
      if (this.sandbox !== sandbox || sandbox.pending.size > 0) return;
      this.sandbox = undefined;
      void sandbox.worker.terminate();
    }, this.options.idleStopMillis ?? SANDBOX_IDLE_STOP_MILLIS);
    sandbox.idle.unref();
  }

  private stopIfOnlyTimedOut(sandbox: Sandbox): void {
    if (!this.retired.has(sandbox) || [...sandbox.pending.keys()].some((id) => !sandbox.timedOut.has(id))) return;
    this.retired.delete(sandbox);
    void sandbox.worker.terminate();
  }

  private start(): Sandbox {
    // The runner may report a timeout before this sandbox's own timer retires it (both fire at the deadline).
    const current = this.sandbox;
    const now = Date.now();
    for (const [id, waiting] of current?.pending ?? []) if (waiting.deadlineMillis <= now) this.timedOut(current!, id);
    if (this.sandbox) return this.sandbox;
    const { file, exportName } = handlerModule(this.options.codeDirectory, this.options.handler);
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, exportName },
      env: { ...this.options.environment },
      resourceLimits: {
        maxYoungGenerationSizeMb: SANDBOX_YOUNG_GENERATION_MB,
        ...(this.options.memoryMb ? { maxOldGenerationSizeMb: this.options.memoryMb } : {}),
      },
    });
    worker.unref();
    let initDone!: () => void;
    const sandbox: Sandbox = {
      worker,
      pending: new Map(),
      timedOut: new Set(),
      ready: new Promise<void>((resolve) => (initDone = resolve)),
    };
    worker.on(
      'message',
      (msg: {
        ready?: true;
        id: number;
        ok: boolean;
        result?: string | null;
        error?: { name: string; message: string; stack?: string };
      }) => {
        if (msg.ready) return initDone();
        const waiting = sandbox.pending.get(msg.id);
        if (!waiting) return;
        if (msg.ok) waiting.resolve(msg.result == null ? null : JSON.parse(msg.result));
        else
          waiting.reject(
            Object.assign(new Error(msg.error?.message), { name: msg.error?.name ?? 'Error', stack: msg.error?.stack }),
          );
      },
    );
    const fail = (error: Error) => {
      initDone();
      // The sandbox died (out of memory, process.exit, stopped): what it was running fails, the next invoke starts a new one.
      if (this.sandbox === sandbox) this.sandbox = undefined;
      this.retired.delete(sandbox);
      for (const waiting of [...sandbox.pending.values()])
        waiting.reject(Object.assign(new Error(`Runtime exited: ${error.message}`), { name: 'Runtime.ExitError' }));
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`exit code ${code}`)));
    this.sandbox = sandbox;
    return sandbox;
  }

  /** Ends the sandbox (and any retired one still finishing). */
  async stop(): Promise<void> {
    const sandboxes = [...(this.sandbox ? [this.sandbox] : []), ...this.retired];
    this.sandbox = undefined;
    this.retired.clear();
    await Promise.all(sandboxes.map((s) => s.worker.terminate()));
  }
}
