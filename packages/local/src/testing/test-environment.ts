/**
 * AutosaveTestEnvironment: the local engine started in the test's own process with the user's workflows
 * and handlers, a virtual clock, and the few verbs a workflow test needs — start a run, decide its
 * approval, move time, restart the engine as a crash would, read what happened (history, outbox,
 * attempts), and run one state alone with TestState. It never writes `process.env`: the functions get their environment in a scope of their own.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeExecutionCommand,
  RedriveExecutionCommand,
  SFNClient,
  StartExecutionCommand,
  type DescribeExecutionCommandOutput,
  type ExecutionStatus,
  type HistoryEvent,
} from '@aws-sdk/client-sfn';
import { LOCAL_CREDENTIALS, LOCAL_REGION, type Duration } from '@autosave/workflow/config';
import { AutosaveError } from '@autosave/workflow/errors';
import { OutboxEmailProvider, type OutboxEmail } from '@autosave/runtime/tools';
import type { ModelScript } from '@autosave/runtime/models';
import type { Workflow } from '@autosave/workflow';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  analyzeHistory,
  getFullHistory,
  pendingApprovals,
  pullRun,
  submitApprovalDecision,
  type PendingApproval,
  type PulledRun,
} from '../operations';
import { invokedName, type AutosaveFunctions } from '../project';
import {
  callTestState,
  MockConfigBuilder,
  type MockTestCases,
  type TestStateOptions,
  type TestStateResult,
} from '@autosave/engine';
import { localDefinition, LOCAL_STATE_MACHINE_ROLE_ARN } from '../services/deploy-workflows';
import { startLocal, type LocalEngine } from '../server';
import { waitForRunToClose } from '../api/wait-for-run';

/** How long {@link AutosaveTestEnvironment.waitFor} waits before it fails. @default 30 s */
export const DEFAULT_WAIT_TIMEOUT_MILLIS = 30_000;
/** How often it looks (the API has no event to await). */
const POLL_MILLIS = 20;

/** Options of {@link AutosaveTestEnvironment.start}: what an `autosave.config.ts` holds, by value. */
export interface AutosaveTestEnvironmentOptions {
  /** The workflows to deploy, each behind its `live` alias. */
  readonly workflows: readonly Workflow[];
  /** Your handlers by function name (`tool-step`, `model-step`, or a function of your own). @default the built-in handlers */
  readonly functions?: AutosaveFunctions;
  /** The scripted model of the built-in model-step: the script itself, or the absolute path of its JSON file. @default none */
  readonly model?: { readonly script?: ModelScript | string };
  /** More environment variables for the functions (never written to `process.env`). @default none */
  readonly environment?: Readonly<Record<string, string>>;
  /** Where the engine keeps its data. @default a new temporary directory, removed by {@link AutosaveTestEnvironment.stop} */
  readonly dataDir?: string;
  /**
   * Mocked service integrations (Step Functions Local's mock config), as `mockConfig()...` or a parsed
   * `MockConfig`: a run started with `startRun(..., { testCase })` answers its mapped states from it.
   * The state machine names are the workflow names. @default none
   */
  readonly mocks?: MockTestCases | MockConfigBuilder;
}

/** A run started by {@link AutosaveTestEnvironment.startRun}. */
export interface TestRun {
  readonly executionArn: string;
  /** The run's name (unique per workflow). */
  readonly name: string;
  readonly workflow: string;
}

/** What {@link AutosaveTestEnvironment.waitFor} waits for: a run status, or `WAITING_FOR_APPROVAL` (an approval step issued its link). */
export type TestRunCondition = ExecutionStatus | 'WAITING_FOR_APPROVAL';

/** A decision on an approval, as the approval page posts it. */
export interface TestDecisionOptions {
  /** @default `test` */
  readonly by?: string;
  readonly comment?: string;
}

/**
 * What {@link AutosaveTestEnvironment.testState} runs: `TestStateCommand`'s request, its JSON text fields
 * (`input`, `variables`, `context`, the mocked result, `mapItemReaderData`) given as values, the mock as a
 * result or an error, and `stateConfiguration`'s fields (`retrierRetryCount`, `errorCausedByState`,
 * `mapIterationFailureCount`, `mapItemReaderData`) and the mock's `fieldValidationMode` at the top level.
 */
