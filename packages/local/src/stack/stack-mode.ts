import { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createIamEvaluator } from '../cloud-assembly';
import type { AwsJsonService } from '../api/aws-json-protocol';
import type { LambdaInvoker } from '@autosave/engine';
import type { FunctionSource } from '../services/lambda/lambda-runner';
import { StackStore } from '@autosave/engine/store';
import { deployStack, type StackDeployment } from './deploy-stack';
import { StackIamEnforcement } from './iam-enforcement';
import { LocalSecrets } from './local-secrets';
import type { LocalQueues, LocalServiceApi, StepFunctionsApi } from './resource-handlers';
import { parameterStoreService, secretsManagerService } from './secrets-service';
import { StackFunctions, withEngineUrl } from './stack-functions';
import { sandboxEnvironment, StackRuntime, type SandboxEndpoints } from './stack-runtime';

/** Options of {@link StackMode}. */
export interface StackModeOptions {
  readonly dataDir: string;
  readonly region: string;
  readonly account: string;
  /** Where the sandboxes find the local services (known once they listen). */
  readonly endpoints: () => SandboxEndpoints;
  readonly nowMillis: () => number;
  /** Where the sandboxes' passed-through variables (SANDBOX_PASSTHROUGH) come from. @default `process.env` */
  readonly environment?: NodeJS.ProcessEnv;
}

/** What the engine was given when the stack mode is bound to it. */
export interface StackModeBinding {
  readonly sfn: StepFunctionsApi;
  readonly sqs: LocalQueues;
  /** The local SNS and EventBridge (the stack's topics, subscriptions, buses and rules go there). */
  readonly sns: LocalServiceApi;
  readonly eventbridge: LocalServiceApi;
  readonly dynamodb: DynamoDBClient;
  readonly invoke: LambdaInvoker;
}

/** An assembly deployed on the engine: what `GET /_autosave/stack` answers and the console shows. */
export interface StackSummary {
  readonly stackName: string;
  readonly assemblyId: string;
  readonly assemblyDir: string;
  /** Whether the last deployment finished (false: a kill cut it off; deploy again to complete it). */
  readonly complete: boolean;
  readonly resources: readonly {
    logicalId: string;
    type: string;
    physicalId: string;
    assemblyId: string;
    state: string;
  }[];
  readonly functions: readonly { name: string; version: string; codeSha: string; assemblyId: string }[];
}

/**
 * The engine running a cloud assembly: the local Lambda service with a sandbox per function version,
 * the stack's secrets behind local Parameter Store and Secrets Manager endpoints, its event rules and
 * Function URL, and `deploy` (what `autosave deploy --local` calls), one deploy at a time.
 */
export class StackMode {
  readonly store: StackStore;
  readonly secrets: LocalSecrets;
  readonly functions: StackFunctions;
  private runtime?: StackRuntime;
  private binding?: StackModeBinding;
  private s3?: S3Client;
  private deploying: Promise<unknown> = Promise.resolve();
  private iam?: StackIamEnforcement;

  constructor(private readonly options: StackModeOptions) {
    this.store = new StackStore(options.dataDir);
    this.secrets = new LocalSecrets(options.dataDir);
    this.functions = new StackFunctions({
      store: this.store,
      dataDir: options.dataDir,
      engineUrl: () => options.endpoints().url,
      sandboxEnvironment: (vars) => sandboxEnvironment(vars, options.endpoints(), options.environment),
    });
  }

  /** The function versions, for the Lambda runner. */
  get functionSource(): FunctionSource {
    return this.functions;
  }

  /** Services the engine port serves for the stack's functions. */
  services(): AwsJsonService[] {
    return [parameterStoreService(this.secrets), secretsManagerService(this.secrets)];
  }

  /**
   * Turns on `--enforce-iam`: loads the IAM policy simulator (on demand: it is an AGPL devDependency) and
   * returns what judges the engine's Task calls against the stack's roles. Call before the engine starts.
   * @throws IamSimulatorUnavailableError when the simulator is not installed
   */
  async enforceIam(): Promise<StackIamEnforcement> {
    const evaluator = await createIamEvaluator();
    this.iam = new StackIamEnforcement({
      store: this.store,
      evaluator,
      environment: { partition: 'aws', region: this.options.region, account: this.options.account },
      stackName: () => this.store.lastDeployment()?.stack,
    });
    return this.iam;
  }

