import { randomUUID } from 'node:crypto';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '@autosave/workflow/config';
import { AutosaveError } from '@autosave/workflow/errors';
import { setProcessRuntimeEnvironment, withRuntimeEnvironment } from '@autosave/runtime/endpoints';
import { Deadlines } from './deadlines';
import { functionArn, parseFunctionName } from './function-name';
import type { LambdaInvocation, LambdaInvocationResult, LambdaInvoker } from '@autosave/engine';

/** Lambda's own default timeout; user functions get {@link DEFAULT_USER_FUNCTION_TIMEOUT_SECONDS} instead. */
export const DEFAULT_FUNCTION_TIMEOUT_SECONDS = 3;
/** Lambda's default memory size, reported in `context.memoryLimitInMB`. */
export const DEFAULT_FUNCTION_MEMORY_MB = 128;

/** The context a handler receives: the fields of Lambda's Node.js context that handlers read. */
export interface LambdaContext {
  readonly functionName: string;
  readonly functionVersion: string;
  readonly invokedFunctionArn: string;
  readonly memoryLimitInMB: string;
  readonly awsRequestId: string;
  readonly logGroupName: string;
  readonly logStreamName: string;
  callbackWaitsForEmptyEventLoop: boolean;
  /** Milliseconds left before the function's timeout. */
  getRemainingTimeInMillis(): number;
}

/** A Lambda handler: async, or the older callback form. */
export type LambdaHandler = (
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a user's handler declares its own event type; `unknown` would refuse it
  event: any,
  context: LambdaContext,
  callback: (error?: unknown, result?: unknown) => void,
) => unknown;

/** A function the runner can invoke. */
export interface LocalFunction {
  /** The function's name as invoked (`autosave-model-step`, or a user function's name). */
  readonly name: string;
  /** Loads the handler (lazily, so handler modules read the environment set at start). */
  readonly load: () => Promise<LambdaHandler> | LambdaHandler;
  /**
   * Lambda's Init phase before an invocation (a sandbox that must start first), awaited before the
   * invocation's timeout starts. @default none (loading the handler is the whole Init)
   */
  readonly init?: () => Promise<void>;
  /** @default {@link DEFAULT_FUNCTION_TIMEOUT_SECONDS} */
  readonly timeoutSeconds?: number;
  /** @default {@link DEFAULT_FUNCTION_MEMORY_MB} */
  readonly memoryMb?: number;
}

// The seam the engine invokes functions through is the engine's own type (docs/architecture.md §5).
export type { LambdaInvocation, LambdaInvocationResult, LambdaInvoker } from '@autosave/engine';

/** No function of that name: the Lambda service's error, which the engine surfaces as `Lambda.ResourceNotFoundException`, as on AWS. */
export class LambdaFunctionNotFoundError extends AutosaveError {
  override readonly name = 'ResourceNotFoundException';
  constructor(functionName: string) {
    super(`Function not found: ${functionName}`);
  }
}

/** One version of a function, as a {@link FunctionSource} finds it. */
export interface ResolvedFunctionVersion {
  readonly fn: LocalFunction;
  /** `ExecutedVersion`: the version number, or `$LATEST`. */
  readonly executedVersion: string;
  /** Names the loaded handler (one sandbox per function version). */
  readonly cacheKey: string;
}

/** Functions that have versions of their own (the stack mode's functions, each version with its own bundle). */
export interface FunctionSource {
  /** The version `qualifier` names (a number, `$LATEST`, or none for `$LATEST`); undefined when there is none. */
  find(name: string, qualifier?: string): ResolvedFunctionVersion | undefined;
  /** Whether a function of this name exists (any version). */
  has(name: string): boolean;
  names(): string[];
}

/** Options of {@link InProcessLambdaRunner}. */
export interface InProcessLambdaRunnerOptions {
  readonly functions: readonly LocalFunction[];
  /** Versioned functions, asked for any name {@link functions} does not have. @default none */
  readonly sources?: readonly FunctionSource[];
  /** Region in `invokedFunctionArn`. @default LOCAL_REGION */
  readonly region?: string;
  /** Account in `invokedFunctionArn`. @default LOCAL_ACCOUNT_ID */
  readonly accountId?: string;
  /**
   * The environment {@link functions} run with, as a Lambda function's variables: the runtime reads it
   * (`runtimeEnvironment()`) for the invocation's duration; `process.env` is never written.
   * @default `process.env`
   */
  readonly environment?: NodeJS.ProcessEnv;
  /**
   * How {@link environment} reaches the functions. `invocation`: each invocation runs in an asynchronous scope
   * holding it, so that several engines can share a process. `process`: it becomes the process's runtime
   * environment (`setProcessRuntimeEnvironment`) while the runner is open, for a process that runs this engine
   * alone; no scope is entered, so no async hook taxes every promise of the process. Call {@link close} then.
   * @default 'invocation'
   */
  readonly environmentScope?: 'invocation' | 'process';
}

