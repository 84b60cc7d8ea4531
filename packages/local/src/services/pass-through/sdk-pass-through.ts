/**
 * The pass-through: Tasks of the services a user routes go to a real endpoint — AWS itself (the SDK's
 * default credential chain and region) or another emulator (an endpoint URL) — through the AWS SDK v3
 * client for that service, which the user installs (`npm install @aws-sdk/client-<name>`); it is loaded
 * on first use. This is what Step Functions Local does with its service endpoints. The calls are real:
 * they cost what they cost on AWS and change what they change (docs/integrations.md).
 */
import { LOCAL_REGION } from '@autosave/workflow/config';
import { ServiceFault, type PassThrough } from '@autosave/engine';

/** Where one service's calls go. */
export interface PassThroughRoute {
  /** An endpoint URL (another emulator); absent: AWS itself, through the default credential chain. */
  readonly endpoint?: string;
  /** @default the SDK's default (AWS_REGION, the profile) */
  readonly region?: string;
  /** The npm package of the service's client. @default `@aws-sdk/client-<name>` from the service's name */
  readonly package?: string;
  /**
   * How long a call may take (to connect, and in all) before it fails
   * with the SDK's TimeoutError: a silent endpoint must not hold a Task, and the engine, forever.
   * @default PASS_THROUGH_TIMEOUT_MILLIS (60 s)
   */
  readonly timeoutMillis?: number;
}

/** A pass-through call's bound when its route sets none: the HTTP Task's 60 s (Step Functions service quotas). */
export const PASS_THROUGH_TIMEOUT_MILLIS = 60_000;

/** Options of {@link SdkPassThrough}. */
export interface SdkPassThroughOptions {
  /** The routed services, by the name their `aws-sdk:<service>` or optimized ARN uses (`glue`, `athena`, `bedrockruntime`). */
  readonly routes: Readonly<Record<string, PassThroughRoute>>;
  /** Loads a package (the test seam). @default dynamic import */
  readonly load?: (packageName: string) => Promise<Record<string, unknown>>;
}

/**
 * The JavaScript SDK package of the services whose Step Functions name (the Java SDK v2's) differs from it;
 * any other service `<name>` is `@aws-sdk/client-<name>`.
 */
const CLIENT_PACKAGES: Readonly<Record<string, string>> = {
  cloudwatchlogs: 'cloudwatch-logs',
  cloudwatchevents: 'cloudwatch-events',
  bedrockruntime: 'bedrock-runtime',
  bedrockagentruntime: 'bedrock-agent-runtime',
  bedrockagent: 'bedrock-agent',
  secretsmanager: 'secrets-manager',
  apigateway: 'api-gateway',
  apigatewayv2: 'apigatewayv2',
  elasticloadbalancingv2: 'elastic-load-balancing-v2',
  elasticmapreduce: 'emr',
  'emr-containers': 'emr-containers',
  'emr-serverless': 'emr-serverless',
  sagemakerruntime: 'sagemaker-runtime',
  costexplorer: 'cost-explorer',
  databrew: 'databrew',
  ssm: 'ssm',
  states: 'sfn',
};

/** The npm package holding a service's SDK v3 client. */
export function clientPackage(service: string, route?: PassThroughRoute): string {
  return (
    route?.package ?? `@aws-sdk/client-${Object.hasOwn(CLIENT_PACKAGES, service) ? CLIENT_PACKAGES[service] : service}`
  );
}

type SdkClient = { send(command: unknown): Promise<Record<string, unknown>> };

/** Routes calls through each service's AWS SDK v3 client. */
export class SdkPassThrough implements PassThrough {
  private readonly clients = new Map<string, Promise<{ client: SdkClient; module: Record<string, unknown> }>>();

  constructor(private readonly options: SdkPassThroughOptions) {}

  routes(service: string): boolean {
    return Object.hasOwn(this.options.routes, service);
  }

  /** The routed services and where they go (the console and the startup lines). */
  describe(): { service: string; to: string; package: string }[] {
    return Object.entries(this.options.routes).map(([service, r]) => ({
      service,
      to: r.endpoint ?? 'AWS (default credential chain)',
      package: clientPackage(service, r),
    }));
  }

