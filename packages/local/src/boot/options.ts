/** What `startLocal` is given: the flags of `autosave local`, and the project's part of them. */
import type { EngineOptions, MockTestCases } from '@autosave/engine';
import type { Workflow } from '@autosave/workflow';
import type { OtlpTracesOptions } from '../tracing';
import type { PassThroughRoute } from '../services/pass-through';
import type { UserFunctionExport } from '../services/lambda/user-functions';

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
  /**
   * This process runs the engine and nothing else (`autosave local`): the in-process functions' environment is
   * the process's runtime environment until the engine stops, instead of a scope around each invocation. The
   * scope turns on an async hook that every promise of the process pays for (a fifth of the engine's CPU per
   * run through the API). Leave it off wherever the process runs anything else, such as a test runner.
   * @default false
   */
  readonly ownsProcess?: boolean;
}
