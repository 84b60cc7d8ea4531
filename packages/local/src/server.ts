/**
 * `autosave local`: the local AWS in one process — DynamoDB (dynalite) and S3 (s3rver) on their own loopback
 * ports, the engine with the Step Functions and SQS APIs, the console and the approval pages on one port —
 * and the project's workflows (autosave.config.ts, or given by value) deployed on it behind their `live`
 * aliases. Restarting on the same data directory resumes everything that was in flight. The test process's
 * environment is never written: the functions get theirs in a scope of their own (localEnvironment).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve, join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import {
  DEFAULT_LOCAL_DATA_DIR,
  DEFAULT_LOCAL_PORT,
  LOCAL_ACCOUNT_ID,
  LOCAL_REGION,
  systemClock,
  type Clock,
  LOCAL_CREDENTIALS,
} from '@autosave/workflow/config';
import { DEFAULT_DLQ_NAME } from '@autosave/runtime/endpoints';
import {
  createLocalApiHandler,
  startLocalApiServer,
  type ControllableClock,
  type HttpRequestHandler,
} from './api/server';
import { stepFunctionsService } from './api/step-functions-service';
import { CPU_ACCOUNTING_ENV, withCpuAccounting } from './api/cpu-accounting';
import {
  DEFAULT_CLOSED_STATUSES,
  Engine,
  type EngineOptions,
  type MockTestCases,
  type RunImportHeader,
  type ServicePorts,
  VirtualClock,
  type WireHistoryEvent,
} from '@autosave/engine';
import type { OtlpTracesOptions, StepFunctionsApi } from './tracing';
import type { WorkflowDeployment } from './services/deploy-workflows';
import { InProcessLambdaRunner, type LocalFunction } from './services/lambda/lambda-runner';
import {
  APPROVAL_ENDPOINT_FUNCTION,
  registryFunctions,
  RUN_MONITOR_FUNCTION,
  TOOL_STEP_FUNCTION,
} from './services/lambda/registry-functions';
import { checkWorkflowTools } from './project';
import { loadUserFunctions, userFunctions, type UserFunctionExport } from './services/lambda/user-functions';
import {
  localEnvironment,
  localEndpoints,
  writeEndpointsFile,
  type LocalEndpoints,
} from './services/local-environment';
import { lockDataDirectory } from '@autosave/engine/store';
import type { RecordedDecisions } from './services/recorded-decisions';
import { lazyClient } from './services/lazy-client';
import { LocalSqs } from './services/sqs/local-sqs';
import type { PassThroughRoute } from './services/pass-through';
import { sqsService } from './services/sqs/sqs-service';
import { loadConsoleHandler } from './api/console-mount';
import { EXPRESS_RUNS_KEPT, ExpressRunLog } from './services/express-run-log';
import type { StackMode, StackDeployment, StackIamEnforcement } from './stack';
import type { Workflow } from '@autosave/workflow';

/** The local endpoints' region and credentials, for the engine's own SDK clients. */
const LOCAL_CLIENT_CONFIG = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };

/** The line a restart prints once the Step Functions API answers, before the functions and services are up. */
export const STEP_FUNCTIONS_ANSWERING = 'Step Functions API answering on';

/** What {@link StartLocalOptions.project} gives: the project's part of the options. */
export interface LocalProjectOptions {
  readonly workflows?: readonly Workflow[];
  readonly functions?: Readonly<Record<string, UserFunctionExport>>;
  readonly environment?: Readonly<Record<string, string>>;
  readonly label?: string;
}

