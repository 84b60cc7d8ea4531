import type { Clock } from '@autosave/workflow/config';
import type { Engine } from '@autosave/engine';
import type { RuntimeConfig } from '@autosave/runtime/endpoints';
import type { InProcessLambdaRunner } from '../services/lambda/lambda-runner';
import type { LocalIntegrations } from '../services/local-integrations';
import type { LocalSqs } from '../services/sqs/local-sqs';
import type { StackMode } from '../stack';
import type { EngineClients } from './clients';
import type { StartLocalOptions } from './options';
import type { Outbound } from './services';
import type { Shutdown } from './shutdown';

/**
 * Starts SNS, EventBridge, CloudWatch, bedrock:invokeModel, http:invoke and the pass-through (docs/integrations.md),
 * and says what reaches outside: once the functions are built (the integrations invoke them).
 */
export async function startIntegrations(boot: {
  readonly options: StartLocalOptions;
  readonly dataDir: string;
  readonly clock: Clock;
  readonly sqs: LocalSqs;
  readonly lambdas: InProcessLambdaRunner;
  readonly engine: Engine;
  readonly runtimeConfig: RuntimeConfig;
  readonly outbound: Outbound;
  readonly shutdown: Shutdown;
  readonly log: (line: string) => void;
}): Promise<LocalIntegrations> {
  const { options, dataDir, clock, sqs, lambdas, engine, runtimeConfig, outbound, shutdown, log } = boot;
  // SNS, EventBridge, CloudWatch, bedrock:invokeModel, http:invoke and the pass-through (docs/integrations.md).
  const integrations = (await import('../services/local-integrations')).localIntegrations({
    dataDir,
    clock,
    sqs,
    invokeLambda: lambdas.invoke,
    startExecution: async (stateMachineArn, input) =>
      void (await engine.handle('StartExecution', { stateMachineArn, input })),
    modelProvider: runtimeConfig.modelProvider,
    ...(runtimeConfig.modelScript ? { modelScript: runtimeConfig.modelScript } : {}),
    ...(options.integrationsFile ? { file: options.integrationsFile } : {}),
    ...(options.passThrough ? { passThrough: options.passThrough } : {}),
  });
  shutdown.add(() => integrations.settled());
  outbound.allowed = [...outbound.allowed, ...integrations.allowOutbound];
  if (outbound.allowed.length > 0) log(`http:invoke may call these local targets: ${outbound.allowed.join(', ')}`);
  const routed = integrations.passThrough.describe();
  if (routed.length > 0)
    log(`Pass-through (real calls, real side effects): ${routed.map((r) => `${r.service} -> ${r.to}`).join(', ')}`);
  for (const missing of await integrations.passThrough.missingClients())
    log(`  warning: ${missing.message} (its Tasks fail with Local.IntegrationNotServed until then)`);
  return integrations;
}

/** Gives the stack mode the services its resources reach: once the integrations are up, before its deploy. */
export async function bindStack(boot: {
  readonly stack: StackMode | undefined;
  readonly engine: Engine;
  readonly sqs: LocalSqs;
  readonly integrations: LocalIntegrations;
  readonly clients: EngineClients;
  readonly lambdas: InProcessLambdaRunner;
}): Promise<void> {
  const { stack, engine, sqs, integrations, clients, lambdas } = boot;
  if (stack)
    stack.bind({
      sfn: engine,
      sqs,
      sns: integrations.sns,
      eventbridge: integrations.eventbridge,
      dynamodb: await clients.dynamodbClientOf(),
      invoke: lambdas.invoke,
    });
}
