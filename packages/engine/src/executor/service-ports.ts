/**
 * The emulated AWS services a Task may call besides the SDK clients (Lambda, SQS, DynamoDB, S3): each is
 * a port the engine calls, implemented outside it (packages/local/src/services) and injected through
 * `EngineOptions.integrations`. The engine shapes requests, results, errors and history as Step Functions
 * does; the ports only do what the service does.
 */
import type { OutboundHttpOptions } from './outbound-http';

/**
 * A service's error answer, in the service's words: `code` is its error code (`NotFound`,
 * `InvalidParameter`), `status` the HTTP status it answers with.
 */
export class ServiceFault extends Error {
  override readonly name = 'ServiceFault';

  constructor(
    readonly code: string,
    message: string,
    readonly status: number = 400,
  ) {
    super(message);
  }
}

/** Who is calling: the run and the Task state (an event's `resources`, a scripted model's lookup key). */
export interface TaskCallContext {
  readonly executionArn: string;
  /** The unqualified state machine ARN. */
  readonly stateMachineArn: string;
  /** The Task state's name. */
  readonly state: string;
}

/**
 * An emulated service's API: `call('Publish', input)` takes the API action's request as the AWS SDK
 * writes it (PascalCase members) and resolves with its response, or rejects with a {@link ServiceFault}.
 * The actions each emulated service serves are listed once, in emulated-apis.ts.
 */
export interface ServiceApi {
  call(action: string, input: Record<string, unknown>, context: TaskCallContext): Promise<Record<string, unknown>>;
}

/** One `InvokeModel` request (Bedrock runtime). */
export interface ModelInvocation {
  readonly modelId: string;
  /** The request body: the model family's JSON (Anthropic messages, Titan `inputText`, ...). */
  readonly body: unknown;
  readonly contentType?: string;
  readonly accept?: string;
}

/** Answers `bedrock:invokeModel` Tasks: the engine's model provider (scripted by default, Bedrock when configured). */
export interface ModelInvoker {
  invokeModel(
    request: ModelInvocation,
    context: TaskCallContext,
  ): Promise<{ readonly body: unknown; readonly contentType: string }>;
}

/** How an `http:invoke` Task's EventBridge connection authorizes: headers and query parameters to add. */
export interface ConnectionAuth {
  readonly headers?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
}

/** The connections `http:invoke` Tasks name (`Authentication.ConnectionArn`), resolved locally. */
export interface HttpConnections {
  /** The connection's authorization; rejects with a {@link ServiceFault} when it is not configured. */
  resolve(connectionArn: string): Promise<ConnectionAuth>;
}

/**
 * Routes an integration the engine does not emulate to a real endpoint (AWS or another emulator) through
 * the AWS SDK v3 client for its service. Resolves with the response's members, or rejects with the SDK's
 * error (its `name`, message and `$metadata`).
 */
export interface PassThrough {
  /** Whether calls to this service (`sns`, `glue`, ...) are routed (a promise while the routes are still loading). */
  routes(service: string): boolean | Promise<boolean>;
  call(service: string, action: string, input: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** The emulated services and routes a Task may reach (each optional: an absent one fails the Task, saying how to serve it). */
export interface ServicePorts {
  readonly sns?: ServiceApi;
  readonly eventbridge?: ServiceApi;
  readonly cloudwatch?: ServiceApi;
  readonly models?: ModelInvoker;
  readonly httpConnections?: HttpConnections;
  /** Where `http:invoke` may go, how long a call may take, how much of its answer is read. @default outboundHttp's defaults: no local targets, 60 s, 256 KB */
  readonly http?: OutboundHttpOptions;
  readonly passThrough?: PassThrough;
}
