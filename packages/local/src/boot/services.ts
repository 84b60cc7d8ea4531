import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ServicePorts } from '@autosave/engine';
import type { InProcessLambdaRunner } from '../services/lambda/lambda-runner';
import type { RecordedDecisions } from '../services/recorded-decisions';
import type { StackMode, StackIamEnforcement } from '../stack';

/** What the engine reaches only once `startLocal` brought it up: the functions and the other local services. */
export interface LocalServices {
  readonly lambdas: InProcessLambdaRunner;
  readonly sqsClient: SQSClient;
  readonly dynamodbClient: DynamoDBClient;
  readonly s3Client: S3Client;
  readonly ports: ServicePorts;
  readonly decisions?: RecordedDecisions;
  readonly stack?: StackMode;
  readonly iam?: StackIamEnforcement;
}

/** {@link LocalServices} to come: `services` resolves with `up`, or rejects with `failed`. */
export interface DeferredServices {
  readonly services: Promise<LocalServices>;
  readonly up: (s: LocalServices) => void;
  readonly failed: (err: unknown) => void;
}

/**
 * The promise of the functions and services, made before the engine that reaches them through it: a run the engine
 * resumes before they are up waits for them at its first call.
 */
export function deferredServices(): DeferredServices {
  let up!: (s: LocalServices) => void;
  let failed!: (err: unknown) => void;
  const services = new Promise<LocalServices>((res, rej) => {
    up = res;
    failed = rej;
  });
  services.catch(() => undefined); // startLocal itself fails with its error
  return { services, up, failed };
}

/** The local targets `http:invoke` may call, and the engine's own ports it may not. */
export interface Outbound {
  allowed: string[];
  ownPorts: number[];
}

/**
 * The engine's ports to SNS, EventBridge, CloudWatch, the models, the HTTP connections and `http:invoke`: each
 * call waits for `services`, so that the engine can be made before them.
 */
export function servicePorts(
  services: Promise<LocalServices>,
  allowOutbound: readonly string[] | undefined,
): { ports: ServicePorts; outbound: Outbound } {
  const later =
    <K extends keyof ServicePorts>(key: K) =>
    (...args: unknown[]) =>
      services.then((s) =>
        (s.ports[key] as unknown as Record<string, (...a: unknown[]) => unknown>)[
          key === 'models' ? 'invokeModel' : key === 'httpConnections' ? 'resolve' : 'call'
        ](...args),
      );
  // Known once the integrations file is read and the servers listen; read at each http:invoke call.
  const outbound: Outbound = { allowed: [...(allowOutbound ?? [])], ownPorts: [] as number[] };
  const ports = {
    http: {
      get allowedTargets() {
        return outbound.allowed;
      },
      ownPorts: () => outbound.ownPorts,
    },
    sns: { call: later('sns') },
    eventbridge: { call: later('eventbridge') },
    cloudwatch: { call: later('cloudwatch') },
    models: { invokeModel: later('models') },
    httpConnections: { resolve: later('httpConnections') },
  } as ServicePorts;
  return { ports, outbound };
}