  /**
   * The routed services whose client cannot be loaded, checked once at start so the user hears it then and
   * not at a run's first call. The clients that load are kept for the calls.
   */
  async missingClients(): Promise<PassThroughClientMissingError[]> {
    const results = await Promise.all(
      Object.keys(this.options.routes).map((service) =>
        this.client(service).then(
          () => undefined,
          (err: unknown) => err,
        ),
      ),
    );
    return results.filter((err): err is PassThroughClientMissingError => err instanceof PassThroughClientMissingError);
  }

  async call(service: string, action: string, input: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { client, module } = await this.client(service);
    const Command = module[`${action}Command`] as (new (input: unknown) => unknown) | undefined;
    if (typeof Command !== 'function')
      throw new ServiceFault(
        'InvalidAction',
        `${clientPackage(service, this.options.routes[service])} has no ${action} action`,
        400,
      );
    const { $metadata: _metadata, ...output } = await client.send(new Command(input));
    return output;
  }

  private client(service: string): Promise<{ client: SdkClient; module: Record<string, unknown> }> {
    let entry = this.clients.get(service);
    if (!entry) {
      entry = this.open(service);
      this.clients.set(service, entry);
      // A missing package is asked for again next time (the user may install it meanwhile).
      entry.catch(() => this.clients.delete(service));
    }
    return entry;
  }

  private async open(service: string): Promise<{ client: SdkClient; module: Record<string, unknown> }> {
    const route = this.options.routes[service];
    const pkg = clientPackage(service, route);
    let module: Record<string, unknown>;
    try {
      module = await (this.options.load ?? ((name: string) => import(name) as Promise<Record<string, unknown>>))(pkg);
    } catch {
      throw new PassThroughClientMissingError(service, pkg);
    }
    // The module's client class: the one `<Name>Client` export with a `send` (not its ServiceException).
    const Client = Object.entries(module).find(
      ([name, value]) =>
        /Client$/.test(name) &&
        typeof value === 'function' &&
        typeof (value as { prototype?: { send?: unknown } }).prototype?.send === 'function',
    )?.[1] as (new (config: object) => SdkClient) | undefined;
    if (!Client) throw new PassThroughClientMissingError(service, pkg);
    const timeout = route.timeoutMillis ?? PASS_THROUGH_TIMEOUT_MILLIS;
    const config = {
      ...(route.endpoint ? { endpoint: route.endpoint } : {}),
      ...emulatorDefaults(route),
      // requestTimeout only warns unless throwOnRequestTimeout is set (@smithy/node-http-handler 4).
      requestHandler: { connectionTimeout: timeout, requestTimeout: timeout, throwOnRequestTimeout: true },
    };
    return { client: new Client(config), module };
  }
}

/**
 * What a route to another emulator on this machine needs and AWS's default chain may not give: a region
 * (none set: the engine's own, us-east-1) and credentials (none in the environment: test/test, which
 * emulators take). A route to AWS, or one that says its region, keeps the SDK's defaults.
 */
export function emulatorDefaults(
  route: PassThroughRoute,
  env: NodeJS.ProcessEnv = process.env,
): { region?: string; credentials?: { accessKeyId: string; secretAccessKey: string } } {
  if (route.region) return { region: route.region };
  if (!route.endpoint) return {};
  let host = '';
  try {
    host = new URL(route.endpoint).hostname;
  } catch {
    return {};
  }
  if (host !== 'localhost' && host !== '127.0.0.1' && host !== '[::1]') return {};
  return {
    ...(env.AWS_REGION || env.AWS_DEFAULT_REGION ? {} : { region: LOCAL_REGION }),
    ...(env.AWS_ACCESS_KEY_ID || env.AWS_PROFILE
      ? {}
      : { credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
  };
}

/** A routed service whose SDK client is not installed: the message names the package to install. */
export class PassThroughClientMissingError extends Error {
  override readonly name = 'PassThroughClientMissingError';

  constructor(
    readonly service: string,
    readonly packageName: string,
  ) {
    super(`Routing '${service}' to a real endpoint needs its AWS SDK v3 client: npm install ${packageName}`);
  }
}
