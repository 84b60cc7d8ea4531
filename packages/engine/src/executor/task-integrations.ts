import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { StatesError } from '@autosave/workflow/errors';
import type { Clock } from '@autosave/workflow/config';
import type { ArnScope } from '../arns';
import type { LambdaInvoker } from '../lambda-invoker';
import { awsSdkCall, callPassThrough, runAwsSdkIntegration } from './aws-sdk-integration';
import { dynamoDbSdk, sqsSdk } from './sdk-modules';
import { IntegrationNotServedError, knownResource, type IntegrationPattern } from './integration-catalog';
import { failure, type TaskOutcome } from './task-outcome';
import { responseMetadata, sdkCause, type ResponderKind } from './service-responses';
import { servedIntegration, SERVED_INTEGRATIONS } from './served-integrations';
import type { ServicePorts, TaskCallContext } from './service-ports';

export type { IntegrationPattern } from './integration-catalog';

/** A Task's `Resource`, resolved. */
export interface TaskTarget {
  /** The Task's `Resource` as the definition writes it. */
  readonly resourceArn: string;
  /** `resourceType` in history (`lambda`, `sqs`, `dynamodb`, `states`). */
  readonly resourceType: string;
  /** `resource` in history (`invoke.waitForTaskToken`, `sendMessage`, or a function ARN). */
  readonly resource: string;
  /** The integration that runs it; `unserved`: one AWS knows and the engine does not run (it fails at run time). */
  /** `served`: an optimized integration on an emulated service (served-integrations.ts). */
  /** `activity`: an activity ARN, whose tasks wait for a worker's GetActivityTask (nothing is invoked). */
  readonly service:
    | 'lambda-invoke'
    | 'lambda-function'
    | 'sqs'
    | 'dynamodb'
    | 'states'
    | 'aws-sdk'
    | 'served'
    | 'unserved'
    | 'activity';
  readonly action: string;
  readonly pattern: IntegrationPattern;
}

export type { TaskOutcome } from './task-outcome';

/** The error of a Task `Resource` AWS does not know (CreateStateMachine refuses it). */
export class UnsupportedResourceError extends Error {
  override readonly name = 'UnsupportedResourceError';
}

const FUNCTION_ARN = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:([A-Za-z0-9_-]+)(?::([A-Za-z0-9$_-]+))?$/;

/**
 * Resolves a Task's `Resource`: the integration the engine runs it with; `unserved` for one AWS knows
 * that the engine does not run (its attempts fail with {@link IntegrationNotServedError}); throws
 * {@link UnsupportedResourceError} for one AWS does not know. Served integrations are added here and
 * in {@link runTaskIntegration}.
 */
export function resolveTaskTarget(resource: string): TaskTarget {
  const fn = FUNCTION_ARN.exec(resource);
  if (fn)
    return {
      resourceArn: resource,
      resourceType: 'lambda',
      resource,
      service: 'lambda-function',
      action: 'invoke',
      pattern: 'request',
    };
  const known = knownResource(resource);
  if (!known) throw new UnsupportedResourceError(`The local engine does not know the Task resource '${resource}'`);
  if (known.kind === 'activity')
    return {
      resourceArn: resource,
      resourceType: 'activity',
      resource,
      service: 'activity',
      action: known.action,
      pattern: 'request',
    };
  const { service, action, pattern } = known;
  const target = { resourceArn: resource, resourceType: service, resource: known.resource, action, pattern };
  if (known.kind === 'optimized') {
    if (service === 'lambda' && pattern !== 'sync') return { ...target, service: 'lambda-invoke' };
    if (service === 'sqs' && pattern !== 'sync') return { ...target, service: 'sqs' };
    if (service === 'dynamodb' && pattern === 'request') return { ...target, service: 'dynamodb' };
    if (service === 'states') return { ...target, service: 'states' };
    if (servedIntegration(service, action, pattern)) return { ...target, service: 'served' };
  }
  if (known.kind === 'aws-sdk') {
    const sdk = awsSdkCall(`arn:aws:states:::${service}:${known.resource}`);
    if (sdk) return { resourceArn: resource, service: 'aws-sdk', ...sdk };
  }
  return { ...target, service: 'unserved' };
}