export interface TestStateRequest extends TestStateOptions {
  /**
   * The state to test: one state (`{ Type: 'Pass', ... }`), a whole state machine (name the state in
   * `stateName`), as an object or as JSON text; or one of your workflows, whose definition is then the one the
   * engine runs (its function ARNs filled in) and whose un-mocked Tasks run with the engine's own role.
   */
  readonly definition: Workflow | object | string;
}

/** A `defineWorkflow` value, rather than ASL (which has `Type` or `States`, never `steps`). */
const isWorkflow = (value: unknown): value is Workflow =>
  typeof value === 'object' && value !== null && 'steps' in value && !('States' in value) && !('Type' in value);

/** The test environment could not do what was asked (no such workflow, no approval waiting, a wait that timed out). */
export class TestEnvironmentError extends AutosaveError {
  override readonly name = 'TestEnvironmentError';
}

/** The local engine in the test's process; see the module comment. */
export class AutosaveTestEnvironment {
  private constructor(
    private local: LocalEngine,
    private readonly sfn: SFNClient,
    private readonly boot: (port: number) => Promise<LocalEngine>,
    private readonly cleanup: () => Promise<void>,
  ) {}

  /** Starts the engine with the workflows deployed; resolves once it serves requests. */
  static async start(options: AutosaveTestEnvironmentOptions): Promise<AutosaveTestEnvironment> {
    const owned = options.dataDir === undefined;
    const root = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'autosave-test-')));
    const dataDir = join(root, 'engine');
    await mkdir(dataDir, { recursive: true });
    const environment: Record<string, string> = { POWERTOOLS_METRICS_DISABLED: 'true', ...options.environment };
    const script = options.model?.script;
    if (typeof script === 'string') environment.AUTOSAVE_MODEL_SCRIPT = script;
    else if (script) {
      environment.AUTOSAVE_MODEL_SCRIPT = join(root, 'model-script.json');
      await writeFile(environment.AUTOSAVE_MODEL_SCRIPT, JSON.stringify(script));
    }
    const functions = Object.fromEntries(
      Object.entries(options.functions ?? {}).map(([key, fn]) => [invokedName(key), fn]),
    );
    const mockConfig = options.mocks instanceof MockConfigBuilder ? options.mocks.build() : options.mocks;
    const boot = (port: number) =>
      startLocal({
        workflows: options.workflows,
        functions,
        environment,
        port,
        dataDir,
        virtualClock: true,
        console: false,
        log: () => {},
        label: 'test environment',
        ...(mockConfig ? { mockConfig } : {}),
      });
    const local = await boot(0);
    const sfn = new SFNClient({
      endpoint: local.url,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 1,
    });
    return new AutosaveTestEnvironment(local, sfn, boot, async () => {
      if (owned) await rm(root, { recursive: true, force: true });
    });
  }

  /** The engine's endpoint (Step Functions and SQS API, console), for clients of your own. */
  get url(): string {
    return this.local.url;
  }

  /**
   * Starts a run through the workflow's `live` alias; with `testCase`, under that test case of the
   * environment's {@link AutosaveTestEnvironmentOptions.mocks} (`<aliasArn>#<testCase>`, as Step Functions Local takes it).
   */
  async startRun(
    workflow: Workflow | string,
    input: unknown = {},
    options: { readonly name?: string; readonly testCase?: string } = {},
  ): Promise<TestRun> {
    const name = typeof workflow === 'string' ? workflow : workflow.name;
    const deployment = this.local.deployments.find((d) => d.workflow === name);
    if (!deployment)
      throw new TestEnvironmentError(
        `no workflow '${name}' (deployed: ${this.local.deployments.map((d) => d.workflow).join(', ') || 'none'})`,
      );
    const started = await this.sfn.send(
      new StartExecutionCommand({
        stateMachineArn:
          options.testCase === undefined ? deployment.aliasArn : `${deployment.aliasArn}#${options.testCase}`,
        input: JSON.stringify(input),
        name: options.name,
      }),
    );
    const executionArn = started.executionArn!;
    return { executionArn, name: executionArn.split(':').pop()!, workflow: name };
  }

  /** The run as DescribeExecution answers. */
  describe(run: TestRun): Promise<DescribeExecutionCommandOutput> {
    return this.sfn.send(new DescribeExecutionCommand({ executionArn: run.executionArn }));
  }

  /**
   * Waits until the run has the status (or is waiting on an approval) and answers DescribeExecution then:
   * for a closed status by the engine's wait ({@link waitForRunToClose}), answered when the run closes.
   * A run that closes with another status fails the wait at once, with its error and cause.
   */
  async waitFor(
    run: TestRun,
    condition: TestRunCondition,
    options: { readonly timeoutMillis?: number } = {},
  ): Promise<DescribeExecutionCommandOutput> {
    const deadline = Date.now() + (options.timeoutMillis ?? DEFAULT_WAIT_TIMEOUT_MILLIS);
    // A closed status: the engine answers the moment the run closes (one request, no polls); then the
    // checks below describe it once. Any failure of the wait (no such run, the engine restarting) is left
    // to those checks, which say it as DescribeExecution does.
    if (condition !== 'RUNNING' && condition !== 'PENDING_REDRIVE' && condition !== 'WAITING_FOR_APPROVAL') {
      await waitForRunToClose(this.url, run.executionArn, Math.max(0, deadline - Date.now())).catch(() => undefined);
    }
    for (;;) {
      const described = await this.describe(run);
      if (
        condition === 'WAITING_FOR_APPROVAL' ? (await this.approvals(run)).length > 0 : described.status === condition
      )
        return described;
      if (described.status !== 'RUNNING' && described.status !== 'PENDING_REDRIVE') {
        throw new TestEnvironmentError(
          `${run.name} is ${described.status}, not ${condition}${described.error ? `: ${described.error}` : ''}${described.cause ? ` (${described.cause})` : ''}`,
        );
      }
      if (Date.now() > deadline)
        throw new TestEnvironmentError(
          `${run.name} is still ${described.status}, not ${condition}, after ${options.timeoutMillis ?? DEFAULT_WAIT_TIMEOUT_MILLIS} ms`,
        );
      await new Promise((resolve) => setTimeout(resolve, POLL_MILLIS));
    }
  }

  /** The approvals the run is waiting on now, with their signed links. */
  async approvals(run: TestRun): Promise<PendingApproval[]> {
    return pendingApprovals(analyzeHistory(await this.history(run)));
  }

  /** Approves the run's waiting approval (the one at `step`, when several wait) through its signed link, as the approval page does. */
  approve(run: TestRun, step?: string, options: TestDecisionOptions = {}): Promise<void> {
    return this.decide(run, true, step, options);
  }

  /** Rejects it, as {@link approve} approves. */
  reject(run: TestRun, step?: string, options: TestDecisionOptions = {}): Promise<void> {
    return this.decide(run, false, step, options);
  }

  private async decide(
    run: TestRun,
    approve: boolean,
    step: string | undefined,
    options: TestDecisionOptions,
  ): Promise<void> {
    const waiting = (await this.approvals(run)).filter((a) => step === undefined || a.step === step);
    if (waiting.length !== 1 || !waiting[0].url) {
      throw new TestEnvironmentError(
        waiting.length === 0
          ? `${run.name} waits on no approval${step ? ` at ${step}` : ''} (waitFor(run, 'WAITING_FOR_APPROVAL') first)`
          : `${run.name} waits on ${waiting.length} approvals: name the step (${waiting.map((a) => a.step).join(', ')})`,
      );
    }
    await submitApprovalDecision(waiting[0].url, { approve, by: options.by ?? 'test', comment: options.comment });
  }

  /** Moves the virtual clock forward; resolves once every timer due by then (waits, timeouts, retries) has fired. */
  async advanceTime(duration: Duration): Promise<void> {
    await this.local.clock!.advance(duration);
  }

  /**
   * Restarts the engine on the same data, port and clock, as after a crash: runs in flight stay on disk,
   * Task attempts cut off are invoked again, idempotency leases of the stopped process are ended at start.
   */
  async restart(): Promise<void> {
    const port = this.local.port;
    await this.local.stop();
    this.local = await this.boot(port);
  }

  /**
   * Pulls a closed run from where it ran (`client`: an SFNClient for AWS, or any Step Functions endpoint)
   * into this engine, as `autosave pull` does: same state machine name (its definition as the run used it),
   * same run name, input and history, FAILED (or TIMED_OUT, ABORTED) where it stopped. `s3`, when given,
   * is the source's S3: the payloads the run names by `s3://` reference are copied into the local S3.
   * Then {@link redrive} resumes it with your current handlers: a regression test pins a real failure.
   *
   * ```ts
   * const run = await env.pull('arn:aws:states:eu-west-1:111122223333:execution:research-agent:run-42', { client: new SFNClient({ region: 'eu-west-1' }) });
   * await env.redrive(run);
   * await env.waitFor(run, 'SUCCEEDED');
   * ```
   */
  async pull(
    executionArn: string,
    options: { readonly client: SFNClient; readonly s3?: S3Client },
  ): Promise<TestRun & { readonly pulled: PulledRun }> {
    const pulled = await pullRun(
      options.client,
      this.local.url,
      executionArn,
      options.s3 ? { payloads: options.s3 } : {},
    );
    const [, , , , , , workflow, name] = pulled.executionArn.split(':');
    return { executionArn: pulled.executionArn, name, workflow, pulled };
  }

  /** RedriveExecution of a failed, timed-out or aborted run (a pulled one too): it resumes at the state it stopped in. */
  async redrive(run: TestRun): Promise<void> {
    await this.sfn.send(new RedriveExecutionCommand({ executionArn: run.executionArn }));
  }

  /** The run's whole history (every page), as GetExecutionHistory answers. */
  history(run: TestRun): Promise<HistoryEvent[]> {
    return getFullHistory(this.sfn, run.executionArn);
  }

  /** Every email the outbox email provider recorded (the built-in `send-email` tool and approval notices). */
  outbox(): Promise<OutboxEmail[]> {
    return new OutboxEmailProvider(this.local.environment.AUTOSAVE_OUTBOX_DIR!).list();
  }

  /** How many times the step's work was invoked in this run (retries and re-invocations after a restart included). */
  async attempts(run: TestRun, step: string): Promise<number> {
    return analyzeHistory(await this.history(run))
      .entries.filter((e) => e.name === step)
      .reduce((n, e) => n + e.attempts, 0);
  }

  /**
   * Runs one state alone with TestState, as `TestStateCommand` does against Step Functions: a mocked result or
   * error stands in for a Task's, Map's or Parallel's work (an un-mocked Task makes its call: your functions
   * run), Retry and Catch decide the status. Resolves with the answer, its JSON fields as values:
   * `status` (`SUCCEEDED`, `FAILED`, `RETRIABLE`, `CAUGHT_ERROR`), `output`, `error`, `cause`, `nextState`, and
   * at `DEBUG` (the default here; the API's is `INFO`) or `TRACE` the data flow in `inspectionData`. Rejects as
   * the API does, with the service's error (`name` `ValidationException`, `InvalidDefinition`, ...).
   *
   * ```ts
   * const answer = await env.testState({ definition: hello, stateName: 'send', input, mock: { error: 'Lambda.ServiceException' } });
   * expect(answer.status).toBe('RETRIABLE');
   * ```
   */
  testState(request: TestStateRequest): Promise<TestStateResult> {
    const { definition, ...options } = request;
    if (!isWorkflow(definition)) return callTestState(this.local.engine, definition, options);
    return callTestState(this.local.engine, localDefinition(definition), {
      roleArn: LOCAL_STATE_MACHINE_ROLE_ARN,
      ...options,
    });
  }

  /** Stops the engine and removes the data directory it made. */
  async stop(): Promise<void> {
    this.sfn.destroy();
    await this.local.stop();
    await this.cleanup();
  }
}
