/**
 * Shared harness of the whole-workflow tests: the real local engine (startLocal, port 0, a temp data dir,
 * virtual clock) with the real compiled workflows and the real Lambdas in-process, driven through
 * @aws-sdk/client-sfn and @aws-sdk/client-sqs against the engine's HTTP endpoint.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeExecutionCommand,
  ListExecutionsCommand,
  SFNClient,
  StartExecutionCommand,
  type DescribeExecutionCommandOutput,
  type ExecutionStatus,
  type HistoryEvent,
} from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_REGION, type Duration, LOCAL_CREDENTIALS } from '@autosave/workflow/config';
import { OutboxEmailProvider, type OutboxEmail } from '@autosave/runtime/tools';
import { startLocal, type LocalEngine, type StartLocalOptions } from '../../../../packages/local/src/server';
import { deployWorkflows, type WorkflowDeployment } from '../../../../packages/local/src/services/deploy-workflows';
import type { Workflow } from '@autosave/workflow';
import { getFullHistory } from '../../../../packages/local/src/operations';
import { eventually, POLL_DEADLINE_MILLIS } from '../../../fixtures/wait';
import { exampleApp } from '../../../fixtures/example-app';

/** A started engine with its clients. */
export interface WorkflowEngine {
  readonly local: LocalEngine;
  readonly sfn: SFNClient;
  readonly sqs: SQSClient;
  readonly dataDir: string;
  /** The `live` alias ARN of a deployed workflow. */
  aliasArn(workflow: string): string;
  /** Stops the engine and starts it again on the same data directory and port (runs in flight resume). */
  restart(): Promise<void>;
  /** Deploys one more workflow (e.g. a variant built in the test) behind its `live` alias. */
  deploy(workflow: Workflow): Promise<WorkflowDeployment>;
  /** Starts a run through the workflow's `live` alias. */
  start(workflow: string, name: string, input: unknown): Promise<string>;
  /** Moves the engine's virtual clock through its HTTP route (as a test client would). */
  advance(duration: Duration): Promise<void>;
  /** Every email the outbox provider recorded. */
  outbox(): Promise<OutboxEmail[]>;
  close(): Promise<void>;
}

/** Options of {@link startWorkflowEngine}: those of startLocal that the tests vary. */
export interface WorkflowEngineOptions extends Pick<
  StartLocalOptions,
  'functionsModule' | 'deployWorkflows' | 'mockConfigFile'
> {
  /** Script of the scripted model (`AUTOSAVE_MODEL_SCRIPT`). @default the runtime's default script */
  readonly modelScript?: string;
}