/** Options of {@link startLocal} (the flags of `autosave local`). */
export interface StartLocalOptions {
  /** Port of the engine (Step Functions, SQS, console, approvals); 0 picks a free one. @default DEFAULT_LOCAL_PORT */
  readonly port?: number;
  /** Where everything is kept. @default DEFAULT_LOCAL_DATA_DIR */
  readonly dataDir?: string;
  /** A clock that only moves when told (`POST /_autosave/clock/advance`). @default false */
  readonly virtualClock?: boolean;
  /** A module exporting `{ [functionName]: handler }`: more Lambda functions to run. */
  readonly functionsModule?: string;
  /** More functions, given in code (tests): `{ [functionName]: handler | { handler, timeoutSeconds } }`. */
  readonly functions?: Readonly<Record<string, UserFunctionExport>>;
  /** The workflows to deploy at start, each behind its `live` alias (the project's, from autosave.config.ts). @default none */
  readonly workflows?: readonly Workflow[];
  /**
   * The project (its workflows, functions, environment and label, in place of the options of those names),
   * loaded after the engine's store is open: after a restart the Step Functions API answers while a
   * TypeScript config still compiles. `autosave local` passes its autosave.config.ts this way.
   * @default the options themselves
   */
  readonly project?: () => Promise<LocalProjectOptions | undefined>;
  /** Deploy {@link workflows} at start. @default true */
  readonly deployWorkflows?: boolean;
  /**
   * Environment variables of the in-process functions, over the process's own (which is read, never
   * written), e.g. `AUTOSAVE_MODEL_SCRIPT`. @default none
   */
  readonly environment?: Readonly<Record<string, string>>;
  /** What the console says runs (e.g. the config file). @default `in-process functions` */
  readonly label?: string;
  /** The integrations configuration file (pass-through routes, HTTP connections). @default `<dataDir>/integrations.json` */
  readonly integrationsFile?: string;
  /** Services routed to a real endpoint, beside the file's (`--pass-through`). @default none */
  readonly passThrough?: Readonly<Record<string, PassThroughRoute>>;
  /**
   * Local targets a definition's `http:invoke` may call (`host` or `host:port`), beside the integrations
   * file's `outbound.allow` (`--allow-outbound`). @default none: loopback, link-local and private addresses,
   * and the engine's own ports, are refused
   */
  readonly allowOutbound?: readonly string[];
  /** The budget of each JSONata evaluation (`--expression-timeout`). @default DEFAULT_EXPRESSION_LIMITS */
  readonly expressionLimits?: EngineOptions['expressionLimits'];
  /** Serve the console pages. @default true */
  readonly console?: boolean;
  /** Where progress lines go. @default console.log */
  readonly log?: (line: string) => void;
  /**
   * Boot from a cloud assembly instead of the registries: the state machines, versions, aliases,
   * functions (each version with its own bundle), table, bucket, queues, rule, Function URL and secret
   * of the stack, applied as a CloudFormation deploy would. @default the registry path (statemachines/, lambdas/)
   */
  readonly stack?: {
    /** The cloud assembly directory (`cdk.out`). */
    readonly assemblyDir: string;
    /** @default the assembly's only stack */
    readonly stackName?: string;
    /** How the assembly was obtained, for the startup lines and the console (e.g. `synthesized, cached`). */
    readonly origin?: string;
    /**
     * Judge every Task call against the state machine's role, as the stack defines it, with the IAM policy
     * simulator (a devDependency): a denied call fails the Task as AWS fails it. Without the simulator
     * installed the startup lines say IAM is not enforced. @default false
     */
    readonly enforceIam?: boolean;
  };
  /**
   * The release function of a lock on `dataDir` the caller already took with {@link lockDataDirectory}
   * (`autosave local` takes it before loading the engine's modules); `stop()` releases it.
   * @default the lock is taken here
   */
  readonly dataDirLock?: () => Promise<void>;
  /**
   * A mock config file (Step Functions Local's MockConfigFile format): a start on `<stateMachineArn>#<TestCase>`
   * runs under that test case. Read at start (a file that does not load fails the start, naming the key at
   * fault) and again whenever it changes.
   * @default process.env.SFN_MOCK_CONFIG, else none
   */
  readonly mockConfigFile?: string;
  /**
   * A mock config given in code (`mockConfig()...build()`, or `MockConfig.parse`): used instead of any file.
   * @default the file of {@link mockConfigFile}
   */
  readonly mockConfig?: MockTestCases;
  /**
   * Export every run that closes as an OpenTelemetry trace to this OTLP/HTTP receiver (`autosave local` takes it
   * from `OTEL_EXPORTER_OTLP_ENDPOINT`). @default no traces
   */
  readonly traces?: OtlpTracesOptions;
}

/**
 * What exports a closed run's trace: the OpenTelemetry SDK loads only when traces are asked for. A failed export
 * is logged and dropped: a receiver that is down must not hold the run's other close hooks back.
 */
async function tracedRuns(
  options: OtlpTracesOptions,
  api: StepFunctionsApi,
  log: (line: string) => void,
): Promise<(executionArn: string) => Promise<void>> {
  const { OtlpRunExporter, exportRunTrace } = await import('./tracing');
  const exporter = new OtlpRunExporter(options);
  log(
    `  traces: every run that closes, to ${options.url}${options.captureContent ? ' (with model prompts and answers)' : ''}`,
  );
  return (executionArn) =>
    exportRunTrace(api, exporter, executionArn).catch((err: unknown) =>
      log(`autosave local: the trace of ${executionArn} was not exported: ${(err as Error).message}`),
    );
}

/** A running local engine. */
export interface LocalEngine {
  /** `http://127.0.0.1:<port>`: the endpoint for the Step Functions and SQS clients, the console and approvals. */
  readonly url: string;
  readonly port: number;
  readonly engine: Engine;
  readonly sqs: LocalSqs;
  readonly lambdas: InProcessLambdaRunner;
  readonly endpoints: LocalEndpoints;
  /** The environment the in-process functions run with (endpoints, AUTOSAVE_* paths such as the outbox). */
  readonly environment: Readonly<NodeJS.ProcessEnv>;
  /** The virtual clock, when started with one. */
  readonly clock?: ControllableClock;
  readonly deployments: readonly WorkflowDeployment[];
  /** The stack mode, when booted from a cloud assembly. */
  readonly stack?: StackMode;
  /** Whether every Task call is judged against its role (`--enforce-iam` with the simulator installed). */
  readonly iamEnforced: boolean;
  /** Stops the server, the engine and the services; runs in flight stay on disk and resume at the next start. */
  stop(): Promise<void>;
}

/** Where a virtual clock keeps its time, so a restart does not send it back to its epoch. */
export const VIRTUAL_CLOCK_FILE = 'virtual-clock.json';

