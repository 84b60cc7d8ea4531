/**
 * 200 approvals in a row, each decided with `autosave approve <id>` by the id its run printed: no id trips
 * the command line (none starts with '-'), and every run moves on.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../packages/local/src/cli/main';
import { captureTerminal } from '../../../packages/local/src/cli/output';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { listPendingApprovals, loadRunDetails } from '../../../packages/local/src/operations';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { clinicalTrialOnboarding } from '../../../statemachines/index';
import { exampleApp } from '../../fixtures/example-app';
import { pointCliAt } from '../../fixtures/cli-endpoint';

const RUNS = 200;
const ONBOARDING = 'arn:aws:states:us-east-1:123456789012:stateMachine:clinical-trial-onboarding';
const runArn = (name: string) => `arn:aws:states:us-east-1:123456789012:execution:clinical-trial-onboarding:${name}`;

let local: LocalEngine;
let dataDir: string;
let sfn: SFNClient;
let restoreEndpoint: (() => void) | undefined;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'autosave-cli-many-'));
  local = await startLocal({ ...(await exampleApp()), port: 0, dataDir, log: () => undefined });
  // The CLI resolves its endpoint as a user's shell gives it (startLocal writes no variable).
  restoreEndpoint = pointCliAt(local.url);
  sfn = new SFNClient({ endpoint: local.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});
afterAll(async () => {
  restoreEndpoint?.();
  sfn?.destroy();
  await local?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function approveFromCli(approvalId: string): Promise<{ code: number; stderr: string }> {
  const out = captureTerminal();
  try {
    return { code: await main(['approve', approvalId]), stderr: out.stderr };
  } finally {
    out.release();
  }
}

describe('autosave approve, many times in a row', () => {
  it(`decides ${RUNS} approvals, each by its id`, { timeout: 600_000 }, async () => {
    const names = Array.from({ length: RUNS }, (_, i) => `many-${i}`);
    for (let i = 0; i < names.length; i += 20) {
      await Promise.all(
        names.slice(i, i + 20).map(async (name) => {
          const input = {
            ...clinicalTrialOnboarding.exampleInput,
            siteId: `site-${name}`,
            coordinatorEmail: `coordinator@${name}.example.org`,
          };
          await sfn.send(
            new StartExecutionCommand({ stateMachineArn: `${ONBOARDING}:live`, name, input: JSON.stringify(input) }),
          );
          await vi.waitFor(
            async () => expect((await loadRunDetails(sfn, runArn(name))).approvals[0]?.approvalId).toBeDefined(),
            { timeout: 45_000, interval: 100 },
          );
        }),
      );
    }
    const pending = await listPendingApprovals(sfn);
    expect(pending).toHaveLength(RUNS);
    expect(pending.filter((a) => !/^[0-9a-f]{32}$/.test(a.approvalId ?? ''))).toEqual([]);
    // Newest first: each lookup stops at the first batch of histories it reads.
    for (const a of [...pending].reverse())
      expect(await approveFromCli(a.approvalId!), a.runName).toEqual({ code: 0, stderr: '' });
    for (const name of names) {
      await vi.waitFor(
        async () =>
          expect((await sfn.send(new DescribeExecutionCommand({ executionArn: runArn(name) }))).status).toBe(
            'SUCCEEDED',
          ),
        { timeout: 45_000, interval: 100 },
      );
    }
  });
});
