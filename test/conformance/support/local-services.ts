/**
 * The engine's emulated services for one conformance test file (SNS, EventBridge, and the SQS queue, Lambda functions and
 * outbox they deliver to): call before `recordedEngine`, hand `engineOptions` to it, and await
 * `settled()` before looking at what was delivered.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { EngineOptions } from '../../../packages/engine/src';
import { DeliveryTargets, localQueueSender } from '../../../packages/local/src/services/delivery';
import { parseFunctionName } from '../../../packages/local/src/services/lambda/function-name';
import { LocalEventBridge } from '../../../packages/local/src/services/eventbridge';
import { LocalSns } from '../../../packages/local/src/services/sns';
import { LocalSqs } from '../../../packages/local/src/services/sqs/local-sqs';
import { OutboxEmailProvider } from '../../../packages/runtime/src/tools';
import { testInvoker, type TestFunction } from '../../../packages/engine/test/support/engine-harness';

/** Starts the services with `functions` as the Lambdas subscribers name (by name or ARN). */
export function localServicesForTests(
  functions: Record<string, TestFunction>,
  extra: { startExecution?: (arn: string, input: string) => Promise<void> } = {},
) {
  const engineOptions: Partial<EngineOptions> = {};
  const fixture = {
    engineOptions,
    dir: '',
    sqs: undefined as unknown as LocalSqs,
    sns: undefined as unknown as LocalSns,
    eventbridge: undefined as unknown as LocalEventBridge,
    targets: undefined as unknown as DeliveryTargets,
    errors: [] as string[],
    /** Creates a local queue, answering its ARN and a reader of its bodies. */
    async queue(name: string) {
      await fixture.sqs.handle('CreateQueue', { QueueName: name });
      return {
        arn: fixture.sqs.queueArn(name),
        bodies: async (): Promise<string[]> => {
          const out = (await fixture.sqs.handle('ReceiveMessage', {
            QueueUrl: fixture.sqs.queueUrl(name),
            MaxNumberOfMessages: 10,
          })) as { Messages?: { Body: string }[] };
          return (out.Messages ?? []).map((m) => m.Body);
        },
      };
    },
    outbox: () => new OutboxEmailProvider(join(fixture.dir, 'outbox')).list(),
    settled: () => fixture.targets.settled(),
  };
  beforeAll(async () => {
    fixture.dir = await mkdtemp(join(tmpdir(), 'autosave-conformance-services-'));
    fixture.sqs = new LocalSqs({ file: join(fixture.dir, 'sqs.sqlite') });
    const invoke = testInvoker(functions, new Map());
    fixture.targets = new DeliveryTargets({
      sendToQueue: localQueueSender(fixture.sqs),
      invokeLambda: (req) => invoke({ ...req, functionName: parseFunctionName(req.functionName).name }),
      outboxDir: join(fixture.dir, 'outbox'),
      logError: (m) => fixture.errors.push(m),
      ...(extra.startExecution ? { startExecution: extra.startExecution } : {}),
    });
    fixture.sns = new LocalSns({ targets: fixture.targets, file: join(fixture.dir, 'sns.json') });
    fixture.eventbridge = new LocalEventBridge({
      targets: fixture.targets,
      file: join(fixture.dir, 'eventbridge.json'),
      publishToTopic: async (topicArn, message, delivery) =>
        void fixture.sns.publishFromRule(topicArn, message, delivery),
    });
    Object.assign(engineOptions, { integrations: { sns: fixture.sns, eventbridge: fixture.eventbridge } });
  });
  afterAll(async () => {
    await fixture.targets?.settled();
    fixture.sqs?.close();
    if (fixture.dir) await rm(fixture.dir, { recursive: true, force: true });
  });
  return fixture;
}