/** A {@link VirtualClock} that starts where the last one stopped and records every advance. */
async function persistentVirtualClock(file: string): Promise<VirtualClock> {
  let saved: number | undefined;
  try {
    saved = (JSON.parse(await readFile(file, 'utf8')) as { epochMillis: number }).epochMillis;
  } catch {
    saved = undefined;
  }
  const clock = new VirtualClock(saved);
  const advanceTo = clock.advanceTo.bind(clock);
  clock.advanceTo = async (targetMillis: number) => {
    await advanceTo(targetMillis);
    await writeFile(file, JSON.stringify({ epochMillis: clock.now() }));
  };
  return clock;
}

/** Name of each part's files in the data directory. */
const DATA_LAYOUT = { engine: 'engine', sqs: 'sqs.sqlite', dynamodb: 'dynamodb', s3: 's3', stack: 'stack' } as const;

/** Every status a closed run can have: in stack mode the stack's own rules choose which they match. */
const ALL_CLOSED_STATUSES = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'] as const;

/**
 * A handler that answers 503 until the engine is ready (and once it stops), so the port is known before the
 * engine starts. A request put on hold meanwhile goes to the next handler bound (503 if that is none: a stop).
 */
function lateBoundHandler(): {
  handler: HttpRequestHandler;
  unavailable: HttpRequestHandler;
  hold: HttpRequestHandler;
  bind(h: HttpRequestHandler | undefined): void;
} {
  let target: HttpRequestHandler | undefined;
  let held: [IncomingMessage, ServerResponse][] = [];
  const unavailable: HttpRequestHandler = (req, res) => {
    req.resume();
    res.writeHead(503, { 'content-type': 'application/x-amz-json-1.0', 'retry-after': '1' });
    res.end(JSON.stringify({ __type: 'ServiceUnavailable', message: 'The local engine is starting or stopping' }));
  };
  return {
    handler: (req, res) => (target ? target(req, res) : unavailable(req, res)),
    unavailable,
    hold: (req, res) => void held.push([req, res]),
    bind: (h) => {
      target = h;
      const waiting = held;
      held = [];
      for (const [req, res] of waiting) void (h ?? unavailable)(req, res);
    },
  };
}

/** The stack output the stack mode's console and CLI read the dead-letter queue from. */
export const STACK_DLQ_OUTPUT = 'DeadLetterQueueUrl';

/** Test seam: `AUTOSAVE_DEPLOY_CRASH_AFTER=<n>` SIGKILLs the engine once a deploy has applied n resources. */
function deployCrashPoint(): ((applied: number) => void) | undefined {
  const n = Number(process.env.AUTOSAVE_DEPLOY_CRASH_AFTER);
  if (!Number.isInteger(n) || n <= 0) return undefined;
  return (applied) => {
    if (applied >= n) process.kill(process.pid, 'SIGKILL');
  };
}

/** What the console and the startup lines say runs: the stack and its assembly. */
function stackLabel(stack: StackMode, origin: string | undefined): string {
  const s = stack.summary();
  return s
    ? `stack ${s.stackName} · assembly ${s.assemblyId}${s.complete ? '' : ' (deploy unfinished)'}${origin ? ` · ${origin}` : ''}`
    : 'stack mode';
}

/** The stack's state machines behind their aliases, as the registry path's deployments list them. */
function stackWorkflows(stack: StackMode): WorkflowDeployment[] {
  const rows = stack.store.resources().filter((r) => r.state === 'IN_STACK');
  return rows
    .filter((r) => r.type === 'AWS::StepFunctions::StateMachineAlias')
    .map((alias) => {
      const machineArn = alias.physical_id.split(':').slice(0, 7).join(':');
      const routes = JSON.parse(alias.properties) as {
        RoutingConfiguration?: { StateMachineVersionArn: string; Weight: number }[];
        DeploymentPreference?: { StateMachineVersionArn: string };
      };
      const versionArn =
        routes.RoutingConfiguration?.[0]?.StateMachineVersionArn ??
        routes.DeploymentPreference?.StateMachineVersionArn ??
        '';
      const updated = alias.assembly_id === stack.summary()?.assemblyId;
      return {
        workflow: machineArn.split(':')[6],
        stateMachineArn: machineArn,
        versionArn,
        aliasArn: alias.physical_id,
        change: updated ? 'updated' : 'unchanged',
      } as WorkflowDeployment;
    });
}

/** What the engine reaches only once {@link startLocal} brought it up: the functions and the other local services. */
interface LocalServices {
  readonly lambdas: InProcessLambdaRunner;
  readonly sqsClient: SQSClient;
  readonly dynamodbClient: DynamoDBClient;
  readonly s3Client: S3Client;
  readonly ports: ServicePorts;
  readonly decisions?: RecordedDecisions;
  readonly stack?: StackMode;
  readonly iam?: StackIamEnforcement;
}

/**
 * True for an SQS API call (`X-Amz-Target: AmazonSQS.<Operation>`, or a form-encoded POST: the query
 * protocol): after a restart the functions run before SQS is served (while the workflows deploy), and
 * their calls (a dead letter) wait for it instead of failing on a 503.
 */
function isSqsCall(req: IncomingMessage): boolean {
  if (req.method !== 'POST') return false;
  const target = req.headers['x-amz-target'];
  return typeof target === 'string'
    ? target.startsWith('AmazonSQS.')
    : String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
}

