/**
 * AWS SDK service integrations (`arn:aws:states:::aws-sdk:<service>:<action>`), as Step Functions runs
 * them: the Task's arguments are the API action's request in PascalCase, the result is the response's
 * fields in PascalCase (no `SdkHttpMetadata`, unlike the optimized integrations), and an error is
 * `<Service>.<Name>Exception` with the Java SDK's message as the cause. Request-response and
 * `.waitForTaskToken` only: AWS has no `.sync` for them.
 *
 * The engine runs three services: `sfn` (this engine's own API, no network), and `dynamodb` / `sqs`
 * (the SDK clients the engine is given). Their actions are the ones the SDK client (or the engine's
 * API) has, so a definition naming any other is refused at CreateStateMachine.
 */
import { randomUUID } from 'node:crypto';
import type * as DynamoDb from '@aws-sdk/client-dynamodb';
import type * as Sqs from '@aws-sdk/client-sqs';
import { dynamoDbSdk, sqsSdk } from './sdk-modules';
import type { S3Client } from '@aws-sdk/client-s3';
import { StatesError } from '@autosave/workflow/errors';
import { AWS_SDK_S3_ACTIONS, runAwsSdkS3 } from './aws-sdk-s3';
import { exceptionName, failure, type TaskOutcome } from './task-outcome';
import { EMULATED_API_ACTIONS, type EmulatedService } from './emulated-apis';
import { ServiceFault, type ServicePorts, type TaskCallContext } from './service-ports';

// This module imports nothing from task-integrations.ts (which imports it): the types below are the
// shapes of its TaskTarget fields and IntegrationServices members that an SDK call needs.

/** An `aws-sdk:` resource the engine runs: the TaskTarget fields it determines. */
export interface AwsSdkCall {
  /** `aws-sdk:<service>`, as history names it. */
  readonly resourceType: string;
  /** The action, with its `.waitForTaskToken` suffix if any, as history names it. */
  readonly resource: string;
  readonly action: string;
  readonly pattern: 'request' | 'waitForTaskToken';
}

/** The clients an SDK call is made with (IntegrationServices has them). */
export interface AwsSdkClients {
  readonly dynamodb?: DynamoDb.DynamoDBClient;
  readonly sqs?: Sqs.SQSClient;
  readonly s3?: S3Client;
  /** Serves one of this engine's Step Functions API operations. */
  readonly stepFunctions?: (operation: string, input: Record<string, unknown>) => Promise<object>;
  /** The emulated services and the pass-through. */
  readonly ports: ServicePorts;
  /** Lets the attempt's hold on a virtual clock go, for a call that waits on the outside world (GetActivityTask's long poll). */
  readonly releaseClock?: () => void;
}

const AWS_SDK_ARN = /^arn:aws[a-z-]*:states:::aws-sdk:([a-z0-9]+):([A-Za-z0-9]+)(?:\.(waitForTaskToken|sync(?::2)?))?$/;

/**
 * The Step Functions API actions the engine serves (the operations of its own API handler) that a
 * workflow may call through `aws-sdk:sfn`.
 */
export const STEP_FUNCTIONS_SDK_ACTIONS: readonly string[] = [
  'CreateStateMachine',
  'UpdateStateMachine',
  'DescribeStateMachine',
  'ListStateMachines',
  'ValidateStateMachineDefinition',
  'DeleteStateMachine',
  'PublishStateMachineVersion',
  'ListStateMachineVersions',
  'DeleteStateMachineVersion',
  'CreateStateMachineAlias',
  'UpdateStateMachineAlias',
  'DescribeStateMachineAlias',
  'ListStateMachineAliases',
  'DeleteStateMachineAlias',
  'StartExecution',
  'StartSyncExecution',
  'DescribeExecution',
  'DescribeStateMachineForExecution',
  'ListExecutions',
  'GetExecutionHistory',
  'StopExecution',
  'RedriveExecution',
  'SendTaskSuccess',
  'SendTaskFailure',
  'SendTaskHeartbeat',
  'CreateActivity',
  'DescribeActivity',
  'ListActivities',
  'DeleteActivity',
  'GetActivityTask',
];