class FunctionTimeoutSignal {
  constructor(readonly seconds: number) {}
}

/** What Lambda reports for a handler that threw: the error's `name` becomes the Step Functions error. */
function errorPayload(err: unknown): { errorType: string; errorMessage: string; trace?: string[] } {
  if (err instanceof Error) {
    return { errorType: err.name || 'Error', errorMessage: err.message, trace: err.stack?.split('\n') };
  }
  return { errorType: 'Error', errorMessage: typeof err === 'string' ? err : JSON.stringify(err) };
}

/** Lambda serializes events and results as JSON: the handler never shares objects with the engine. */
const jsonCopy = (value: unknown): unknown => (value === undefined ? null : JSON.parse(JSON.stringify(value)));

/**
 * Runs Lambda handlers in this process, the way the Lambda service runs them: by function name (whatever
 * region and account an ARN names), with a Lambda-like context and the function's timeout. A handler that
 * throws or times out answers `functionError: "Unhandled"`, as Invoke does on AWS.
 */
export class InProcessLambdaRunner {
  private readonly functions = new Map<string, LocalFunction>();
  private readonly sources: readonly FunctionSource[];
  private readonly handlers = new Map<string, Promise<LambdaHandler>>();
  private readonly region: string;
  private readonly accountId: string;
  /** The environment each invocation is scoped to (none: the process's runtime environment). */
  private readonly environment: NodeJS.ProcessEnv | undefined;
  private readonly ownsProcessEnvironment: boolean;
  /** Every invocation's timeout, on one timer. */
  private readonly deadlines = new Deadlines();
  /** What the contexts of a function version share, by function and qualifier (see {@link identityOf}). */
  private readonly identities = new WeakMap<LocalFunction, Map<string, FunctionIdentity>>();

  constructor(options: InProcessLambdaRunnerOptions) {
    this.ownsProcessEnvironment = options.environmentScope === 'process' && options.environment !== undefined;
    if (this.ownsProcessEnvironment) setProcessRuntimeEnvironment(options.environment);
    else this.environment = options.environment;
    for (const fn of options.functions) this.functions.set(fn.name, fn);
    this.sources = options.sources ?? [];
    this.region = options.region ?? LOCAL_REGION;
    this.accountId = options.accountId ?? LOCAL_ACCOUNT_ID;
  }

  /** Gives the process back its own environment, when {@link InProcessLambdaRunnerOptions.environmentScope} took it. */
  close(): void {
    if (this.ownsProcessEnvironment) setProcessRuntimeEnvironment(undefined);
  }

  /** Whether a function of this name (or ARN) exists. */
  has(functionName: string): boolean {
    const { name } = parseFunctionName(functionName);
    return this.functions.has(name) || this.sources.some((s) => s.has(name));
  }

  /** The names of every function, sorted. */
  names(): string[] {
    return [...new Set([...this.functions.keys(), ...this.sources.flatMap((s) => s.names())])].sort();
  }

  /** The {@link LambdaInvoker} to hand the engine. */
  readonly invoke: LambdaInvoker = (request) =>
    this.environment
      ? withRuntimeEnvironment(this.environment, () => this.invokeHere(request))
      : this.invokeHere(request);

  private async invokeHere(request: LambdaInvocation): Promise<LambdaInvocationResult> {
    const { name, qualifier } = parseFunctionName(request.functionName, request.qualifier);
    const found = this.find(name, qualifier);
    if (!found) throw new LambdaFunctionNotFoundError(request.functionName);
    const { fn, executedVersion, cacheKey } = found;
    const timeoutSeconds = fn.timeoutSeconds ?? DEFAULT_FUNCTION_TIMEOUT_SECONDS;
    const context = new InvocationContext(this.identityOf(fn, name, qualifier, executedVersion), randomUUID());
    try {
      const handler = await this.handler(fn, cacheKey);
      await fn.init?.();
      // Set once the handler is loaded: Lambda's Init phase (module load) is not part of the invocation timeout.
      const deadline = context.startClock(timeoutSeconds);
      const event = request.payloadJson !== undefined ? JSON.parse(request.payloadJson) : jsonCopy(request.payload);
      const result = await new Promise<unknown>((resolve, reject) => {
        const answer = new HandlerAnswer(
          resolve,
          reject,
          this.deadlines.add(deadline, () => reject(new FunctionTimeoutSignal(timeoutSeconds))),
        );
        try {
          // The callbacks are inline arrows: a closure bound to a name costs a defineProperty under the
          // TypeScript loader (keepNames), and one of each is made per invocation.
          const returned = handler(event, context, (error?: unknown, value?: unknown) =>
            error ? answer.fail(error) : answer.answer(value),
          );
          // An async handler (or one returning a promise) answers through its promise; a callback handler
          // (three parameters, returning nothing) through the callback.
          if (returned !== undefined || handler.length < 3)
            Promise.resolve(returned).then(
              (value) => answer.answer(value),
              (err: unknown) => answer.fail(err),
            );
        } catch (err) {
          answer.fail(err);
        }
      });
      // The response's JSON text goes back with it: the engine reads it instead of serializing the copy again.
      const payloadJson = JSON.stringify(result ?? null);
      return { payload: JSON.parse(payloadJson), payloadJson, executedVersion };
    } catch (err) {
      if (err instanceof FunctionTimeoutSignal) {
        return {
          functionError: 'Unhandled',
          executedVersion,
          payload: {
            errorType: 'Sandbox.Timedout',
            errorMessage: `RequestId: ${context.awsRequestId} Error: Task timed out after ${err.seconds.toFixed(2)} seconds`,
          },
        };
      }
      return { functionError: 'Unhandled', executedVersion, payload: errorPayload(err) };
    }
  }

