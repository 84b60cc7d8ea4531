/**
 * TestEngine: the durable engine alone, in the test's own process, for tests of Step Functions definitions.
 * No server, no emulated services and no port: Lambda functions are plain functions given by value, service
 * integrations are mocked (Step Functions Local's mock config), and time is a virtual clock the test moves.
 * The local cloud around the engine (the API over HTTP, DynamoDB, S3, SQS, the console) is `@autosave/local`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duration } from '@autosave/workflow/config';
import { Engine } from '../engine';
import type { LambdaInvoker } from '../lambda-invoker';
import { MockConfigBuilder, type MockTestCases } from '../mocks';
import { DEFAULT_VIRTUAL_EPOCH_MILLIS, VirtualClock } from '../virtual-clock';

/**
 * A Lambda function as a test gives it: an async function of the invocation's payload. What it returns is the
 * function's result; what it throws is a function error (`errorType` = the error's `name`), as Lambda reports it.
 */
export type TestFunction = (payload: unknown) => unknown;

/** Options of {@link TestEngine.start}. */
export interface TestEngineOptions {
  /**
   * The Lambda functions a definition invokes (`lambda:invoke`, or a function ARN as the resource), by function
   * name. A function not listed fails its invocation with Lambda's `ResourceNotFoundException`.
   * @default none
   */
  readonly functions?: Readonly<Record<string, TestFunction>>;
  /**
   * Mocked service integrations, as `mockConfig()...` or a parsed mock config: a run started with
   * {@link TestExecutionOptions.testCase} answers its mapped states from it.
   * @default none
   */
  readonly mocks?: MockTestCases | MockConfigBuilder;
  /** Where the engine keeps its data (a restart on the same directory carries on every run). @default a new temporary directory, removed by {@link TestEngine.stop} */
  readonly dataDir?: string;
  /** Where the virtual clock starts. @default 2026-01-01T00:00:00Z */
  readonly startAt?: Date;
}

/** Options of {@link TestEngine.startExecution}. */
export interface TestExecutionOptions {
  /** The run's name. @default a generated one */
  readonly name?: string;
  /** A test case of the mock config for this state machine: its mapped states answer from the mocks. @default none (nothing mocked) */
  readonly testCase?: string;
}

/** A run as DescribeExecution answers it, with its output parsed. */
export interface TestExecution {
  readonly executionArn: string;
  readonly status: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'PENDING_REDRIVE';
  /** The output, parsed; absent until the run succeeds. */
  readonly output?: unknown;
  readonly error?: string;
  readonly cause?: string;
}

/** One event of a run's history, as GetExecutionHistory answers it. */
export interface TestHistoryEvent {
  readonly id: number;
  readonly type: string;
  readonly timestamp: Date | string | number;
  readonly [details: string]: unknown;
}

const TEST_ROLE_ARN = 'arn:aws:iam::123456789012:role/autosave-test';

/** The engine with a virtual clock and functions by value, for a test to drive. Start it with {@link TestEngine.start}. */
export class TestEngine {
  private constructor(
    /** The engine itself: `handle(operation, input)` answers any Step Functions API operation. */
    readonly engine: Engine,
    /** The virtual clock: time moves only when the test moves it ({@link TestEngine.advance}). */
    readonly clock: VirtualClock,
    private readonly options: TestEngineOptions,
    private readonly dataDir: string,
    private readonly ownsDataDir: boolean,
    private readonly invocations: ReadonlyMap<string, number>,
  ) {}