/** Splits a Lambda `FunctionName` (name, `name:qualifier`, partial or full ARN) into name and qualifier. */
export function parseFunctionName(value: string): { name: string; qualifier?: string } {
  const full = FUNCTION_ARN.exec(value);
  if (full) return { name: full[1], qualifier: full[2] };
  const partial = /^(?:\d{12}:function:)?([A-Za-z0-9_-]+)(?::([A-Za-z0-9$_-]+))?$/.exec(value);
  if (partial) return { name: partial[1], qualifier: partial[2] };
  return { name: value };
}

/** A denied call: the error and cause the Task fails with, as the service answers a call its role may not make. */
export interface TaskCallDenial {
  readonly error: string;
  readonly cause: string;
}

/** One service call a Task attempt is about to make, under the execution's role. */
export interface TaskCall {
  /** The role the state machine (version) runs with. */
  readonly roleArn: string;
  readonly executionArn: string;
  /** The unqualified state machine ARN (a version or alias run too). */
  readonly stateMachineArn: string;
  /** The Task state's name. */
  readonly state: string;
  /** The Task's `Resource` as the definition writes it. */
  readonly resource: string;
  /** The call's arguments (the Task's evaluated Arguments/Parameters; the payload for a function ARN). */
  readonly args: unknown;
}

/**
 * Decides whether the execution's role may make a Task's service call (IAM, as Step Functions asks it
 * before each call). Resolves with a denial to fail the attempt, or undefined to let the call go.
 */
export type TaskCallAuthorizer = (call: TaskCall) => Promise<TaskCallDenial | undefined>;

/** A `.sync` parent Task waiting on a child run. */
export interface ParentTaskLink {
  readonly executionArn: string;
  readonly frameId: string;
  readonly seq: number;
  /** `.sync:2`: the child's output as JSON rather than as a string. */
  readonly outputAsJson?: boolean;
}

/** How a child run is started from a Task attempt. */
export interface ChildStartOptions {
  /** The `.sync` parent to tell when the child closes. */
  readonly parentTask?: ParentTaskLink;
  /**
   * The attempt is re-invoked after a restart: a child of the same name and input that exists already
   * (started by the attempt before the crash) is the one this attempt started, even if it has closed.
   */
  readonly replay?: boolean;
}

/** How one Task attempt runs: as a child start may (`.sync`), and with the attempt's hold on the clock. */
export interface AttemptOptions extends ChildStartOptions {
  /** Lets the attempt's hold on a virtual clock go (see {@link LambdaInvocation.releaseClock}). */
  readonly releaseClock?: () => void;
  /** The run and state making the call (an event's `resources`, a scripted model's lookup). */
  readonly call?: TaskCallContext;
  /** `args` as JSON text, when the transition that scheduled the attempt wrote it already (its event's input). @default none */
  readonly argsJson?: string;
}

/** What Task integrations need from outside the executor. */
export interface IntegrationServices {
  readonly invokeLambda: LambdaInvoker;
  readonly sqs?: SQSClient;
  readonly dynamodb?: DynamoDBClient;
  /** S3, for a Distributed Map's `ItemReader` and `ResultWriter` and the `aws-sdk:s3` Tasks. */
  readonly s3?: S3Client;
  /** Time for the service results' `Date` headers (the engine clock). */
  readonly clock: Clock;
  /** Region and account of the engine, for ARNs in service errors. */
  readonly scope: ArnScope;
  /** Starts a child execution (StartExecution on this engine). */
  readonly startExecution: (
    input: Record<string, unknown>,
    options: ChildStartOptions,
  ) => Promise<{ executionArn: string; startDate: number }>;
  /** Serves one of this engine's Step Functions API operations (the `aws-sdk:sfn` integration). */
  readonly stepFunctions?: (operation: string, input: Record<string, unknown>) => Promise<object>;
  /** Asked before every call. @default every call is allowed (IAM is not enforced) */
  readonly authorize?: TaskCallAuthorizer;
  /** The emulated services (SNS, EventBridge, CloudWatch, models, HTTP connections) and the pass-through. @default none */
  readonly ports?: ServicePorts;
}

/**
 * DynamoDB errors the service reports under the Java SDK's generic name rather than their own (recorded:
 * a validation error is DynamoDB.AmazonDynamoDBException, a missing table DynamoDB.ResourceNotFoundException).
 */
