/**
 * The onboarding workflow end to end through the Step Functions API, against a chosen endpoint. The
 * same suite runs on the local engine (always) and on LocalStack (when LOCALSTACK_ENDPOINT is set, after
 * `npm run deploy:localstack`): only the endpoint differs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeExecutionCommand,
  ListStateMachinesCommand,
  SFNClient,
  StartExecutionCommand,
  type HistoryEvent,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeCostNote } from '../../../infra/cost-note';
import { LIVE_ALIAS_NAME, LOCAL_REGION } from '@autosave/workflow/config';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { clinicalTrialOnboarding } from '../../../statemachines';
import { getFullHistory } from '../../../packages/local/src/operations';
import { eventually as waitFor } from '../../fixtures/wait';
import { exampleApp } from '../../fixtures/example-app';

/** Where the suite runs: an endpoint, and how to release it. */
interface Target {
  readonly endpoint: string;
  close(): Promise<void>;
}

interface TargetKind {
  readonly name: string;
  /** Why this target is skipped, or undefined when it runs. */
  readonly skip?: string;
  open(): Promise<Target>;
}

const LOCALSTACK_ENDPOINT = process.env.LOCALSTACK_ENDPOINT;

const TARGETS: TargetKind[] = [
  {
    name: 'the local engine',
    async open() {
      const dataDir = await mkdtemp(join(tmpdir(), 'autosave-e2e-deploy-'));
      const local: LocalEngine = await startLocal({
        ...(await exampleApp()),
        port: 0,
        dataDir,
        console: false,
        log: () => {},
      });
      return {
        endpoint: local.url,
        close: async () => {
          await local.stop();
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'LocalStack',
    skip: LOCALSTACK_ENDPOINT
      ? undefined
      : 'LOCALSTACK_ENDPOINT is not set. To run it: start LocalStack Community 4 with LAMBDA_IGNORE_ARCHITECTURE=1, `npm run deploy:localstack` (LocalStack mode), then `LOCALSTACK_ENDPOINT=http://localhost:4566 npx vitest run test/e2e/deploy` (README: LocalStack)',
    async open() {
      return { endpoint: LOCALSTACK_ENDPOINT!, close: async () => {} };
    },
  },
];

/** How long a run may take to reach the next point we wait for (no model calls: tools are fakes). */
const STEP_DEADLINE_MS = 30_000;

/** Polls `probe` until it returns a value; the API offers no event to await, so this is the client's way. */
const eventually = <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> =>
  waitFor(what, probe, { timeoutMillis: STEP_DEADLINE_MS, intervalMillis: 50 });

const historyOf = getFullHistory;

/** The approval link approval-request returned: Step Functions records it in the TaskSubmitted event. */
function approvalUrlIn(events: HistoryEvent[]): string | undefined {
  for (const e of events) {
    if (e.type !== 'TaskSubmitted' || !e.taskSubmittedEventDetails?.output) continue;
    const output = JSON.parse(e.taskSubmittedEventDetails.output) as { Payload?: { url?: string } };
    if (output.Payload?.url) return output.Payload.url;
  }
  return undefined;
}

for (const kind of TARGETS) {
  if (kind.skip) console.warn(`onboarding e2e on ${kind.name}: skipped — ${kind.skip}`);

  describe.skipIf(kind.skip !== undefined)(`onboarding through the Step Functions API on ${kind.name}`, () => {
    let target: Target;
    let sfn: SFNClient;

    beforeAll(async () => {
      target = await kind.open();
      sfn = new SFNClient({
        endpoint: target.endpoint,
        region: LOCAL_REGION,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      });
    });
    afterAll(async () => {
      sfn?.destroy();
      await target?.close();
    });

    it('runs the seven steps, waits for the coordinator, and succeeds once the approval link is used', async () => {
      const machines = await sfn.send(new ListStateMachinesCommand({}));
      const machine = machines.stateMachines?.find((m) => m.name === clinicalTrialOnboarding.name);
      expect(machine, `${clinicalTrialOnboarding.name} is deployed`).toBeDefined();

      const input = JSON.stringify({ ...clinicalTrialOnboarding.exampleInput, siteId: `site-e2e-${Date.now()}` });
      const { executionArn } = await sfn.send(
        new StartExecutionCommand({
          stateMachineArn: `${machine!.stateMachineArn}:${LIVE_ALIAS_NAME}`,
          name: `e2e-${Date.now()}`,
          input,
        }),
      );

      const url = await eventually('the approval link', async () => approvalUrlIn(await historyOf(sfn, executionArn!)));
      const running = await sfn.send(new DescribeExecutionCommand({ executionArn }));
      expect(running.status).toBe('RUNNING');

      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Approve');
      const decided = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ decision: 'approve', by: 'e2e coordinator', comment: 'looks good' }).toString(),
      });
      expect(decided.status).toBe(200);

      const done = await eventually('the run to close', async () => {
        const d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
        return d.status === 'RUNNING' ? undefined : d;
      });
      expect(done.status).toBe('SUCCEEDED');

      // The run entered exactly the states the cost note prices: the note is about what really runs.
      const history = await historyOf(sfn, executionArn!);
      const entered = history
        .filter((e) => e.type?.endsWith('StateEntered'))
        .map((e) => e.stateEnteredEventDetails?.name);
      const approved = computeCostNote().lines.find(
        (l) => l.workflow === clinicalTrialOnboarding.name && l.path.startsWith('approved'),
      )!;
      expect(entered).toHaveLength(approved.transitions);
      expect(entered).toContain('email-welcome-pack');
    });
  });
}