  /** Starts an engine on its own data directory. */
  static async start(options: TestEngineOptions = {}): Promise<TestEngine> {
    const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'autosave-test-engine-')));
    return TestEngine.open(
      options,
      dataDir,
      options.dataDir === undefined,
      new VirtualClock(options.startAt?.getTime() ?? DEFAULT_VIRTUAL_EPOCH_MILLIS),
    );
  }

  private static async open(
    options: TestEngineOptions,
    dataDir: string,
    ownsDataDir: boolean,
    clock: VirtualClock,
  ): Promise<TestEngine> {
    const invocations = new Map<string, number>();
    const engine = new Engine({
      dataDir,
      clock,
      invokeLambda: functionInvoker(options.functions ?? {}, invocations),
      mockConfig: options.mocks instanceof MockConfigBuilder ? options.mocks.build() : options.mocks,
    });
    await engine.start();
    return new TestEngine(engine, clock, options, dataDir, ownsDataDir, invocations);
  }

  /** Creates a state machine from its definition (an object or its JSON text); answers its ARN. */
  async createStateMachine(
    name: string,
    definition: object | string,
    type: 'STANDARD' | 'EXPRESS' = 'STANDARD',
  ): Promise<string> {
    const text = typeof definition === 'string' ? definition : JSON.stringify(definition);
    const out = (await this.engine.handle('CreateStateMachine', {
      name,
      definition: text,
      roleArn: TEST_ROLE_ARN,
      type,
    })) as { stateMachineArn: string };
    return out.stateMachineArn;
  }

  /** Starts a run and answers its ARN at once; {@link TestEngine.settle} waits for what it can do without time passing. */
  async startExecution(
    stateMachineArn: string,
    input: unknown = {},
    options: TestExecutionOptions = {},
  ): Promise<string> {
    const target = options.testCase ? `${stateMachineArn}#${options.testCase}` : stateMachineArn;
    const out = (await this.engine.handle('StartExecution', {
      stateMachineArn: target,
      input: JSON.stringify(input),
      ...(options.name ? { name: options.name } : {}),
    })) as { executionArn: string };
    return out.executionArn;
  }

  /** Starts a run, lets it go as far as it can without time passing, and answers where it stands. */
  async run(stateMachineArn: string, input: unknown = {}, options: TestExecutionOptions = {}): Promise<TestExecution> {
    const executionArn = await this.startExecution(stateMachineArn, input, options);
    await this.settle();
    return this.describe(executionArn);
  }

  /** Resolves once no run can make progress without time passing (every run is closed or waits on the clock or a token). */
  settle(): Promise<void> {
    return this.engine.whenIdle();
  }

  /** Moves the virtual clock (Waits end, retries fire, timeouts strike on the way) and settles. */
  async advance(duration: Duration | number): Promise<void> {
    await this.clock.advance(duration);
    await this.settle();
  }

  /** The run as DescribeExecution answers it, its output parsed. */
  async describe(executionArn: string): Promise<TestExecution> {
    const d = (await this.engine.handle('DescribeExecution', { executionArn })) as TestExecution & { output?: string };
    return { ...d, ...(d.output !== undefined ? { output: JSON.parse(d.output) as unknown } : {}) };
  }

  /** Every event of the run's history, oldest first. */
  async history(executionArn: string): Promise<TestHistoryEvent[]> {
    const events: TestHistoryEvent[] = [];
    let nextToken: string | undefined;
    do {
      const page = (await this.engine.handle('GetExecutionHistory', {
        executionArn,
        maxResults: 1000,
        ...(nextToken ? { nextToken } : {}),
      })) as { events: TestHistoryEvent[]; nextToken?: string };
      events.push(...page.events);
      nextToken = page.nextToken;
    } while (nextToken);
    return events;
  }

  /** How many times the function `name` has been invoked since this engine started. */
  invocationsOf(name: string): number {
    return this.invocations.get(name) ?? 0;
  }

  /**
   * Stops this engine and starts another on the same data directory, its clock where this one's stands, with the
   * same functions unless others are given (a new deploy of your code): every run carries on where it stopped.
   */
  async restart(functions: Readonly<Record<string, TestFunction>> = this.options.functions ?? {}): Promise<TestEngine> {
    await this.engine.stop();
    return TestEngine.open(
      { ...this.options, functions },
      this.dataDir,
      this.ownsDataDir,
      new VirtualClock(this.clock.now()),
    );
  }

  /** Stops the engine, and removes its data directory if it made it. */
  async stop(): Promise<void> {
    await this.engine.stop();
    if (this.ownsDataDir) await rm(this.dataDir, { recursive: true, force: true });
  }
}

/** Lambda's Invoke over the functions a test gave, counting each function's invocations. */
function functionInvoker(
  functions: Readonly<Record<string, TestFunction>>,
  invocations: Map<string, number>,
): LambdaInvoker {
  return async ({ functionName, payload }) => {
    const fn = functions[functionName];
    if (!fn)
      throw Object.assign(new Error(`Function not found: ${functionName}`), { name: 'ResourceNotFoundException' });
    invocations.set(functionName, (invocations.get(functionName) ?? 0) + 1);
    try {
      return { payload: (await fn(payload)) ?? null, executedVersion: '$LATEST' };
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      return {
        payload: { errorType: e.name, errorMessage: e.message },
        functionError: 'Unhandled',
        executedVersion: '$LATEST',
      };
    }
  };
}