const DYNAMODB_GENERIC_ERRORS: ReadonlySet<string> = new Set(['ValidationException']);

/** An SDK error as an integration error name: `<Service>.<ErrorName>`, as the service names them. */
function sdkFailure(service: string, err: unknown): TaskOutcome {
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const name = e.name && e.name !== 'Error' ? e.name : 'ServiceException';
  if (service === 'DynamoDB') {
    const error = DYNAMODB_GENERIC_ERRORS.has(name) ? 'DynamoDB.AmazonDynamoDBException' : `DynamoDB.${name}`;
    return failure(error, sdkCause(e.message ?? name, 'AmazonDynamoDBv2', e.$metadata?.httpStatusCode ?? 400, name));
  }
  return failure(`${service}.${name}`, e.message ?? String(err));
}

/** A queue URL whose host cannot be an SQS endpoint (no dot, not local): the Java SDK cannot even send the request. */
function unreachableQueueHost(queueUrl: unknown): string | undefined {
  if (typeof queueUrl !== 'string') return undefined;
  let host: string;
  try {
    host = new URL(queueUrl).hostname;
  } catch {
    return undefined;
  }
  return host.includes('.') || host === 'localhost' ? undefined : host;
}

/** The lines Lambda's platform writes to every invocation's log, which is all a runner that captures no log can tell. */
function platformLog(requestId: string, version: string, durationMs: number): string {
  const duration = durationMs.toFixed(2);
  return `START RequestId: ${requestId} Version: ${version}\nEND RequestId: ${requestId}\nREPORT RequestId: ${requestId}\tDuration: ${duration} ms\tBilled Duration: ${Math.max(1, Math.ceil(durationMs))} ms\t\n`;
}

async function invokeLambda(
  services: IntegrationServices,
  target: TaskTarget,
  args: unknown,
  options: AttemptOptions,
): Promise<TaskOutcome> {
  const { releaseClock } = options;
  let functionName: string;
  let qualifier: string | undefined;
  let payload: unknown;
  let payloadJson: string | undefined;
  let tail = false;
  if (target.service === 'lambda-function') {
    ({ name: functionName, qualifier } = parseFunctionName(target.resource));
    payload = args;
    payloadJson = options.argsJson;
  } else {
    const a = (args ?? {}) as Record<string, unknown>;
    if (typeof a.FunctionName !== 'string')
      return failure(StatesError.Runtime, 'lambda:invoke needs a FunctionName string');
    ({ name: functionName, qualifier } = parseFunctionName(a.FunctionName));
    if (typeof a.Qualifier === 'string') qualifier = a.Qualifier;
    payload = typeof a.Payload === 'string' ? safeParse(a.Payload) : (a.Payload ?? {});
    tail = a.LogType === 'Tail';
  }
  let result;
  const startedMs = performance.now();
  try {
    result = await services.invokeLambda({
      functionName,
      ...(qualifier !== undefined ? { qualifier } : {}),
      payload,
      ...(payloadJson !== undefined ? { payloadJson } : {}),
      ...(releaseClock ? { releaseClock } : {}),
      ...(tail ? { logType: 'Tail' as const } : {}),
    });
  } catch (err) {
    const e = err as { name?: string; message?: string };
    const name = e.name && e.name !== 'Error' ? e.name : 'ServiceException';
    if (name === 'ResourceNotFoundException') {
      const arn = `${functionArnOf(services, target.service === 'lambda-function' ? target.resource : String((args as { FunctionName?: unknown }).FunctionName), functionName)}:${qualifier ?? '$LATEST'}`;
      return failure(
        'Lambda.ResourceNotFoundException',
        sdkCause(`Function not found: ${arn}`, 'AWSLambda', 404, name),
      );
    }
    return failure(name.startsWith('Lambda.') ? name : `Lambda.${name}`, e.message ?? String(err));
  }
  // The response body as the function's runtime wrote it: lambda:invoke's Content-Length counts it, and a
  // function ARN Task's error cause quotes it; lambda:invoke writes the error payload anew, compact (recorded:
  // test_task_lambda vs test_task_service_lambda test_raise_exception_catch).
  const json =
    result.payloadJson ?? (result.payloadText === undefined ? JSON.stringify(result.payload ?? null) : undefined);
  const body = result.payloadText ?? json ?? JSON.stringify(result.payload ?? null);
  if (result.functionError) {
    const p = (result.payload ?? {}) as { errorType?: unknown };
    const error = typeof p.errorType === 'string' && p.errorType ? p.errorType : result.functionError;
    return failure(
      error,
      target.service === 'lambda-function' ? body : (json ?? JSON.stringify(result.payload ?? null)),
    );
  }
  // The payload's JSON text travels with it: its event and its size check read it.
  if (target.service === 'lambda-function')
    return { ok: true, value: result.payload ?? null, ...(json !== undefined ? { text: json } : {}) };
  const requestId = randomUUID();
  // LogType Tail: the log's last 4 KB, base64, in LogResult and its header (recorded: test_invoke_unsupported_param).
  const logResult = tail
    ? Buffer.from(
        result.logTail ?? platformLog(requestId, result.executedVersion, performance.now() - startedMs),
      ).toString('base64')
    : undefined;
  const metadata = responseMetadata({
    kind: 'lambda',
    requestId,
    body,
    nowMs: nowOf(services),
    executedVersion: result.executedVersion,
    ...(logResult !== undefined ? { logResult } : {}),
  });
  return {
    ok: true,
    value: {
      ExecutedVersion: result.executedVersion,
      ...(logResult !== undefined ? { LogResult: logResult } : {}),
      Payload: result.payload ?? null,
      ...metadata,
      StatusCode: 200,
    },
  };
}

