import type { SFNClient } from '@aws-sdk/client-sfn';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Workflow } from '@autosave/workflow';
import {
  createSfnClient,
  createSqsClient,
  DEFAULT_LOCAL_ENDPOINT,
  resolveAwsTarget,
  type AwsTarget,
} from './aws-clients';
import { CliUsageError } from './errors';
import { describeOperationError, engineClock, type EngineNow } from '../operations';
import { cliProject } from './project';

/** What a command works with: clients for the resolved endpoint and the project's workflow names. */
export interface CliContext {
  readonly sfn: SFNClient;
  readonly sfnTarget: AwsTarget;
  /** The SQS client for the dead-letter queue (made on first use). */
  sqs(): SQSClient;
  /** Names of the project's workflows (autosave.config.ts; empty when there is none). */
  registryNames(): Promise<string[]>;
  /** The project's workflows (autosave.config.ts; empty when there is none). */
  registryWorkflows(): Promise<readonly Workflow[]>;
  /** The engine's now, for durations of running runs and steps (undefined: omit them). */
  readonly engineNow: EngineNow;
}

let lastTarget: AwsTarget | undefined;
let lastEndpointFlag: string | undefined;

/** Builds the context from the standard AWS settings, an optional `--endpoint` and an optional `--config`. */
export function createCliContext(endpointFlag?: string, configFlag?: string): CliContext {
  lastEndpointFlag = endpointFlag;
  const sfnTarget = resolveAwsTarget('SFN', process.env, endpointFlag);
  lastTarget = sfnTarget;
  let sqs: SQSClient | undefined;
  const registryWorkflows = async (): Promise<readonly Workflow[]> => (await cliProject(configFlag))?.workflows ?? [];
  return {
    sfn: createSfnClient(sfnTarget),
    sfnTarget,
    engineNow: engineClock(sfnTarget.endpoint),
    sqs: () => (sqs ??= createSqsClient(resolveAwsTarget('SQS', process.env, endpointFlag))),
    registryNames: async () => (await registryWorkflows()).map((w) => w.name),
    registryWorkflows,
  };
}

/** One line for any error a command throws; connection failures say where the CLI looked and what to do. */
export function describeCliError(err: unknown): string {
  let line = describeOperationError(err, { endpoint: lastTarget?.description, plainNames: ['CliUsageError'] });
  // The commands an error suggests (`autosave approvals`) must reach the same engine when copied.
  if (lastEndpointFlag)
    line = line.replace(
      /`autosave ([^`]*)`/g,
      (_all, command: string) => `\`autosave ${command} --endpoint ${lastEndpointFlag}\``,
    );
  // A shell with AWS settings sends the CLI to AWS, not to the local engine: say so, or the error reads as the engine's.
  if (lastTarget?.awsBecause && !(err instanceof CliUsageError)) {
    line += ` (this call went to ${lastTarget.description} because ${lastTarget.awsBecause}; for the local engine pass --endpoint ${DEFAULT_LOCAL_ENDPOINT})`;
  }
  lastTarget = lastEndpointFlag = undefined;
  return line;
}