/** How one service is called, and the names the Java SDK (which Step Functions runs) gives it in errors. */
interface SdkService {
  /** The service's name in error names and causes (`DynamoDb.ResourceNotFoundException`, `(Service: DynamoDb, ...)`). */
  readonly errorPrefix: string;
  /**
   * Whether the cause ends with the Java SDK's `(SDK Attempt Count: n)`: AWS wrote it in the Sfn causes
   * recorded in 2025 (localstack services/test_aws_sdk_task_service test_sfn_send_task_outcome_with_no_such_token),
   * not in the DynamoDb causes recorded in 2023 (error_handling/test_aws_sdk), the only ones recorded.
   */
  readonly attemptCount: boolean;
  /** Whether the service has this action (PascalCase). */
  readonly hasAction: (action: string) => boolean;
}

/** An SDK client module has one `<Action>Command` class per API action. */
const hasCommand = (module: () => object) => (action: string) =>
  typeof (module() as Record<string, unknown>)[`${action}Command`] === 'function';

const SDK_SERVICES: Readonly<Record<string, SdkService>> = {
  sfn: { errorPrefix: 'Sfn', attemptCount: true, hasAction: (action) => STEP_FUNCTIONS_SDK_ACTIONS.includes(action) },
  dynamodb: { errorPrefix: 'DynamoDb', attemptCount: false, hasAction: hasCommand(dynamoDbSdk) },
  sqs: { errorPrefix: 'Sqs', attemptCount: true, hasAction: hasCommand(sqsSdk) },
  // S3's results and errors are not the other services' (aws-sdk-s3.ts): only its prefix and actions are used here.
  s3: { errorPrefix: 'S3', attemptCount: false, hasAction: (action) => AWS_SDK_S3_ACTIONS.includes(camel(action)) },
  // The emulated services: the Java SDK v2 names them Sns, EventBridge and CloudWatch in errors and causes.
  sns: {
    errorPrefix: 'Sns',
    attemptCount: true,
    hasAction: (action) => (EMULATED_API_ACTIONS.sns as readonly string[]).includes(action),
  },
  eventbridge: {
    errorPrefix: 'EventBridge',
    attemptCount: true,
    hasAction: (action) => (EMULATED_API_ACTIONS.eventbridge as readonly string[]).includes(action),
  },
  cloudwatch: {
    errorPrefix: 'CloudWatch',
    attemptCount: true,
    hasAction: (action) => (EMULATED_API_ACTIONS.cloudwatch as readonly string[]).includes(action),
  },
};

/** The services the engine runs through `aws-sdk:` (for messages that list what the engine runs). */
export const AWS_SDK_SERVICES: readonly string[] = Object.keys(SDK_SERVICES);

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);
const camel = (name: string): string => name.charAt(0).toLowerCase() + name.slice(1);

/** The call an `aws-sdk:` resource makes if the engine runs it, or undefined (another service or action, or `.sync`). */
export function awsSdkCall(resource: string): AwsSdkCall | undefined {
  const m = AWS_SDK_ARN.exec(resource);
  if (!m) return undefined;
  const [, service, action, suffix] = m;
  if (suffix !== undefined && suffix !== 'waitForTaskToken') return undefined;
  if (!Object.hasOwn(SDK_SERVICES, service) || !SDK_SERVICES[service].hasAction(pascal(action))) return undefined;
  return {
    resourceType: `aws-sdk:${service}`,
    resource: suffix ? `${action}.${suffix}` : action,
    action,
    pattern: suffix ? 'waitForTaskToken' : 'request',
  };
}

/** A parameter set to null is one the Java SDK leaves out of the request. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

/** A response value as JSON: binary as base64, timestamps as ISO-8601 text, no `$metadata`, no undefined members. */
function asJson(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(asJson);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k, v]) => k !== '$metadata' && v !== undefined)
      .map(([k, v]) => [k, asJson(v)]),
  );
}

/** Re-keys an object tree (the Step Functions wire format is camelCase, the SDK integration's PascalCase). */
function rekey(value: unknown, key: (name: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => rekey(v, key));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [key(k), rekey(v, key)]));
}