/** The unqualified ARN of a function named in a definition (its own ARN's region and account, else the engine's). */
function functionArnOf(services: IntegrationServices, written: string, name: string): string {
  const full = /^(arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]+)/.exec(written);
  if (full) return full[1];
  return `arn:aws:lambda:${services.scope.region}:${services.scope.accountId}:function:${name}`;
}

const nowOf = (services: IntegrationServices): number => services.clock.now();

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** An SDK command's output as the service result: its fields, then the metadata AWS adds. */
function asServiceResult(services: IntegrationServices, kind: ResponderKind, output: object): Record<string, unknown> {
  const { $metadata, ...rest } = output as Record<string, unknown> & { $metadata?: { requestId?: string } };
  return {
    ...rest,
    ...responseMetadata({
      kind,
      requestId: $metadata?.requestId ?? randomUUID(),
      body: JSON.stringify(rest),
      nowMs: nowOf(services),
    }),
  };
}

function dynamoDbCommand(action: string, args: unknown) {
  const input = args as never;
  const { DeleteItemCommand, GetItemCommand, PutItemCommand, UpdateItemCommand } = dynamoDbSdk();
  switch (action) {
    case 'getItem':
      return new GetItemCommand(input);
    case 'putItem':
      return new PutItemCommand(input);
    case 'updateItem':
      return new UpdateItemCommand(input);
    default:
      return new DeleteItemCommand(input);
  }
}

/**
 * A number as the Java SDK writes a double into a JSON body (`1.713425221839E9`): StartExecution answers its
 * `startDate` (epoch seconds) so, and the answer's Content-Length is that body's (recorded: 161 bytes for a
 * 113-character execution ARN, test_start_execution_sync).
 */
