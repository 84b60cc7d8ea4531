import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Clock } from '@autosave/workflow/config';
import { DEFAULT_CLOSED_STATUSES, Engine, type MockTestCases, type ServicePorts } from '@autosave/engine';
import type { OtlpTracesOptions, StepFunctionsApi } from '../tracing';
import { RUN_MONITOR_FUNCTION } from '../services/lambda/registry-functions';
import { lazyClient } from '../services/lazy-client';
import { EXPRESS_RUNS_KEPT, ExpressRunLog } from '../services/express-run-log';
import type { LateBoundHandler } from './api';
import { DATA_LAYOUT } from './data-directory';
import type { StartLocalOptions } from './options';
import type { LocalServices } from './services';
import type { Shutdown } from './shutdown';

/** Every status a closed run can have: in stack mode the stack's own rules choose which they match. */
const ALL_CLOSED_STATUSES = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'] as const;

/**
 * What exports a closed run's trace: the OpenTelemetry SDK loads only when traces are asked for. A failed export
 * is logged and dropped: a receiver that is down must not hold the run's other close hooks back.
 */
async function tracedRuns(
  options: OtlpTracesOptions,
  api: StepFunctionsApi,
  log: (line: string) => void,
): Promise<(executionArn: string) => Promise<void>> {
  const { OtlpRunExporter, exportRunTrace } = await import('../tracing');
  const exporter = new OtlpRunExporter(options);
  log(
    `  traces: every run that closes, to ${options.url}${options.captureContent ? ' (with model prompts and answers)' : ''}`,
  );
  return (executionArn) =>
    exportRunTrace(api, exporter, executionArn).catch((err: unknown) =>
      log(`autosave local: the trace of ${executionArn} was not exported: ${(err as Error).message}`),
    );
}

/** The engine, and the log of its EXPRESS runs the console reads. */
export interface LocalEngineCore {
  readonly engine: Engine;
  readonly expressRuns: ExpressRunLog;
}

/**
 * Makes the engine and opens its store (the runs in flight resume): before the project, the functions and the
 * services, which it reaches through `services` (see `startLocal`). It stops first: its close hooks under way
 * finish, then new requests get 503 before it closes its store.
 */
export async function createEngine(boot: {
  readonly options: StartLocalOptions;
  readonly dataDir: string;
  readonly clock: Clock;
  readonly mockConfig: MockTestCases | undefined;
  readonly services: Promise<LocalServices>;
  readonly ports: ServicePorts;
  readonly late: LateBoundHandler;
  readonly shutdown: Shutdown;
  readonly log: (line: string) => void;
}): Promise<LocalEngineCore> {
  const { options, dataDir, clock, mockConfig, services, ports, late, shutdown, log } = boot;
  const registryPath = !options.stack;
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
    ...(options.stack?.enforceIam ? { authorizeTaskCall: async (call) => (await services).iam?.authorize(call) } : {}),
    // A machine created with Tasks the engine accepts but does not serve: said once, when it is created.
    onDefinitionWarnings: (arn, warnings) => {
      for (const warning of warnings) log(`  warning: ${arn}: ${warning.message}`);
    },
  });
  await engine.start();
  // Stopping (these run last to first): the close hooks under way finish first, while the API, SQS and the
  // functions they reach are up; then new requests get 503 before the engine closes its store.
  shutdown.first(
    () => engine.stop(),
    () => late.bind(undefined),
    () => engine.closeHooksSettled(),
  );
  return { engine, expressRuns };
}

/**
 * How long a start's background work waits at most for the runs caught in flight to have nothing left to do:
 * under a steady stream of runs the engine is never idle, and recorded decisions must still be delivered.
 */
export const BACKGROUND_WORK_WAIT_MILLIS = 1_000;

/**
 * When a start's background work begins (dynalite's load, the delivery of recorded approval decisions): once
 * the runs caught in flight have nothing left to do, at most {@link BACKGROUND_WORK_WAIT_MILLIS} later, so that
 * the modules that work loads (a tenth of a second of this thread) do not delay them. False once stopping has
 * begun: the work is skipped.
 */
export function afterRunsCaughtInFlight(engine: Engine, shutdown: Shutdown): Promise<boolean> {
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  const stopped = new Promise<void>((resolve) =>
    shutdown.first(() => {
      stopping = true;
      resolve();
    }),
  );
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, BACKGROUND_WORK_WAIT_MILLIS).unref()));
  return Promise.race([engine.whenIdle(), stopped, waited]).then(() => {
    clearTimeout(timer);
    return !stopping;
  });
}
