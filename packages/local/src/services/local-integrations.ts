/**
 * The emulated services `autosave local` gives its engine (EngineOptions.integrations): SNS, EventBridge,
 * CloudWatch metrics, the model provider for `bedrock:invokeModel`, the HTTP connections file for
 * `http:invoke`, and the pass-through routes — all delivering through one {@link DeliveryTargets}.
 * Configured by `<data>/integrations.json` (or `--integrations <file>`):
 *
 *     { "passThrough": { "glue": {}, "athena": { "endpoint": "http://127.0.0.1:4566", "region": "us-east-1" } },
 *       "connections": { "<connection ARN or name>": { "AuthorizationType": "API_KEY", "AuthParameters": { ... } } },
 *       "outbound": { "allow": ["127.0.0.1:8080"] } }
 *
 * and `--pass-through <service>[=<endpoint>],...`, which adds to the file's routes, and `--allow-outbound
 * <host>[:<port>],...`, which adds to the local targets `http:invoke` may call (docs/integrations.md).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '@autosave/workflow/config';
import type { LambdaInvoker, ServicePorts } from '@autosave/engine';
import { LocalCloudWatch } from './cloudwatch';
import { FileConnections } from './connections';
import { DeliveryTargets, localQueueSender } from './delivery';
import { LocalEventBridge } from './eventbridge';
import { LocalModels } from './models';
import { checkPassThroughRoutes, SdkPassThrough, type PassThroughRoute } from './pass-through';
import { LocalSns } from './sns';
import type { LocalSqs } from './sqs/local-sqs';

/** Options of {@link localIntegrations}. */
export interface LocalIntegrationsOptions {
  readonly dataDir: string;
  readonly clock: Clock;
  readonly sqs: LocalSqs;
  readonly invokeLambda: LambdaInvoker;
  /** StartExecution on the engine (EventBridge rules targeting a state machine). */
  readonly startExecution: (stateMachineArn: string, input: string) => Promise<void>;
  /** `AUTOSAVE_MODEL_PROVIDER` and `AUTOSAVE_MODEL_SCRIPT`, as the runtime reads them. */
  readonly modelProvider: 'scripted' | 'bedrock';
  readonly modelScript?: string;
  /** The configuration file. @default `<dataDir>/integrations.json` (absent: nothing routed, no connections) */
  readonly file?: string;
  /** Routes added to the file's (`--pass-through`). */
  readonly passThrough?: Readonly<Record<string, PassThroughRoute>>;
}

/** What {@link localIntegrations} starts. */
export interface LocalIntegrations {
  readonly ports: ServicePorts;
  readonly sns: LocalSns;
  readonly eventbridge: LocalEventBridge;
  readonly cloudwatch: LocalCloudWatch;
  readonly passThrough: SdkPassThrough;
  /** The file's `outbound.allow`: local targets `http:invoke` may call (`host` or `host:port`). */
  readonly allowOutbound: readonly string[];
  /** Waits for the deliveries under way. */
  settled(): Promise<void>;
}

/** How long a model call through Bedrock may wait for its answer. */
const MODEL_CALL_TIMEOUT_MILLIS = 300_000;

export function localIntegrations(options: LocalIntegrationsOptions): LocalIntegrations {
  const file = options.file ?? join(options.dataDir, 'integrations.json');
  let config: { passThrough?: Record<string, PassThroughRoute>; outbound?: { allow?: unknown } } = {};
  try {
    config = JSON.parse(readFileSync(file, 'utf8')) as typeof config;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new Error(`autosave local: ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const targets = new DeliveryTargets({
    sendToQueue: localQueueSender(options.sqs),
    invokeLambda: options.invokeLambda,
    startExecution: options.startExecution,
    outboxDir: join(options.dataDir, 'outbox'),
  });
  const sns = new LocalSns({ targets, file: join(options.dataDir, 'sns.json'), clock: options.clock });
  const eventbridge = new LocalEventBridge({
    targets,
    file: join(options.dataDir, 'eventbridge.json'),
    clock: options.clock,
    publishToTopic: async (topicArn, message, delivery) => void sns.publishFromRule(topicArn, message, delivery),
  });
  const cloudwatch = new LocalCloudWatch({ file: join(options.dataDir, 'metrics.jsonl'), clock: options.clock });
  checkPassThroughRoutes(config.passThrough ?? {}, file);
  checkPassThroughRoutes(options.passThrough ?? {}, '--pass-through');
  const passThrough = new SdkPassThrough({ routes: { ...(config.passThrough ?? {}), ...(options.passThrough ?? {}) } });
  // A model answers in one piece once it has written it all, which may take minutes: its own, longer bound.
  const models =
    options.modelProvider === 'bedrock'
      ? new LocalModels({
          provider: 'bedrock',
          passThrough: new SdkPassThrough({ routes: { bedrockruntime: { timeoutMillis: MODEL_CALL_TIMEOUT_MILLIS } } }),
        })
      : new LocalModels({ provider: 'scripted', ...(options.modelScript ? { scriptFile: options.modelScript } : {}) });
  return {
    ports: { sns, eventbridge, cloudwatch, models, httpConnections: new FileConnections(file), passThrough },
    sns,
    eventbridge,
    cloudwatch,
    passThrough,
    allowOutbound: outboundAllowOf(config.outbound, file),
    settled: () => targets.settled(),
  };
}

/** The file's `outbound.allow`, checked: a list of `host` or `host:port` strings. */
function outboundAllowOf(outbound: { allow?: unknown } | undefined, file: string): string[] {
  const allow = outbound?.allow;
  if (allow === undefined) return [];
  if (!Array.isArray(allow) || !allow.every((t) => typeof t === 'string' && t.length > 0)) {
    throw new Error(
      `autosave local: ${file}: outbound.allow must be a list of local targets, "host" or "host:port" (e.g. ["127.0.0.1:8080"])`,
    );
  }
  return allow as string[];
}