  /** Binds the engine and services (once they exist) and starts the rollout clock. */
  bind(binding: StackModeBinding): void {
    this.binding = binding;
    const endpoints = this.options.endpoints();
    this.s3 = new S3Client({
      region: this.options.region,
      endpoint: endpoints.s3,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    this.runtime = new StackRuntime({
      store: this.store,
      invoke: binding.invoke,
      sfn: binding.sfn,
      nowMillis: this.options.nowMillis,
    });
    this.runtime.start();
  }

  /** The EventBridge emulation: the engine hands every closed run's status-change event here. */
  readonly onExecutionClosed = async (event: Record<string, unknown>): Promise<void> => {
    await this.runtime?.deliver(event);
  };

  /** The function serving `/approvals/*` (the stack's Function URL target). */
  functionUrlTarget(): string | undefined {
    return this.runtime?.functionUrlTarget();
  }

  /** Applies an assembly as a CloudFormation update; deploys run one after another. */
  deploy(
    assemblyDir: string,
    options: { stackName?: string; afterResource?: (n: number) => void } = {},
  ): Promise<StackDeployment> {
    const binding = this.binding;
    if (!binding || !this.s3) throw new Error('The stack mode is not bound to an engine yet');
    const s3 = this.s3;
    const run = this.deploying
      .then(() =>
        deployStack(
          {
            sfn: binding.sfn,
            sqs: binding.sqs,
            sns: binding.sns,
            eventbridge: binding.eventbridge,
            dynamodb: binding.dynamodb,
            s3,
            functions: this.functions,
            store: this.store,
            secrets: this.secrets,
            region: this.options.region,
            account: this.options.account,
            engineUrl: () => this.options.endpoints().url,
            nowMillis: this.options.nowMillis,
          },
          {
            assemblyDir,
            ...options,
            // A policy takes effect once its resource is applied, as IAM's does mid-update on AWS.
            afterResource: (n) => {
              this.iam?.invalidate();
              options.afterResource?.(n);
            },
          },
        ),
      )
      .finally(() => this.iam?.invalidate());
    this.deploying = run.catch(() => undefined);
    return run;
  }

  /** A stack output's value, resolved to local values (e.g. `DeadLetterQueueUrl`). */
  output(name: string): string | undefined {
    const outputs = this.store.lastCompleteDeployment()?.outputs;
    const value = outputs ? (JSON.parse(outputs) as Record<string, string>)[name] : undefined;
    return value === undefined ? undefined : withEngineUrl(value, this.options.endpoints().url);
  }

  /** Which assembly runs, and which assembly produced each resource and function version. */
  summary(): StackSummary | undefined {
    const last = this.store.lastDeployment();
    if (!last) return undefined;
    return {
      stackName: last.stack,
      assemblyId: last.assembly_id,
      assemblyDir: last.assembly_dir,
      complete: last.status === 'COMPLETE',
      resources: this.store.resources().map((r) => ({
        logicalId: r.logical_id,
        type: r.type,
        physicalId: r.physical_id,
        assemblyId: r.assembly_id,
        state: r.state,
      })),
      functions: [
        ...this.store
          .lambdaFunctions()
          .map((f) => ({ name: f.name, version: '$LATEST', codeSha: f.code_sha, assemblyId: f.assembly_id })),
        ...this.store
          .lambdaVersions()
          .map((v) => ({ name: v.name, version: String(v.version), codeSha: v.code_sha, assemblyId: v.assembly_id })),
      ],
    };
  }

  /** Before the engine stops: no new deliveries or rollout steps; those under way finish (bounded). */
  async quiesce(): Promise<void> {
    await this.deploying;
    await this.runtime?.stop();
  }

  /** After the engine stopped: ends the sandboxes and closes the store. */
  async stop(): Promise<void> {
    await this.quiesce();
    await this.functions.stop();
    this.s3?.destroy();
    this.store.close();
  }
}