/** Recorded decisions whose module loads at their first use. */
function loadedOnFirstUse(load: () => Promise<RecordedDecisions>): RecordedDecisions {
  let loaded: Promise<RecordedDecisions> | undefined;
  const get = () => (loaded ??= load());
  return {
    beforeTimeout: async (taskToken) => (await get()).beforeTimeout(taskToken),
    redeliverAll: async () => (await get()).redeliverAll(),
    close: () =>
      void loaded?.then(
        (d) => d.close(),
        () => undefined,
      ),
  };
}

/** Runs `use` with a DynamoDB client of its own on `endpoint`, destroyed after. */
async function withDynamoDbClient<T>(endpoint: string, use: (client: DynamoDBClient) => Promise<T>): Promise<T> {
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const client = new DynamoDBClient({ ...LOCAL_CLIENT_CONFIG, endpoint });
  try {
    return await use(client);
  } finally {
    client.destroy();
  }
}

/** True for a Step Functions API call (AWS JSON protocol, `X-Amz-Target: AWSStepFunctions.<Operation>`). */
function isStepFunctionsCall(req: IncomingMessage): boolean {
  const target = req.headers['x-amz-target'];
  return req.method === 'POST' && typeof target === 'string' && target.startsWith('AWSStepFunctions.');
}

