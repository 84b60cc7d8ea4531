import { App, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { AutosaveStack, deployOptionsFromContext, type FunctionSpec, type WorkflowSpec } from '@autosave/cdk';
import { exampleToolStep } from './registries';

/** The stack name when the context names none. */
export const DEFAULT_STACK_NAME = 'Autosave';

/** Options of {@link createAutosaveApp}. */
export interface CreateAutosaveAppOptions {
  /** The runtime functions and their code (tests replace them). @default every built-in function, the example's own tool-step */
  readonly functions?: readonly FunctionSpec[];
  /** The workflows (statemachines/index.ts through `registeredWorkflowSpecs`). */
  readonly workflows: readonly WorkflowSpec[];
  /** App props (tests pass context here; `cdk` passes it through the environment). @default none */
  readonly app?: AppProps;
}

/** The app and its one stack, with the cdk-nag packs registered. */
export interface AutosaveApp {
  readonly app: App;
  readonly stack: AutosaveStack;
  /** The AwsSolutions pack. */
  readonly nag: AwsSolutionsChecks;
  /** The Serverless pack. */
  readonly serverlessNag: ServerlessChecks;
}

/**
 * Builds the CDK app: one {@link AutosaveStack} (environment-agnostic, so `cdk synth` needs no
 * credentials), deploy options from context (`-c autosave:rollout=canary`, ...), and cdk-nag's
 * AwsSolutions and Serverless packs as validation plugins (a finding fails the synth unless acknowledged
 * with a reason).
 */
export function createAutosaveApp(options: CreateAutosaveAppOptions): AutosaveApp {
  const app = new App(options.app);
  const context = (key: string): unknown => app.node.tryGetContext(key);
  const stackName = (context('autosave:stackName') as string | undefined) || DEFAULT_STACK_NAME;
  const stack = new AutosaveStack(app, stackName, {
    description: 'Autosave: durable AI-agent workflows on AWS Step Functions',
    workflows: options.workflows,
    functions: options.functions,
    toolStep: exampleToolStep(),
    deploy: deployOptionsFromContext(context),
  });
  const nag = new AwsSolutionsChecks(app);
  const serverlessNag = new ServerlessChecks(app);
  Validations.of(app).addPlugins(nag, serverlessNag);
  return { app, stack, nag, serverlessNag };
}