/** The cause the Java SDK writes for a service error: the message, then the service, status and request id. */
function sdkCause(service: SdkService, message: string, status: number, requestId: string): string {
  return `${message} (Service: ${service.errorPrefix}, Status Code: ${status}, Request ID: ${requestId})${service.attemptCount ? ' (SDK Attempt Count: 1)' : ''}`;
}

/**
 * A JavaScript SDK error as the Java SDK names it: an error the service's model defines keeps its name;
 * one it does not (a `ValidationException`, say) is the service's generic `<Service>Exception`; no answer
 * at all is `SdkClientException`.
 */
function clientFailure(service: SdkService, err: unknown, genericClass: new (...args: never[]) => Error): TaskOutcome {
  const e = err as Error & { $metadata?: { httpStatusCode?: number; requestId?: string } };
  const status = e.$metadata?.httpStatusCode;
  if (!(err instanceof genericClass) || status === undefined)
    return failure(`${service.errorPrefix}.SdkClientException`, `Unable to execute HTTP request: ${e.message}`);
  const name = err.constructor === genericClass ? `${service.errorPrefix}Exception` : exceptionName(e.name);
  return failure(
    `${service.errorPrefix}.${name}`,
    sdkCause(service, e.message, status, e.$metadata?.requestId ?? randomUUID()),
  );
}

type Client = { send(command: unknown): Promise<unknown> };

async function callClient(
  service: SdkService,
  client: Client,
  module: Record<string, unknown>,
  genericClass: new (...args: never[]) => Error,
  action: string,
  args: unknown,
): Promise<TaskOutcome> {
  const Command = module[`${pascal(action)}Command`] as new (input: unknown) => unknown;
  try {
    return { ok: true, value: asJson(await client.send(new Command(withoutNulls(args ?? {})))) };
  } catch (err) {
    return clientFailure(service, err, genericClass);
  }
}

/** String members of the Step Functions API that take JSON text; the integration serializes a JSON value given there. */
const JSON_TEXT_MEMBERS: ReadonlySet<string> = new Set(['input', 'output']);

/** Calls this engine's own Step Functions API, with the request and response re-keyed between the two casings. */
async function callStepFunctions(services: AwsSdkClients, action: string, args: unknown): Promise<TaskOutcome> {
  const service = SDK_SERVICES.sfn;
  if (!services.stepFunctions)
    return failure(StatesError.TaskFailed, 'The local engine has no Step Functions API to call');
  // A worker's long poll waits for another run to schedule a task: virtual time must not stand still for it.
  if (pascal(action) === 'GetActivityTask') services.releaseClock?.();
  const input = rekey(withoutNulls(args ?? {}), camel) as Record<string, unknown>;
  for (const member of JSON_TEXT_MEMBERS)
    if (member in input && typeof input[member] !== 'string') input[member] = JSON.stringify(input[member]);
  try {
    const output = (await services.stepFunctions(pascal(action), input)) as Record<string, unknown>;
    // The wire's epoch-second dates are timestamps to the SDK, which the integration writes as ISO-8601 text.
    const dated = Object.fromEntries(
      Object.entries(output).map(([k, v]) => [
        k,
        /Date$/.test(k) && typeof v === 'number' ? new Date(v * 1000).toISOString() : v,
      ]),
    );
    return { ok: true, value: rekey(dated, pascal) };
  } catch (err) {
    const e = err as Error & { httpStatus?: number };
    return failure(
      `${service.errorPrefix}.${exceptionName(e.name)}`,
      sdkCause(service, e.message, e.httpStatus ?? 400, randomUUID()),
    );
  }
}

