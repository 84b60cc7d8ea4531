import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Engine, type EngineOptions, type LambdaInvoker, VirtualClock } from '../../src';

/**
 * A test Lambda: a plain async function of the payload. Throwing makes a function error. A function that
 * never returns on purpose calls `releaseClock()` first, so the virtual clock can move on without it.
 */
export type TestFunction = (
  payload: any,
  request: { qualifier?: string; releaseClock: () => void },
) => unknown | Promise<unknown>;

/**
 * What a test function returns to stand for a Lambda still running when the engine dies (or one that
 * waits on the outside world): it lets the virtual clock go and never returns.
 */
export function neverReturns<T = never>(releaseClock: () => void): Promise<T> {
  releaseClock();
  return new Promise<T>(() => undefined);
}

/** A LambdaInvoker over plain functions, counting calls per function name. */
export function testInvoker(functions: Record<string, TestFunction>, calls: Map<string, number>): LambdaInvoker {
  return async ({ functionName, qualifier, payload, releaseClock }) => {
    const fn = functions[functionName];
    if (!fn)
      throw Object.assign(new Error(`Function not found: ${functionName}`), { name: 'ResourceNotFoundException' });
    calls.set(functionName, (calls.get(functionName) ?? 0) + 1);
    try {
      return {
        payload: (await fn(payload, { qualifier, releaseClock: releaseClock ?? (() => undefined) })) ?? null,
        executedVersion: '$LATEST',
      };
    } catch (err) {
      const e = err as Error;
      return {
        payload: { errorType: e.name, errorMessage: e.message },
        functionError: 'Unhandled',
        executedVersion: '$LATEST',
      };
    }
  };
}

/** An error class with a literal name, as Lambda handlers throw them. */
export function namedError(name: string, message = name): Error {
  return Object.assign(new Error(message), { name });
}

/** The engine options of a test that reads the database file while the engine runs (see `StoreLocking`). */
export const SHARED_STORE = { storeLocking: 'shared' } as const;

/** A started engine on a temp data dir with a virtual clock, and helpers to drive it. */
export class EngineHarness {
  readonly calls = new Map<string, number>();
  readonly clock: VirtualClock;
  engine!: Engine;
  dataDir!: string;

  constructor(
    readonly functions: Record<string, TestFunction> = {},
    private readonly extra: Partial<EngineOptions> = {},
  ) {
    this.clock = (extra.clock as VirtualClock | undefined) ?? new VirtualClock();
  }

  async start(dataDir?: string): Promise<this> {
    this.dataDir = dataDir ?? (await mkdtemp(join(tmpdir(), 'autosave-engine-')));
    this.engine = new Engine({
      dataDir: this.dataDir,
      clock: this.clock,
      invokeLambda: testInvoker(this.functions, this.calls),
      ...this.extra,
    });
    await this.engine.start();
    return this;
  }

  /**
   * A second engine on the same data dir (the first is dropped or stopped by the caller), on a fresh
   * virtual clock at `atMillis` (default: where this one's clock stands) — the wall clock of the restart.
   */
  async restart(
    functions: Record<string, TestFunction> = this.functions,
    atMillis = this.clock.now(),
  ): Promise<EngineHarness> {
    const next = new EngineHarness(functions, { ...this.extra, clock: new VirtualClock(atMillis) });
    await next.start(this.dataDir);
    return next;
  }

  async close(): Promise<void> {
    await this.engine.stop();
    await rm(this.dataDir, { recursive: true, force: true });
  }

  call(op: string, input: object): Promise<any> {
    return this.engine.handle(op, input) as Promise<any>;
  }

  count(fn: string): number {
    return this.calls.get(fn) ?? 0;
  }

  /** Creates a state machine (name unique per call unless given). */
  async machine(definition: object, name = `m${Math.floor(Math.random() * 1e9)}`, extra: object = {}): Promise<string> {
    const out = await this.call('CreateStateMachine', {
      name,
      definition: JSON.stringify(definition),
      roleArn: 'arn:aws:iam::123456789012:role/test',
      ...extra,
    });
    return out.stateMachineArn as string;
  }

  /** Starts an execution and waits until the engine is idle. */
  async run(stateMachineArn: string, input: unknown = {}, name?: string): Promise<string> {
    const out = await this.call('StartExecution', {
      stateMachineArn,
      input: JSON.stringify(input),
      ...(name ? { name } : {}),
    });
    await this.engine.whenIdle();
    return out.executionArn as string;
  }

  describe(executionArn: string): Promise<any> {
    return this.call('DescribeExecution', { executionArn });
  }

  async history(executionArn: string): Promise<any[]> {
    const out = await this.call('GetExecutionHistory', { executionArn, maxResults: 1000 });
    return out.events;
  }

  async eventTypes(executionArn: string): Promise<string[]> {
    return (await this.history(executionArn)).map((e) => e.type);
  }

  async output(executionArn: string): Promise<unknown> {
    const d = await this.describe(executionArn);
    return d.output === undefined ? undefined : JSON.parse(d.output);
  }

  /** The task token the first open `.waitForTaskToken` of a run carries (from the invoked payload). */
  async idle(): Promise<void> {
    await this.engine.whenIdle();
  }
}

/** A JSONata machine from states (StartAt = first key). */
export function jsonata(states: Record<string, object>, extra: object = {}): object {
  return { QueryLanguage: 'JSONata', StartAt: Object.keys(states)[0], States: states, ...extra };
}

/** A JSONPath machine from states (StartAt = first key). */
export function jsonpath(states: Record<string, object>, extra: object = {}): object {
  return { StartAt: Object.keys(states)[0], States: states, ...extra };
}

/** The lambda:invoke Task of a function, taking `$states.result.Payload`. */
export function invokeTask(fn: string, rest: object = {}): object {
  return {
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke',
    Arguments: { FunctionName: `arn:aws:lambda:us-east-1:123456789012:function:${fn}`, Payload: '{% $states.input %}' },
    Output: '{% $states.result.Payload %}',
    ...rest,
  };
}

/** An {@link EngineHarness} started before a test file's tests and closed after them. */
export function engineForTestFile(
  functions: Record<string, TestFunction> = {},
  extra: Partial<EngineOptions> = {},
): EngineHarness {
  const h = new EngineHarness(functions, extra);
  beforeAll(async () => {
    await h.start();
  });
  afterAll(async () => {
    await h.close();
  });
  return h;
}
