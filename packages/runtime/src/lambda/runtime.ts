/**
 * The composition root of the Lambda handlers: builds the lib objects from the environment once per
 * configuration (a Lambda container reuses them across invocations; the local engine, which runs every
 * handler in one process, gets one set per configuration). Wiring only; every rule lives in lib/.
 *
 * Each part is a function of the {@link Runtime}, not a member of it, so that a handler's bundle holds
 * only the parts (and AWS SDK clients) that handler names: esbuild drops every function nobody calls,
 * and with it the SDK package only that function imports. Each part is built at first use.
 */
import {
  createDynamoDbClient,
  createBedrockClient,
  createS3Client,
  createSesClient,
  createSfnClient,
  createSqsClient,
} from '../aws-clients';
import { loadApprovalSecrets, loadRuntimeConfig, runtimeEnvironment, type RuntimeConfig } from '../endpoints';
import { ApprovalLinkSigner, ApprovalService, SigningKeys, emailApprovers } from '../approvals';
import { DynamoDbLedgerStore, IdempotencyLedger } from '../idempotency';
import { RecordTable } from '../records';
import { EmfMetrics, noMetrics, type RuntimeMetrics } from '../metrics';
import { BedrockModelProvider, RecordedModelCall, ScriptedModelProvider, type ModelProvider } from '../models';
import { PayloadStore, S3BlobStore } from '../payloads';
import { OutboxEmailProvider, SesEmailProvider, type EmailProvider } from '../tools';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { SQSClient } from '@aws-sdk/client-sqs';

/** One configuration's parts, each built by the functions below at first use and kept. */
export class Runtime {
  /** EMF lines, unless the function's environment turns Powertools metrics off (Powertools itself reads only `process.env`). */
  readonly metrics: RuntimeMetrics;
  private readonly parts = new Map<string, unknown>();

  /** @param env the environment the configuration was read from: its clients read their endpoints from it too */
  constructor(
    readonly config: RuntimeConfig,
    readonly env: NodeJS.ProcessEnv = runtimeEnvironment(),
  ) {
    this.metrics = env.POWERTOOLS_METRICS_DISABLED === 'true' ? noMetrics : new EmfMetrics();
  }

  /** The part called `name`, made by `make` the first time it is asked for. */
  part<T>(name: string, make: () => T): T {
    if (!this.parts.has(name)) this.parts.set(name, make());
    return this.parts.get(name) as T;
  }
}

/** The DynamoDB client (one per runtime, shared by the record table and the ledger). */
export const dynamoDb = (rt: Runtime): DynamoDBClient => rt.part('dynamodb', () => createDynamoDbClient(rt.env));
/** The runtime's record table. */
export const recordTable = (rt: Runtime): RecordTable =>
  rt.part('table', () => new RecordTable(dynamoDb(rt), rt.config.table));
/** The payload store over the S3 bucket. */
export const payloadStore = (rt: Runtime): PayloadStore =>
  rt.part(
    'payloads',
    () => new PayloadStore({ blobs: new S3BlobStore(createS3Client(rt.env), rt.config.bucket), metrics: rt.metrics }),
  );
/** The idempotency ledger over the table. */
export const ledger = (rt: Runtime): IdempotencyLedger =>
  rt.part(
    'ledger',
    () => new IdempotencyLedger({ store: new DynamoDbLedgerStore(dynamoDb(rt), rt.config.table), metrics: rt.metrics }),
  );
/** SES when configured, else the outbox directory. */
export const emailProvider = (rt: Runtime): EmailProvider =>
  rt.part('email', () =>
    rt.config.emailProvider === 'ses'
      ? new SesEmailProvider(createSesClient(rt.env), rt.config.emailFrom)
      : new OutboxEmailProvider(rt.config.outboxDir),
  );
/** Bedrock when configured, else the scripted model. */
export const modelProvider = (rt: Runtime): ModelProvider =>
  rt.part('modelProvider', () =>
    rt.config.modelProvider === 'bedrock'
      ? new BedrockModelProvider(createBedrockClient(rt.env), rt.config.modelId)
      : rt.config.modelScript
        ? ScriptedModelProvider.fromFile(rt.config.modelScript)
        : ScriptedModelProvider.unconfigured(),
  );