/** Calls an emulated service's API port, the result and errors as the Java SDK gives them. */
async function callEmulated(
  service: EmulatedService,
  services: AwsSdkClients,
  action: string,
  args: unknown,
  context: TaskCallContext,
): Promise<TaskOutcome> {
  const api = services.ports[service];
  const sdk = SDK_SERVICES[service];
  if (!api)
    return failure(
      'Local.IntegrationNotServed',
      `The local engine has no ${sdk.errorPrefix} service: start it with the local services (autosave local), or pass integrations.${service} to the Engine`,
    );
  try {
    return {
      ok: true,
      value: asJson(
        await api.call(pascal(action), (withoutNulls(args ?? {}) ?? {}) as Record<string, unknown>, context),
      ),
    };
  } catch (err) {
    if (!(err instanceof ServiceFault))
      return failure(
        `${sdk.errorPrefix}.SdkClientException`,
        `Unable to execute HTTP request: ${(err as Error)?.message ?? String(err)}`,
      );
    return failure(
      `${sdk.errorPrefix}.${exceptionName(err.code)}`,
      sdkCause(sdk, err.message, err.status, randomUUID()),
    );
  }
}

/**
 * A call routed to a real endpoint: the response's members as the SDK integration gives them, an error as
 * `<Service>.<Name>Exception` (the SDK error's own name; the Java SDK's prefix is the service's name capitalized).
 */
export async function callPassThrough(
  services: Pick<AwsSdkClients, 'ports'>,
  service: string,
  action: string,
  args: unknown,
): Promise<TaskOutcome> {
  const prefix = Object.hasOwn(SDK_SERVICES, service) ? SDK_SERVICES[service].errorPrefix : pascal(service);
  try {
    return {
      ok: true,
      value: asJson(
        await services.ports.passThrough!.call(
          service,
          pascal(action),
          (withoutNulls(args ?? {}) ?? {}) as Record<string, unknown>,
        ),
      ),
    };
  } catch (err) {
    const e = err as Error & { $metadata?: { httpStatusCode?: number; requestId?: string } };
    // The service's SDK client is not installed: the cause names the package to install.
    if (e.name === 'PassThroughClientMissingError') return failure('Local.IntegrationNotServed', e.message);
    if (err instanceof ServiceFault) return failure(`${prefix}.${exceptionName(err.code)}`, err.message);
    const status = e.$metadata?.httpStatusCode;
    if (status === undefined)
      return failure(`${prefix}.SdkClientException`, `Unable to execute HTTP request: ${e.message}`);
    const cause = `${e.message} (Service: ${prefix}, Status Code: ${status}, Request ID: ${e.$metadata?.requestId ?? randomUUID()})`;
    return failure(`${prefix}.${exceptionName(e.name && e.name !== 'Error' ? e.name : `${prefix}`)}`, cause);
  }
}

/** Runs one `aws-sdk:` Task attempt (the call; `.waitForTaskToken`'s waiting is the Task state's). */
export async function runAwsSdkIntegration(
  services: AwsSdkClients,
  target: Pick<AwsSdkCall, 'resourceType' | 'action'>,
  args: unknown,
  context: TaskCallContext = { executionArn: '', stateMachineArn: '', state: '' },
): Promise<TaskOutcome> {
  const service = target.resourceType.slice('aws-sdk:'.length);
  // A service routed to a real endpoint goes there, even one the engine emulates.
  if (await services.ports.passThrough?.routes(service)) return callPassThrough(services, service, target.action, args);
  switch (service) {
    case 'sns':
    case 'eventbridge':
    case 'cloudwatch':
      return callEmulated(service, services, target.action, args, context);
    case 'sfn':
      return callStepFunctions(services, target.action, args);
    case 'dynamodb':
      if (!services.dynamodb)
        return failure(StatesError.TaskFailed, 'No DynamoDB client is configured on the local engine');
      return callClient(
        SDK_SERVICES.dynamodb,
        services.dynamodb as Client,
        dynamoDbSdk(),
        dynamoDbSdk().DynamoDBServiceException,
        target.action,
        args,
      );
    case 'sqs':
      if (!services.sqs) return failure(StatesError.TaskFailed, 'No SQS client is configured on the local engine');
      return callClient(
        SDK_SERVICES.sqs,
        services.sqs as Client,
        sqsSdk(),
        sqsSdk().SQSServiceException,
        target.action,
        args,
      );
    case 's3':
      return runAwsSdkS3(services.s3, target.action, args);
    default:
      return failure(
        StatesError.TaskFailed,
        `The local engine does not emulate the AWS SDK service '${service}': route it to a real endpoint with the pass-through (docs/integrations.md)`,
      );
  }
}