function javaDouble(n: number): string {
  if (n !== 0 && (Math.abs(n) >= 1e7 || Math.abs(n) < 1e-3))
    return n.toExponential().replace('e+', 'E').replace('e-', 'E-');
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

/** Runs one Task attempt's work (not the waiting of `.waitForTaskToken` / `.sync`). */
export async function runTaskIntegration(
  services: IntegrationServices,
  target: TaskTarget,
  args: unknown,
  options: AttemptOptions = {},
): Promise<TaskOutcome> {
  const { parentTask, replay, call } = options;
  const child: ChildStartOptions = { parentTask, replay };
  const context: TaskCallContext = call ?? { executionArn: '', stateMachineArn: '', state: '' };
  switch (target.service) {
    // A worker takes an activity task with GetActivityTask; the executor never launches one.
    case 'activity':
      return failure(StatesError.Runtime, `An activity task is handed to a worker, not invoked: ${target.resourceArn}`);
    case 'unserved': {
      // Routed to a real endpoint by the pass-through: the SDK call its ARN names.
      const routed = target.resourceType.replace(/^aws-sdk:/, '');
      if (await services.ports?.passThrough?.routes(routed)) {
        // The call is made; a `.waitForTaskToken` then waits as any other. A `.sync` job's polling is the service's own, not emulated.
        if (target.pattern === 'sync')
          return failure(
            'Local.IntegrationNotServed',
            `The pass-through makes the call only; '${target.resourceArn}' waits for a job (.sync), whose polling the engine does not emulate`,
          );
        return callPassThrough({ ports: services.ports ?? {} }, routed, target.action, args);
      }
      const error = new IntegrationNotServedError(target.resourceArn);
      return failure(error.name, error.message);
    }
    case 'aws-sdk':
      return runAwsSdkIntegration(
        {
          ...services,
          ports: services.ports ?? {},
          ...(options.releaseClock ? { releaseClock: options.releaseClock } : {}),
        },
        target,
        args,
        context,
      );
    case 'served':
      // A routed service goes to its endpoint even where the engine emulates it (a missing client fails the
      // Task naming the package: it is never served locally instead).
      if (await services.ports?.passThrough?.routes(target.resourceType))
        return callPassThrough({ ports: services.ports ?? {} }, target.resourceType, target.action, args);
      return SERVED_INTEGRATIONS[target.resourceType].run(
        { ports: services.ports ?? {}, nowMs: nowOf(services), context },
        target.action,
        args,
      );
    case 'lambda-invoke':
    case 'lambda-function':
      return invokeLambda(services, target, args, options);
    case 'sqs': {
      const a = { ...((args ?? {}) as Record<string, unknown>) };
      const host = unreachableQueueHost(a.QueueUrl);
      if (host !== undefined)
        return failure('SQS.SdkClientException', `Unable to execute HTTP request: ${host}: Name or service not known`);
      if (!services.sqs) return failure(StatesError.TaskFailed, 'No SQS client is configured on the local engine');
      if (a.MessageBody === undefined || a.MessageBody === null) {
        return failure(
          'SQS.AmazonSQSException',
          sdkCause('The request must contain the parameter MessageBody.', 'AmazonSQS', 400, 'MissingParameter'),
        );
      }
      if (typeof a.MessageBody !== 'string') a.MessageBody = JSON.stringify(a.MessageBody);
      try {
        return {
          ok: true,
          value: asServiceResult(
            services,
            'json-1.0',
            await services.sqs.send(new (sqsSdk().SendMessageCommand)(a as never)),
          ),
        };
      } catch (err) {
        return sdkFailure('SQS', err);
      }
    }
    case 'dynamodb': {
      if (!services.dynamodb)
        return failure(StatesError.TaskFailed, 'No DynamoDB client is configured on the local engine');
      try {
        return {
          ok: true,
          value: asServiceResult(
            services,
            'dynamodb',
            await services.dynamodb.send(dynamoDbCommand(target.action, args) as never),
          ),
        };
      } catch (err) {
        return sdkFailure('DynamoDB', err);
      }
    }
    case 'states': {
      const a = (args ?? {}) as Record<string, unknown>;
      // A missing or null Input starts the child with {} (recorded: test_start_execution_sync, "Input": null).
      const input =
        a.Input === undefined || a.Input === null
          ? '{}'
          : typeof a.Input === 'string'
            ? a.Input
            : JSON.stringify(a.Input);
      try {
        const started = await services.startExecution(
          { stateMachineArn: a.StateMachineArn, input, ...(a.Name !== undefined ? { name: a.Name } : {}) },
          child,
        );
        const startDate = new Date(started.startDate * 1000).toISOString();
        const body = `{"executionArn":${JSON.stringify(started.executionArn)},"startDate":${javaDouble(started.startDate)}}`;
        const metadata = responseMetadata({ kind: 'json-1.0', requestId: randomUUID(), body, nowMs: nowOf(services) });
        return { ok: true, value: { ExecutionArn: started.executionArn, ...metadata, StartDate: startDate } };
      } catch (err) {
        const e = err as { name?: string; message?: string };
        const name = e.name ?? 'ServiceException';
        const code = name.replace(/Exception$/, '');
        return failure(
          `StepFunctions.${code}Exception`,
          sdkCause(e.message ?? String(err), 'AWSStepFunctions', 400, code),
        );
      }
    }
  }
}
