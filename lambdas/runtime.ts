/**
 * The composition root of the Lambda handlers: builds the lib objects from the environment once per
 * configuration (a Lambda container reuses them across invocations; the local engine, which runs every
 * handler in one process, gets one set per configuration). Wiring only; every rule lives in lib/.
 */
import {
  createDynamoDbClient,
  createBedrockClient,
  createS3Client,
  createSesClient,
  createSfnClient,
  createSqsClient,
  loadApprovalSecrets,
  loadRuntimeConfig,
  type RuntimeConfig,
} from '../lib/endpoints';
import { ApprovalLinkSigner, ApprovalService, SigningKeys, emailApprovers } from '../lib/approvals';
import { DynamoDbLedgerStore, IdempotencyLedger } from '../lib/idempotency';
import { RecordTable } from '../lib/records';
import { EmfMetrics } from '../lib/metrics';
import { BedrockModelProvider, RecordedModelCall, ScriptedModelProvider, type ModelProvider } from '../lib/models';
import { PayloadStore, S3BlobStore } from '../lib/payloads';
import {
  OutboxEmailProvider,
  SesEmailProvider,
  createToolRegistry,
  type EmailProvider,
  type ToolRegistry,
} from '../lib/tools';
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { SQSClient } from '@aws-sdk/client-sqs';

/** Everything a handler may use, built lazily. */
export class Runtime {
  readonly metrics = new EmfMetrics();
  private readonly cache = new Map<string, unknown>();

  constructor(readonly config: RuntimeConfig) {}

  private once<T>(name: string, make: () => T): T {
    if (!this.cache.has(name)) this.cache.set(name, make());
    return this.cache.get(name) as T;
  }

  get table(): RecordTable {
    return this.once('table', () => new RecordTable(createDynamoDbClient(), this.config.table));
  }
  get payloads(): PayloadStore {
    return this.once('payloads', () => new PayloadStore({ blobs: new S3BlobStore(createS3Client(), this.config.bucket), metrics: this.metrics }));
  }
  get ledger(): IdempotencyLedger {
    return this.once('ledger', () => new IdempotencyLedger({ store: new DynamoDbLedgerStore(createDynamoDbClient(), this.config.table), metrics: this.metrics }));
  }
  get emailProvider(): EmailProvider {
    return this.once('email', () =>
      this.config.emailProvider === 'ses' ? new SesEmailProvider(createSesClient(), this.config.emailFrom) : new OutboxEmailProvider(this.config.outboxDir),
    );
  }
  get tools(): ToolRegistry {
    return this.once('tools', () => createToolRegistry({ emailProvider: this.emailProvider, actionsDir: this.config.actionsDir }));
  }
  get modelProvider(): ModelProvider {
    return this.once('modelProvider', () =>
      this.config.modelProvider === 'bedrock'
        ? new BedrockModelProvider(createBedrockClient(), this.config.modelId)
        : ScriptedModelProvider.fromFile(this.config.modelScript),
    );
  }
  get model(): RecordedModelCall {
    return this.once('model', () => new RecordedModelCall({ provider: this.modelProvider, table: this.table, payloads: this.payloads, metrics: this.metrics }));
  }
  get sfn(): SFNClient {
    return this.once('sfn', () => createSfnClient());
  }
  get sqs(): SQSClient {
    return this.once('sqs', () => createSqsClient());
  }
  /** The approval signing keys: read on first use, again after their TTL or on a link that does not verify; a failed read is not kept. */
  get signingKeys(): SigningKeys {
    return this.once('signingKeys', () => new SigningKeys({ load: () => loadApprovalSecrets(this.config) }));
  }
  /** The approval service over the current signing keys (a new one when the keys changed). */
  get approvals(): Promise<ApprovalService> {
    return this.signingKeys.current().then((keys) => {
      const id = `approvals:${keys.join(',')}`;
      if (this.approvalService?.id !== id) this.approvalService = { id, service: this.approvalServiceFor(keys) };
      return this.approvalService.service;
    });
  }
  private approvalService?: { readonly id: string; readonly service: ApprovalService };

  private approvalServiceFor(keys: readonly string[]): ApprovalService {
    return new ApprovalService({
      table: this.table,
      signer: new ApprovalLinkSigner(keys),
      sfn: this.sfn,
      baseUrl: this.config.approvalBaseUrl,
      metrics: this.metrics,
      notify: emailApprovers(this.emailProvider),
      reverify: async (approvalId, sig, nowMillis) => new ApprovalLinkSigner(await this.signingKeys.refresh()).verify(approvalId, sig, nowMillis),
    });
  }
}

const runtimes = new Map<string, Runtime>();

/** The runtime for the current environment (rebuilt when the configuration or endpoints change). */
export function currentRuntime(env: NodeJS.ProcessEnv = process.env): Runtime {
  const config = loadRuntimeConfig(env);
  const endpoints = Object.entries(env).filter(([k]) => k.startsWith('AWS_ENDPOINT_URL') || k === 'AWS_REGION');
  const id = JSON.stringify([config, endpoints]);
  let runtime = runtimes.get(id);
  if (!runtime) runtimes.set(id, (runtime = new Runtime(config)));
  return runtime;
}

/** The part of a Lambda context the handlers read. */
export interface LambdaContextLike {
  getRemainingTimeInMillis?(): number;
}

/**
 * Wraps a handler: runs it with the current runtime, optionally makes a result over the inline limit fit
 * (largest values by reference, see PayloadStore.shrinkToFit), and flushes metrics as one EMF line
 * whatever the outcome.
 */
export function lambdaHandler<E, R>(
  body: (event: E, runtime: Runtime, context?: LambdaContextLike) => Promise<R>,
  options: { readonly offloadLargeResult?: boolean } = {},
): (event: E, context?: LambdaContextLike) => Promise<R> {
  return async (event, context) => {
    const runtime = currentRuntime();
    try {
      const result = await body(event, runtime, context);
      return options.offloadLargeResult ? ((await runtime.payloads.shrinkToFit(result)) as R) : result;
    } finally {
      runtime.metrics.flush();
    }
  };
}