  /** The context fields of a function version that every invocation of it shares (made once per version). */
  private identityOf(
    fn: LocalFunction,
    name: string,
    qualifier: string | undefined,
    executedVersion: string,
  ): FunctionIdentity {
    let byQualifier = this.identities.get(fn);
    if (!byQualifier) this.identities.set(fn, (byQualifier = new Map()));
    const key = qualifier ?? '';
    let identity = byQualifier.get(key);
    if (!identity || identity.functionName !== name || identity.functionVersion !== executedVersion) {
      identity = {
        functionName: name,
        functionVersion: executedVersion,
        invokedFunctionArn: functionArn(name, this.region, this.accountId, qualifier),
        memoryLimitInMB: String(fn.memoryMb ?? DEFAULT_FUNCTION_MEMORY_MB),
        logGroupName: `/aws/lambda/${name}`,
      };
      byQualifier.set(key, identity);
    }
    return identity;
  }

  private find(name: string, qualifier?: string): ResolvedFunctionVersion | undefined {
    const fn = this.functions.get(name);
    if (fn)
      return { fn, executedVersion: qualifier && /^\d+$/.test(qualifier) ? qualifier : '$LATEST', cacheKey: name };
    for (const source of this.sources) {
      const found = source.find(name, qualifier);
      if (found) return found;
    }
    return undefined;
  }

  private handler(fn: LocalFunction, cacheKey: string): Promise<LambdaHandler> {
    let loaded = this.handlers.get(cacheKey);
    if (!loaded) {
      loaded = Promise.resolve(fn.load());
      // A module that failed to load is retried on the next invoke (as a new Lambda sandbox would).
      loaded.catch(() => this.handlers.delete(cacheKey));
      this.handlers.set(cacheKey, loaded);
    }
    return loaded;
  }
}

/** The context fields every invocation of one function version shares. */
interface FunctionIdentity {
  readonly functionName: string;
  readonly functionVersion: string;
  readonly invokedFunctionArn: string;
  readonly memoryLimitInMB: string;
  readonly logGroupName: string;
}

/** The context object an invocation's handler gets, as Lambda's Node.js runtime shapes it. */
class InvocationContext implements LambdaContext {
  readonly functionName: string;
  readonly functionVersion: string;
  readonly invokedFunctionArn: string;
  readonly memoryLimitInMB: string;
  readonly logGroupName: string;
  readonly logStreamName: string;
  callbackWaitsForEmptyEventLoop = true;
  /** Milliseconds left before the function's timeout: an own property, as Lambda's runtime makes it. */
  readonly getRemainingTimeInMillis: () => number;
  /** When the invocation times out (epoch ms): infinite until the handler is loaded ({@link startClock}). */
  #deadline = Number.POSITIVE_INFINITY;

  constructor(
    identity: FunctionIdentity,
    readonly awsRequestId: string,
  ) {
    this.functionName = identity.functionName;
    this.functionVersion = identity.functionVersion;
    this.invokedFunctionArn = identity.invokedFunctionArn;
    this.memoryLimitInMB = identity.memoryLimitInMB;
    this.logGroupName = identity.logGroupName;
    this.logStreamName = `local/${awsRequestId}`;
    // Assigned, not declared with a name: no defineProperty per invocation under the TypeScript loader (keepNames).
    this.getRemainingTimeInMillis = () => Math.max(0, this.#deadline - Date.now());
  }

  /** Starts the invocation's timeout now; returns its deadline (epoch ms). */
  startClock(timeoutSeconds: number): number {
    this.#deadline = Date.now() + timeoutSeconds * 1000;
    return this.#deadline;
  }
}

/** Settles an invocation once, with its handler's answer or failure, and ends its timeout. */
class HandlerAnswer {
  constructor(
    private readonly resolve: (value: unknown) => void,
    private readonly reject: (err: unknown) => void,
    private readonly ended: () => void,
  ) {}

  answer(value: unknown): void {
    this.ended();
    this.resolve(value);
  }

  fail(err: unknown): void {
    this.ended();
    this.reject(err);
  }
}