/** Starts the local engine on port 0 in a fresh temp dir, with a virtual clock. */
export async function startWorkflowEngine(options: WorkflowEngineOptions = {}): Promise<WorkflowEngine> {
  const dir = await mkdtemp(join(tmpdir(), 'autosave-workflows-'));
  const dataDir = join(dir, 'data');
  // Hundreds of runs print an EMF line per invocation; these tests count outcomes, not metrics.
  const app = await exampleApp();
  const environment = {
    ...app.environment,
    POWERTOOLS_METRICS_DISABLED: 'true',
    ...(options.modelScript ? { AUTOSAVE_MODEL_SCRIPT: options.modelScript } : {}),
  };
  const { modelScript: _script, ...startOptions } = options;
  const boot = (port: number) =>
    startLocal({
      ...app,
      environment,
      port,
      dataDir,
      virtualClock: true,
      console: false,
      log: () => {},
      ...startOptions,
    });
  let local = await boot(0);
  const deployments: WorkflowDeployment[] = [...local.deployments];
  const clientConfig = { endpoint: local.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const sfn = new SFNClient(clientConfig);
  const sqs = new SQSClient(clientConfig);
  const aliasArn = (workflow: string): string => {
    const deployment = deployments.find((d) => d.workflow === workflow);
    if (!deployment) throw new Error(`${workflow} is not deployed`);
    return deployment.aliasArn;
  };
  return {
    get local() {
      return local;
    },
    sfn,
    sqs,
    dataDir,
    aliasArn,
    async restart() {
      const port = local.port;
      await local.stop();
      local = await boot(port);
    },
    async deploy(workflow) {
      const [deployment] = await deployWorkflows(local.engine, [workflow]);
      deployments.push(deployment);
      return deployment;
    },
    async start(workflow, name, input) {
      const { executionArn } = await sfn.send(
        new StartExecutionCommand({ stateMachineArn: aliasArn(workflow), name, input: JSON.stringify(input) }),
      );
      return executionArn!;
    },
    async advance(duration) {
      const res = await fetch(`${local.url}/_autosave/clock/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ seconds: duration.seconds }),
      });
      if (!res.ok) throw new Error(`clock advance answered ${res.status}: ${await res.text()}`);
    },
    outbox: () => new OutboxEmailProvider(join(dataDir, 'outbox')).list(),
    async close() {
      sfn.destroy();
      sqs.destroy();
      await local.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// The API offers no event to await: waits poll through the shared bounded helper.
export { eventually, POLL_DEADLINE_MILLIS };

/** Polls DescribeExecution until the run's status is one of `statuses`. */
export function untilStatus(
  sfn: SFNClient,
  executionArn: string,
  statuses: readonly string[],
): Promise<DescribeExecutionCommandOutput> {
  return eventually(`${executionArn} to reach ${statuses.join('/')}`, async () => {
    const run = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    return statuses.includes(run.status!) ? run : undefined;
  });
}

/** Polls until the run has left RUNNING. */
export const untilClosed = (sfn: SFNClient, executionArn: string) =>
  untilStatus(sfn, executionArn, ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED']);

/** The whole history of a run, every page. */
export const historyOf = getFullHistory;

/** The approval link approval-request returned: Step Functions records it as the TaskSubmitted event's output. */
export function approvalUrlIn(events: readonly HistoryEvent[]): string | undefined {
  let url: string | undefined;
  for (const e of events) {
    if (e.type !== 'TaskSubmitted' || !e.taskSubmittedEventDetails?.output) continue;
    const output = JSON.parse(e.taskSubmittedEventDetails.output) as { Payload?: { url?: string } };
    url = output.Payload?.url ?? url; // the latest request wins (a redrive asks again)
  }
  return url;
}

/** Polls the run's history until its approval link appears. */
export const approvalUrlOf = (sfn: SFNClient, executionArn: string): Promise<string> =>
  eventually('the approval link', async () => approvalUrlIn(await historyOf(sfn, executionArn)));

/** Decides an approval the way the approval page's form does: a form POST to the signed link. */
export function postDecision(
  url: string,
  decision: 'approve' | 'reject',
  by: string,
  comment?: string,
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ decision, by, ...(comment ? { comment } : {}) }).toString(),
  });
}

/** The states a run entered, in order. */
export const enteredStates = (events: readonly HistoryEvent[]): string[] =>
  events.filter((e) => e.type?.endsWith('StateEntered')).map((e) => e.stateEnteredEventDetails!.name!);

/** How many times each Task state's work was scheduled (a Lambda invocation each). */
export function scheduledPerState(events: readonly HistoryEvent[]): Record<string, number> {
  const counts: Record<string, number> = {};
  let current: string | undefined;
  for (const e of events) {
    if (e.type?.endsWith('StateEntered')) current = e.stateEnteredEventDetails!.name!;
    if (e.type === 'TaskScheduled' && current) counts[current] = (counts[current] ?? 0) + 1;
  }
  return counts;
}

/** The ARNs of a state machine's runs with that status (every page). */
export async function executionsWith(
  sfn: SFNClient,
  stateMachineArn: string,
  status: ExecutionStatus,
): Promise<string[]> {
  const arns: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(
      new ListExecutionsCommand({ stateMachineArn, statusFilter: status, maxResults: 1000, nextToken }),
    );
    arns.push(...(page.executions ?? []).map((e) => e.executionArn!));
    nextToken = page.nextToken;
  } while (nextToken);
  return arns;
}