/** Starts everything `autosave local` runs and resolves once it serves requests with the workflows deployed. */
export async function startLocal(options: StartLocalOptions = {}): Promise<LocalEngine> {
  const log = options.log ?? ((line: string) => console.log(line));
  const dataDir = resolve(options.dataDir ?? DEFAULT_LOCAL_DATA_DIR);
  await mkdir(join(dataDir, DATA_LAYOUT.engine), { recursive: true });
  const unlock = options.dataDirLock ?? (await lockDataDirectory(dataDir));
  const stops: (() => Promise<void> | void)[] = [unlock];
  // The engine and the handler binding stop before anything the engine's runs reach (functions, services).
  const stopsFirst: (() => Promise<void> | void)[] = [];
  const stopAll = async () => {
    for (const stop of [...stopsFirst.reverse(), ...stops.reverse()]) {
      try {
        await stop();
      } catch (err) {
        console.error('autosave local: error while stopping:', err);
      }
    }
    stops.length = 0;
    stopsFirst.length = 0;
  };

  // The engine comes first and reaches the functions, DynamoDB, S3 and the emulated services through
  // `services`, brought up below: after a restart the Step Functions API answers from the store before
  // any of them is loaded (a TypeScript config compiling, dynalite and the SDK clients loading), and a
  // run resumed meanwhile waits for them at its first call.
  let servicesUp!: (s: LocalServices) => void;
  let servicesFailed!: (err: unknown) => void;
  const services = new Promise<LocalServices>((res, rej) => {
    servicesUp = res;
    servicesFailed = rej;
  });
  services.catch(() => undefined); // startLocal itself awaits it below and fails with its error
  try {
    const virtualClock = options.virtualClock
      ? await persistentVirtualClock(join(dataDir, VIRTUAL_CLOCK_FILE))
      : undefined;
    const clock: Clock = virtualClock ?? systemClock;
    const registryPath = !options.stack;

    const sqs = new LocalSqs({ file: join(dataDir, DATA_LAYOUT.sqs), clock });
    stops.push(() => sqs.close());
    const late = lateBoundHandler();
    // The benchmark's CPU figures per API call (bench/api-engine.ts): off unless asked for.
    const handler =
      process.env[CPU_ACCOUNTING_ENV] === '1'
        ? withCpuAccounting(late.handler, () => engine.commitStats)
        : late.handler;
    const api = await startLocalApiServer(handler, options.port ?? DEFAULT_LOCAL_PORT);
    stops.push(() => api.close());
    sqs.setBaseUrl(api.url);
    await sqs.handle('CreateQueue', { QueueName: DEFAULT_DLQ_NAME });

    const mockConfigPath = options.mockConfig
      ? undefined
      : (options.mockConfigFile ?? (process.env.SFN_MOCK_CONFIG || undefined));
    const mockConfigFile = mockConfigPath
      ? new (await import('./services/mock-config-file')).MockConfigFile(mockConfigPath, { log })
      : undefined;
    if (mockConfigFile) {
      const loaded = mockConfigFile.load();
      if (!loaded.ok) throw loaded.error;
      mockConfigFile.watch();
      stops.push(() => mockConfigFile.close());
    }
    const mockConfig = options.mockConfig ?? mockConfigFile;
    const later =
      <K extends keyof ServicePorts>(key: K) =>
      (...args: unknown[]) =>
        services.then((s) =>
          (s.ports[key] as unknown as Record<string, (...a: unknown[]) => unknown>)[
            key === 'models' ? 'invokeModel' : key === 'httpConnections' ? 'resolve' : 'call'
          ](...args),
        );
    // Known once the integrations file is read and the servers listen; read at each http:invoke call.
    const outbound = { allowed: [...(options.allowOutbound ?? [])], ownPorts: [] as number[] };
    const ports = {
      http: {
        get allowedTargets() {
          return outbound.allowed;
        },
        ownPorts: () => outbound.ownPorts,
      },
      sns: { call: later('sns') },
      eventbridge: { call: later('eventbridge') },
      cloudwatch: { call: later('cloudwatch') },
      models: { invokeModel: later('models') },
      httpConnections: { resolve: later('httpConnections') },
    } as ServicePorts;
    const runTraces: ((executionArn: string) => Promise<void>) | undefined = options.traces
      ? await tracedRuns(options.traces, (operation, input) => engine.handle(operation, input), log)
      : undefined;
    // The console's stand-in for express machines' CloudWatch Logs: each EXPRESS run as it closed, and those in flight.
    const expressRuns = new ExpressRunLog(EXPRESS_RUNS_KEPT, () => engine.expressRunsInFlight());
    const engine: Engine = new Engine({
      dataDir: join(dataDir, DATA_LAYOUT.engine),
      onExpressRunClosed: (run) => expressRuns.record(run),
      ...(mockConfig ? { mockConfig } : {}),
      ...(options.expressionLimits ? { expressionLimits: options.expressionLimits } : {}),
      clock,
      invokeLambda: async (invocation) => (await services).lambdas.invoke(invocation),
      integrations: {
        sqs: lazyClient<SQSClient>(async () => (await services).sqsClient),
        dynamodb: lazyClient<DynamoDBClient>(async () => (await services).dynamodbClient),
        // A Distributed Map's ItemReader and ResultWriter reach the local S3 (s3rver wants path-style addressing).
        s3: lazyClient<S3Client>(async () => (await services).s3Client),
        ...ports,
        passThrough: {
          routes: async (service) => (await services).ports.passThrough?.routes(service) ?? false,
          call: async (service, action, input) => (await services).ports.passThrough!.call(service, action, input),
        },
      },
      // The EventBridge rule on AWS (docs/architecture.md §4): closed runs go to run-monitor; in stack
      // mode, to whatever the stack's rules match.
      // Traced runs are traced whatever their status: the hook then sees every close, and run-monitor its own.
      ...(registryPath && !runTraces ? {} : { closedStatuses: ALL_CLOSED_STATUSES }),
      onExecutionClosed: async (event) => {
        const s = await services;
        if (runTraces) await runTraces(event.detail.executionArn);
        if (s.stack) return s.stack.onExecutionClosed(event);
        if (registryPath && !DEFAULT_CLOSED_STATUSES.includes(event.detail.status)) return;
        if (!s.lambdas.has(RUN_MONITOR_FUNCTION)) return;
        const result = await s.lambdas.invoke({ functionName: RUN_MONITOR_FUNCTION, payload: event });
        if (result.functionError) console.error(`autosave local: ${RUN_MONITOR_FUNCTION} failed:`, result.payload);
      },
      // A wait that times out with a decision recorded for it takes the decision: it was made in time.
      recordedTaskOutcome: async (taskToken) => (await services).decisions?.beforeTimeout(taskToken),
      ...(options.stack?.enforceIam
        ? { authorizeTaskCall: async (call) => (await services).iam?.authorize(call) }
        : {}),
      // A machine created with Tasks the engine accepts but does not serve: said once, when it is created.
      onDefinitionWarnings: (arn, warnings) => {
        for (const warning of warnings) log(`  warning: ${arn}: ${warning.message}`);
      },
    });
    await engine.start();
    // Stopping (these run last to first): the close hooks under way finish first, while the API, SQS and the
    // functions they reach are up; then new requests get 503 before the engine closes its store.
    stopsFirst.push(
      () => engine.stop(),
      () => late.bind(undefined),
      () => engine.closeHooksSettled(),
    );
    // A restart (the store has a state machine; the registry path, whose deploy changes nothing a running
    // run uses) answers the Step Functions API now; SQS calls wait for the rest, everything else answers
    // 503 (retryable) until ready. A first start answers once its workflows are deployed.
    const waitForExecution = (executionArn: string, waitMillis: number) =>
      engine.describeWhenClosed(executionArn, waitMillis);
    const stepFunctionsOnly = createLocalApiHandler({
      services: [stepFunctionsService(engine)],
      mockedRun: (arn) => engine.mockedRun(arn),
      waitForExecution,
      virtualClock,
      clock,
    });
    if (registryPath && engine.hasStateMachines()) {
      late.bind((req, res) =>
        isStepFunctionsCall(req)
          ? stepFunctionsOnly(req, res)
          : isSqsCall(req)
            ? late.hold(req, res)
            : late.unavailable(req, res),
      );
      log(`${STEP_FUNCTIONS_ANSWERING} ${api.url} (runs resume once the functions and services are up)`);
    }

    // The project (a TypeScript config compiles here), then everything the functions reach.
    const project = (await options.project?.()) ?? {};
    const workflows = project.workflows ?? options.workflows ?? [];
    const functionsGiven = project.functions ?? options.functions;
    const variables = project.environment ?? options.environment;
    const label = project.label ?? options.label;
    const [{ loadRuntimeConfig }, { startLocalDynamoDbDoor }, { startLocalS3 }] = await Promise.all([
      import('@autosave/runtime/endpoints'),
      import('./services/dynamodb-door'),
      import('./services/s3'),
    ]);
    // The table and bucket the handlers will use: the runtime's own reading of AUTOSAVE_TABLE / AUTOSAVE_BUCKET.
    // In stack mode the stack's own tables and buckets are created by its deploy instead.
    const runtimeConfig = loadRuntimeConfig({ ...process.env, ...variables });
    const { table, bucket } = runtimeConfig;
    // Attempts cut off by the last stop or crash still hold idempotency leases: ended before any function's
    // DynamoDB call gets through the door (in stack mode the stack's tables come with its deploy: below).
    const expireOrphanedLeases = async (client: DynamoDBClient, tableName: string) => {
      const ended = await (await import('./services/orphaned-leases')).expireOrphanedLeases(client, tableName);
      if (ended > 0) log(`  ended ${ended} idempotency lease(s) of step attempts cut off by the last stop`);
    };
    const [dynamodb, s3] = await Promise.all([
      startLocalDynamoDbDoor({
        directory: join(dataDir, DATA_LAYOUT.dynamodb),
        tables: registryPath ? [table] : [],
        ...(registryPath
          ? {
              prepare: async (endpoint: string) =>
                withDynamoDbClient(endpoint, (client) => expireOrphanedLeases(client, table)),
            }
          : {}),
      }),
      startLocalS3({ directory: join(dataDir, DATA_LAYOUT.s3), buckets: registryPath ? [bucket] : [] }),
    ]);
    stops.push(
      () => dynamodb.close(),
      () => s3.close(),
    );
    outbound.ownPorts = [
      api.port,
      ...[dynamodb.endpoint, s3.endpoint].map((endpoint) => Number(new URL(endpoint).port)),
    ];

    const endpoints = localEndpoints({
      url: api.url,
      dynamodb: dynamodb.endpoint,
      s3: s3.endpoint,
      dlqUrl: sqs.queueUrl(DEFAULT_DLQ_NAME),
    });
    // What every in-process handler reads its configuration from, as a Lambda function reads its variables.
    const environment = localEnvironment({ endpoints, dataDir, variables });
    await writeEndpointsFile(dataDir, endpoints);

    // The two paths differ only here: where definitions and functions come from.
    const stack = options.stack
      ? new (await import('./stack')).StackMode({
          dataDir: join(dataDir, DATA_LAYOUT.stack),
          region: LOCAL_REGION,
          account: LOCAL_ACCOUNT_ID,
          endpoints: () => ({
            url: api.url,
            dynamodb: dynamodb.endpoint,
            s3: s3.endpoint,
            region: LOCAL_REGION,
            dataDir,
          }),
          nowMillis: () => clock.now(),
          environment,
        })
      : undefined;
    if (stack) stops.push(() => stack.stop());
    const registry = stack ? [] : registryFunctions();
    const functions: LocalFunction[] = [...registry];
    if (functionsGiven) functions.push(...userFunctions(functionsGiven));
    // Later entries win: a module named on the command line (`--functions`) over the project's own table.
    if (options.functionsModule) functions.push(...(await loadUserFunctions(options.functionsModule)));
    // A workflow naming a tool the tool-step lacks is refused now, as the construct refuses it at synth, not
    // when a run reaches that step. In stack mode the stack's own synth did that; workflows not deployed run nothing.
    if (!stack && options.deployWorkflows !== false) {
      const toolStep = functions.findLast((f) => f.name === TOOL_STEP_FUNCTION);
      const builtIn = toolStep === undefined || registry.includes(toolStep);
      checkWorkflowTools({
        workflows,
        toolStep: builtIn ? { builtIn: true } : { builtIn: false, handler: await toolStep.load() },
        dataDir,
        environment,
        mocked: (workflow, step) => mockConfig?.mocksState?.(workflow, step) ?? false,
        where: label ?? 'autosave local',
      });
    }
    const lambdas = new InProcessLambdaRunner({ functions, sources: stack ? [stack.functionSource] : [], environment });

    // IAM: judged only when asked for and the simulator is installed; said once at boot either way.
    let iam: StackIamEnforcement | undefined;
    let iamLine = 'IAM is not enforced (autosave local --stack --enforce-iam evaluates the state machine roles)';
    if (stack && options.stack?.enforceIam) {
      try {
        iam = await stack.enforceIam();
        iamLine = 'IAM enforced: every Task call is judged against the state machine role by the IAM policy simulator';
      } catch (err) {
        if (!(err instanceof (await import('./cloud-assembly')).IamSimulatorUnavailableError)) throw err;
        iamLine = `IAM is not enforced: ${err.message}`;
      }
    }

    // The engine's own (aws-sdk:dynamodb Tasks, the recorded approval decisions, the stack's deploy), through
    // the door: made, and the local DynamoDB started, on first use.
    let ownDynamoDb: Promise<DynamoDBClient> | undefined;
    const dynamodbClientOf = () =>
      (ownDynamoDb ??= import('@aws-sdk/client-dynamodb').then(
        ({ DynamoDBClient }) => new DynamoDBClient({ ...LOCAL_CLIENT_CONFIG, endpoint: dynamodb.endpoint }),
      ));
    const dynamodbClient = lazyClient<DynamoDBClient>(dynamodbClientOf);
    // The engine's sqs:sendMessage Tasks only: made when the first one runs.
    const sqsClient = lazyClient<SQSClient>(
      async () => new (await import('@aws-sdk/client-sqs')).SQSClient({ ...LOCAL_CLIENT_CONFIG, endpoint: api.url }),
    );
    const s3Client = lazyClient<S3Client>(
      async () =>
        new (await import('@aws-sdk/client-s3')).S3Client({
          ...LOCAL_CLIENT_CONFIG,
          endpoint: s3.endpoint,
          forcePathStyle: true,
        }),
    );
    stops.push(
      () => sqsClient.destroy(),
      () =>
        void ownDynamoDb?.then(
          (c) => c.destroy(),
          () => undefined,
        ),
      () => s3Client.destroy(),
    );
    // Approval decisions recorded but cut off before they reached their run (a crash mid-POST). Their module
    // (the approvals, DynamoDB's document client) loads at the boot's sweep below: the runs caught in flight
    // do not wait for it.
    const decisions = lambdas.has(APPROVAL_ENDPOINT_FUNCTION)
      ? loadedOnFirstUse(async () =>
          (await import('./services/recorded-decisions')).recordedDecisions(dynamodbClientOf, api.url),
        )
      : undefined;
    if (decisions) stops.push(() => decisions.close());

    // SNS, EventBridge, CloudWatch, bedrock:invokeModel, http:invoke and the pass-through (docs/integrations.md).
    const integrations = (await import('./services/local-integrations')).localIntegrations({
      dataDir,
      clock,
      sqs,
      invokeLambda: lambdas.invoke,
      startExecution: async (stateMachineArn, input) =>
        void (await engine.handle('StartExecution', { stateMachineArn, input })),
      modelProvider: runtimeConfig.modelProvider,
      ...(runtimeConfig.modelScript ? { modelScript: runtimeConfig.modelScript } : {}),
      ...(options.integrationsFile ? { file: options.integrationsFile } : {}),
      ...(options.passThrough ? { passThrough: options.passThrough } : {}),
    });
    stops.push(() => integrations.settled());
    outbound.allowed = [...outbound.allowed, ...integrations.allowOutbound];
    if (outbound.allowed.length > 0) log(`http:invoke may call these local targets: ${outbound.allowed.join(', ')}`);
    const routed = integrations.passThrough.describe();
    if (routed.length > 0)
      log(`Pass-through (real calls, real side effects): ${routed.map((r) => `${r.service} -> ${r.to}`).join(', ')}`);
    for (const missing of await integrations.passThrough.missingClients())
      log(`  warning: ${missing.message} (its Tasks fail with Local.IntegrationNotServed until then)`);
    if (stack)
      stack.bind({
        sfn: engine,
        sqs,
        sns: integrations.sns,
        eventbridge: integrations.eventbridge,
        dynamodb: await dynamodbClientOf(),
        invoke: lambdas.invoke,
      });
    const approvalFunction = (): string | undefined =>
      stack
        ? stack.functionUrlTarget()
        : lambdas.has(APPROVAL_ENDPOINT_FUNCTION)
          ? APPROVAL_ENDPOINT_FUNCTION
          : undefined;

    const consoleHandler =
      options.console === false
        ? undefined
        : loadConsoleHandler({
            sfnEndpoint: api.url,
            outboxDir: environment.AUTOSAVE_OUTBOX_DIR,
            services: {
              sns: integrations.sns,
              eventbridge: integrations.eventbridge,
              cloudwatch: integrations.cloudwatch,
              expressRuns,
            },
            ...(stack
              ? {
                  dlqUrl: () => stack.output(STACK_DLQ_OUTPUT) ?? sqs.queueUrl(DEFAULT_DLQ_NAME),
                  engineLabel: () => stackLabel(stack, options.stack?.origin),
                }
              : { engineLabel: () => label ?? 'in-process functions' }),
          });
    const ready = createLocalApiHandler({
      services: [stepFunctionsService(engine), sqsService(sqs), ...(stack ? stack.services() : [])],
      mockedRun: (executionArn) => engine.mockedRun(executionArn),
      waitForExecution,
      // autosave pull: a run read from AWS (or another engine), whose remaining Tasks name functions these are checked against.
      importRun: async (header, lines) => {
        const events = (await import('./services/pulled-payloads')).withPayloadsStored(lines, () =>
          Promise.resolve(s3Client),
        );
        return engine.importRun(header as unknown as RunImportHeader, events as AsyncIterable<WireHistoryEvent>, {
          hasFunction: (name) => lambdas.has(name),
        });
      },
      importedRun: (executionArn) => engine.importedRun(executionArn),
      queryService: (await import('./services/sqs/sqs-query-service')).sqsQueryService(sqs),
      virtualClock,
      clock,
      console: consoleHandler,
      // In stack mode the Function URL comes with a deploy: looked up per request.
      approvals:
        stack || approvalFunction()
          ? async (event) => {
              const functionName = approvalFunction();
              if (!functionName) throw new Error('no function serves the approval pages');
              const result = await lambdas.invoke({ functionName, payload: event });
              if (result.functionError)
                throw Object.assign(new Error(`${functionName} failed`), { payload: result.payload });
              return result.payload;
            }
          : undefined,
      ...(stack
        ? {
            stack: {
              describe: () => stack.summary() ?? {},
              deploy: async (input: Record<string, unknown>) => {
                const dir = input.assemblyDir;
                if (typeof dir !== 'string' || dir === '')
                  throw Object.assign(new Error('assemblyDir must name a cloud assembly directory'), {
                    name: 'ValidationException',
                  });
                return stack.deploy(dir, {
                  stackName: typeof input.stackName === 'string' ? input.stackName : undefined,
                  afterResource: deployCrashPoint(),
                });
              },
            },
          }
        : {}),
    });

    if (stack)
      stopsFirst.push(
        () => stack.quiesce(),
        () => late.bind(undefined),
      );

    let deployments: WorkflowDeployment[] = [];
    let stackDeployment: StackDeployment | undefined;
    if (stack && options.stack) {
      // The stack's resources (functions, tables) are its deploy's: the engine reaches them once it is done.
      servicesUp({ lambdas, sqsClient, dynamodbClient, s3Client, ports: integrations.ports, decisions, stack, iam });
      stackDeployment = await stack.deploy(options.stack.assemblyDir, { stackName: options.stack.stackName });
      // Leases of step attempts cut off by the last stop, in every table of the stack (see the registry path).
      for (const row of stack.store.resources()) {
        if (row.type === 'AWS::DynamoDB::Table' && row.state === 'IN_STACK')
          await expireOrphanedLeases(await dynamodbClientOf(), row.physical_id);
      }
      deployments = stackWorkflows(stack);
      log(
        `Autosave local engine running stack ${stackDeployment.stackName}, assembly ${stackDeployment.assemblyId} (${options.stack.origin ?? 'given'}: ${stackDeployment.assemblyDir})`,
      );
      const counts = new Map<string, number>();
      for (const c of stackDeployment.changes) counts.set(c.change, (counts.get(c.change) ?? 0) + 1);
      log(`  resources: ${[...counts].map(([k, n]) => `${n} ${k}`).join(', ')} (${stackDeployment.durationMillis} ms)`);
      if (stackDeployment.notEmulated.length > 0) {
        log(
          `  not emulated (created on AWS only): ${stackDeployment.notEmulated.map((t) => `${t.count} ${t.type}`).join(', ')}`,
        );
      }
    } else {
      servicesUp({ lambdas, sqsClient, dynamodbClient, s3Client, ports: integrations.ports, decisions });
      if (options.deployWorkflows !== false)
        deployments = await (await import('./services/deploy-workflows')).deployWorkflows(engine, workflows);
    }
    log(`  ${iamLine}`);
    const unresolved = iam?.unresolvedManagedPolicies() ?? [];
    if (unresolved.length > 0)
      log(`  AWS managed policies not evaluated (their contents are not in the template): ${unresolved.join(', ')}`);

    // Bound only now: until the store is open, the runs resumed and the workflows deployed, every request
    // (but the Step Functions API's after a restart, above) gets the retryable 503, never an error from a
    // half-started engine.
    late.bind(ready);
    if (decisions) {
      // Delivered now that the engine serves SendTaskSuccess; a wait timing out first takes its decision anyway.
      const sweep = decisions
        .redeliverAll()
        .then((n) => {
          if (n > 0) log(`  delivered ${n} approval decision(s) recorded before the last stop but not yet delivered`);
        })
        .catch((err: unknown) =>
          console.error(
            'autosave local: could not deliver recorded approval decisions (reading a link delivers them):',
            err,
          ),
        );
      stopsFirst.push(() => sweep);
    }

    // The local DynamoDB loads now, behind its door: nothing above waited for it, and a function's call to it
    // waits for it (a failure to start answers every call with a 500, and is said here).
    void dynamodb
      .open()
      .catch((err: unknown) => console.error('autosave local: the local DynamoDB did not start:', err));

    for (const d of deployments) log(`  workflow ${d.workflow} (${d.change}) -> ${d.aliasArn}`);
    log(`Autosave local engine listening on ${api.url}${virtualClock ? ' (virtual clock)' : ''}`);
    log(`  Step Functions + SQS API  ${api.url}   (AWS_ENDPOINT_URL=${api.url})`);
    // SDK clients and the AWS CLI refuse to send a call without credentials in the shell; the engine checks none.
    log(
      '  credentials               any: the engine checks none, but an SDK client or the AWS CLI needs some, ' +
        'e.g. AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local',
    );
    log(`  console                   ${api.url}/`);
    log(`  DynamoDB                  ${dynamodb.endpoint}`);
    log(`  S3                        ${s3.endpoint}`);
    log(`  data                      ${dataDir}`);
    if (deployments.length > 0) {
      const first = deployments[0];
      const endpointFlag = api.port === DEFAULT_LOCAL_PORT ? '' : ` --endpoint ${api.url}`;
      log(`Try: npx autosave start ${first.workflow} --wait${endpointFlag}`);
      const input = JSON.stringify(workflows.find((w) => w.name === first.workflow)?.exampleInput ?? {});
      log(
        `  or: aws stepfunctions start-execution --endpoint-url ${api.url} --state-machine-arn ${first.aliasArn} --input '${input}'`,
      );
    }

    return {
      url: api.url,
      port: api.port,
      engine,
      sqs,
      lambdas,
      endpoints,
      environment,
      clock: virtualClock,
      deployments,
      stack,
      iamEnforced: iam !== undefined,
      stop: stopAll,
    };
  } catch (err) {
    servicesFailed(err);
    await stopAll();
    throw err;
  }
}