/** The recorded model call (one model call per execution, step and turn) over the configured provider. */
export const modelCall = (rt: Runtime): RecordedModelCall => modelCallWith(rt, modelProvider(rt));

const providerIds = new WeakMap<ModelProvider, number>();
let nextProviderId = 0;
/** The recorded model call over `provider` (a `modelStepHandler`'s own), one per provider and runtime. */
export function modelCallWith(rt: Runtime, provider: ModelProvider): RecordedModelCall {
  let id = providerIds.get(provider);
  if (id === undefined) providerIds.set(provider, (id = nextProviderId++));
  return rt.part(
    `model#${id}`,
    () => new RecordedModelCall({ provider, table: recordTable(rt), payloads: payloadStore(rt), metrics: rt.metrics }),
  );
}
/** The Step Functions client. */
export const sfnClient = (rt: Runtime): SFNClient => rt.part('sfn', () => createSfnClient(rt.env));
/** The SQS client. */
export const sqsClient = (rt: Runtime): SQSClient => rt.part('sqs', () => createSqsClient(rt.env));

/** The approval signing keys: read on first use, again after their TTL or on a link that does not verify; a failed read is not kept. */
export const signingKeys = (rt: Runtime): SigningKeys =>
  rt.part('signingKeys', () => new SigningKeys({ load: () => loadApprovalSecrets(rt.config) }));

/** The approval service over the current signing keys (a new one when the keys changed). */
export async function approvalService(rt: Runtime): Promise<ApprovalService> {
  const keys = await signingKeys(rt).current();
  const current = rt.part('approvals', () => ({
    value: undefined as { readonly id: string; readonly service: ApprovalService } | undefined,
  }));
  const id = keys.join(',');
  if (current.value?.id !== id) {
    current.value = {
      id,
      service: new ApprovalService({
        table: recordTable(rt),
        signer: new ApprovalLinkSigner(keys),
        sfn: sfnClient(rt),
        baseUrl: rt.config.approvalBaseUrl,
        metrics: rt.metrics,
        // The email client is made at the first notice: approval-endpoint never sends one.
        notify: (approval, url) => emailApprovers(emailProvider(rt))(approval, url),
        reverify: async (approvalId, sig, nowMillis) =>
          new ApprovalLinkSigner(await signingKeys(rt).refresh()).verify(approvalId, sig, nowMillis),
      }),
    };
  }
  return current.value.service;
}

const runtimes = new Map<string, Runtime>();

/** The runtime for the current environment (rebuilt when the configuration or endpoints change). */
export function currentRuntime(env: NodeJS.ProcessEnv = runtimeEnvironment()): Runtime {
  const config = loadRuntimeConfig(env);
  const endpoints = Object.entries(env).filter(([k]) => k.startsWith('AWS_ENDPOINT_URL') || k === 'AWS_REGION');
  const id = JSON.stringify([config, endpoints]);
  let runtime = runtimes.get(id);
  if (!runtime) runtimes.set(id, (runtime = new Runtime(config, env)));
  return runtime;
}

/** The part of a Lambda context the handlers read. */
export interface LambdaContextLike {
  getRemainingTimeInMillis?(): number;
}

/** A handler body: the event, the runtime, the Lambda context. */
export type HandlerBody<E, R> = (event: E, runtime: Runtime, context?: LambdaContextLike) => Promise<R>;

/** Wraps a handler: runs it with the current runtime and flushes metrics as one EMF line whatever the outcome. */
export function lambdaHandler<E, R>(body: HandlerBody<E, R>): (event: E, context?: LambdaContextLike) => Promise<R> {
  return async (event, context) => {
    const runtime = currentRuntime();
    try {
      return await body(event, runtime, context);
    } finally {
      runtime.metrics.flush();
    }
  };
}

/** A body whose result is made to fit the inline limit (largest values by reference, see PayloadStore.shrinkToFit). */
export function offloadingLargeResult<E, R>(body: HandlerBody<E, R>): HandlerBody<E, R> {
  return async (event, runtime, context) =>
    (await payloadStore(runtime).shrinkToFit(await body(event, runtime, context))) as R;
}
