/**
 * `autosave local`: the local AWS in one process — DynamoDB (dynalite) and S3 (s3rver) on their own loopback
 * ports, the engine with the Step Functions and SQS APIs, the console and the approval pages on one port —
 * and the project's workflows (autosave.config.ts, or given by value) deployed on it behind their `live`
 * aliases. Restarting on the same data directory resumes everything that was in flight. The test process's
 * environment is never written: the functions get theirs in a scope of their own (localEnvironment).
 */
import type { Engine } from '@autosave/engine';
import type { ControllableClock } from './api/server';
import type { WorkflowDeployment } from './services/deploy-workflows';
import type { InProcessLambdaRunner } from './services/lambda/lambda-runner';
import type { LocalEndpoints } from './services/local-environment';
import type { LocalSqs } from './services/sqs/local-sqs';
import type { StackMode } from './stack';
import { answerStepFunctionsEarly } from './boot/answer-early';
import { startApi } from './boot/api';
import { logListening } from './boot/banner';
import { engineClients } from './boot/clients';
import { startClock } from './boot/clock';
import { lockDataDir } from './boot/data-directory';
import { recordedDecisionsOf, sweepRecordedDecisions } from './boot/decisions';
import { deploy } from './boot/deploy';
import { writeEndpoints } from './boot/endpoints';
import { afterRunsCaughtInFlight, createEngine } from './boot/engine';
import { buildFunctions, openStack } from './boot/functions';
import { fullHandler } from './boot/handler';
import { enforceIam, logIam } from './boot/iam';
import { bindStack, startIntegrations } from './boot/integrations';
import { readMockConfig } from './boot/mock-config';
import type { StartLocalOptions } from './boot/options';
import { loadProject } from './boot/project';
import { deferredServices, servicePorts } from './boot/services';
import { Shutdown } from './boot/shutdown';
import { openDynamoDb, startStorage } from './boot/storage';

export type { LocalProjectOptions, StartLocalOptions } from './boot/options';
export { STEP_FUNCTIONS_ANSWERING } from './boot/answer-early';
export { VIRTUAL_CLOCK_FILE } from './boot/clock';
export { STACK_DLQ_OUTPUT } from './boot/handler';

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

/**
 * Starts everything `autosave local` runs and resolves once it serves requests with the workflows deployed.
 * Each step is in the order it must run (boot/*.ts says why); a step that fails stops what the steps before it
 * started, in the reverse order ({@link Shutdown}).
 */
export async function startLocal(options: StartLocalOptions = {}): Promise<LocalEngine> {
  const log = options.log ?? ((line: string) => console.log(line));
  const { dataDir, unlock } = await lockDataDir(options);
  const shutdown = new Shutdown(unlock);

  // The engine comes first and reaches the functions, DynamoDB, S3 and the emulated services through
  // `services`, brought up below: after a restart the Step Functions API answers from the store before
  // any of them is loaded (a TypeScript config compiling, dynalite and the SDK clients loading), and a
  // run resumed meanwhile waits for them at its first call.
  const { services, up, failed } = deferredServices();
  try {
    const { virtualClock, clock } = await startClock(options, dataDir);
    const registryPath = !options.stack;
    const { sqs, late, api } = await startApi(options, dataDir, clock, shutdown, () => engine.commitStats);
    const mockConfig = await readMockConfig(options, log, shutdown);
    const { ports, outbound } = servicePorts(services, options.allowOutbound);
    const { engine, expressRuns } = await createEngine({
      options,
      dataDir,
      clock,
      mockConfig,
      services,
      ports,
      late,
      shutdown,
      log,
    });
    answerStepFunctionsEarly({ registryPath, engine, late, api, virtualClock, clock, log });

    // The project (a TypeScript config compiles here), then everything the functions reach.
    const { workflows, functions, variables, label } = await loadProject(options);
    const { runtimeConfig, dynamodb, s3 } = await startStorage({
      dataDir,
      registryPath,
      variables,
      api,
      outbound,
      shutdown,
      log,
    });
    const { endpoints, environment } = await writeEndpoints({ api, dynamodb, s3, sqs, dataDir, variables });
    const stack = await openStack({ options, dataDir, api, dynamodb, s3, clock, environment, shutdown });
    const lambdas = await buildFunctions({
      stack,
      functionsGiven: functions,
      functionsModule: options.functionsModule,
      environment,
      options,
      workflows,
      dataDir,
      mockConfig,
      label,
      shutdown,
    });
    const iam = await enforceIam(stack, options.stack?.enforceIam);
    const clients = engineClients({ api, dynamodb, s3, shutdown });
    const decisions = recordedDecisionsOf({ lambdas, dynamodbClientOf: clients.dynamodbClientOf, api, shutdown });
    const integrations = await startIntegrations({
      options,
      dataDir,
      clock,
      sqs,
      lambdas,
      engine,
      runtimeConfig,
      outbound,
      shutdown,
      log,
    });
    await bindStack({ stack, engine, sqs, integrations, clients, lambdas });
    const ready = await fullHandler({
      options,
      engine,
      expressRuns,
      sqs,
      stack,
      lambdas,
      integrations,
      clients,
      api,
      environment,
      label,
      virtualClock,
      clock,
    });
    const deployments = await deploy({
      options,
      engine,
      stack,
      workflows,
      lambdas,
      clients,
      integrations,
      decisions,
      iam: iam.iam,
      up,
      late,
      shutdown,
      log,
    });
    logIam(iam, log);

    // Bound only now: until the store is open, the runs resumed and the workflows deployed, every request
    // (but the Step Functions API's after a restart, above) gets the retryable 503, never an error from a
    // half-started engine.
    late.bind(ready);
    // What only runs need that the restart's runs caught in flight may not: after them (boot/engine.ts).
    const background = afterRunsCaughtInFlight(engine, shutdown);
    sweepRecordedDecisions(decisions, background, shutdown, log);
    // The local DynamoDB loads behind its door then: nothing above waited for it, and a function's call to it
    // opens it at once and waits for it (a failure to start answers every call with a 500, and is said here).
    openDynamoDb(dynamodb, background);
    logListening({ api, virtualClock, dynamodb, s3, dataDir, deployments, workflows, log });

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
      iamEnforced: iam.iam !== undefined,
      stop: shutdown.stopAll,
    };
  } catch (err) {
    failed(err);
    await shutdown.stopAll();
    throw err;
  }
}
