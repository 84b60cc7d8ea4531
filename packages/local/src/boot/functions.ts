import { join } from 'node:path';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, type Clock } from '@autosave/workflow/config';
import type { Workflow } from '@autosave/workflow';
import type { MockTestCases } from '@autosave/engine';
import type { LocalApiServer } from '../api/server';
import type { LocalDynamoDbDoor } from '../services/dynamodb-door';
import { InProcessLambdaRunner, type LocalFunction } from '../services/lambda/lambda-runner';
import { registryFunctions, TOOL_STEP_FUNCTION } from '../services/lambda/registry-functions';
import { loadUserFunctions, userFunctions, type UserFunctionExport } from '../services/lambda/user-functions';
import type { LocalS3 } from '../services/s3';
import type { StackMode } from '../stack';
import { checkWorkflowTools } from '../project';
import { DATA_LAYOUT } from './data-directory';
import type { StartLocalOptions } from './options';
import type { Shutdown } from './shutdown';

/**
 * The stack mode, when booted from a cloud assembly (else none: the registry path). The two paths differ only
 * here and in {@link buildFunctions}: where definitions and functions come from. Made once the storage listens and
 * the functions' environment is known; its resources are deployed later, once the services are up.
 */
export async function openStack(boot: {
  readonly options: StartLocalOptions;
  readonly dataDir: string;
  readonly api: LocalApiServer;
  readonly dynamodb: LocalDynamoDbDoor;
  readonly s3: LocalS3;
  readonly clock: Clock;
  readonly environment: NodeJS.ProcessEnv;
  readonly shutdown: Shutdown;
}): Promise<StackMode | undefined> {
  const { options, dataDir, api, dynamodb, s3, clock, environment, shutdown } = boot;
  // The two paths differ only here: where definitions and functions come from.
  const stack = options.stack
    ? new (await import('../stack')).StackMode({
        dataDir: join(dataDir, DATA_LAYOUT.stack),
        region: LOCAL_REGION,
        account: LOCAL_ACCOUNT_ID,
        endpoints: () => ({
          url: api.url,
          dynamodb: dynamodb.endpoint,
          s3: s3.endpoint,
          region: LOCAL_REGION,
          dataDir,
        }),
        nowMillis: () => clock.now(),
        environment,
      })
    : undefined;
  if (stack) shutdown.add(() => stack.stop());
  return stack;
}

/**
 * The in-process functions: the registry's (none in stack mode, whose functions come from its assembly), the
 * given ones, then the module's; the workflows to deploy are checked against the tool-step's tools. Built after
 * the stack mode, whose function source they read, and before the deploy.
 */
export async function buildFunctions(boot: {
  readonly stack: StackMode | undefined;
  readonly functionsGiven: Readonly<Record<string, UserFunctionExport>> | undefined;
  readonly functionsModule: string | undefined;
  readonly environment: NodeJS.ProcessEnv;
  readonly options: StartLocalOptions;
  readonly workflows: readonly Workflow[];
  readonly dataDir: string;
  readonly mockConfig: MockTestCases | undefined;
  readonly label: string | undefined;
  readonly shutdown: Shutdown;
}): Promise<InProcessLambdaRunner> {
  const { stack, functionsGiven, functionsModule, environment, shutdown } = boot;
  const { options, workflows, dataDir, mockConfig, label } = boot;
  const registry = stack ? [] : registryFunctions();
  const functions: LocalFunction[] = [...registry];
  if (functionsGiven) functions.push(...userFunctions(functionsGiven));
  // Later entries win: a module named on the command line (`--functions`) over the project's own table.
  if (functionsModule) functions.push(...(await loadUserFunctions(functionsModule)));
  // A workflow naming a tool the tool-step lacks is refused now, as the construct refuses it at synth, not
  // when a run reaches that step. In stack mode the stack's own synth did that; workflows not deployed run nothing.
  if (!stack && options.deployWorkflows !== false) {
    const toolStep = functions.findLast((f) => f.name === TOOL_STEP_FUNCTION);
    const builtIn = toolStep === undefined || registry.includes(toolStep);
    await checkWorkflowTools({
      workflows,
      toolStep: builtIn ? { builtIn: true } : { builtIn: false, loadHandler: async () => toolStep.load() },
      dataDir,
      environment,
      mocked: (workflow, step) => mockConfig?.mocksState?.(workflow, step) ?? false,
      where: label ?? 'autosave local',
    });
  }
  const runner = new InProcessLambdaRunner({
    functions,
    sources: stack ? [stack.functionSource] : [],
    environment,
    environmentScope: options.ownsProcess ? 'process' : 'invocation',
  });
  shutdown.add(() => runner.close());
  return runner;
}
