/**
 * Actions where the user looks: Stop on a running run's page, and Approve / Reject on the approval itself, in the
 * console's own pages. The forms post as a browser posts them (same origin); a post from another site is refused.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { loadRunDetails } from '../../../packages/local/src/operations';
import { clinicalTrialOnboarding } from '../../../statemachines/index';
import { exampleApp } from '../../fixtures/example-app';

let local: LocalEngine;
let dataDir: string;
let sfn: SFNClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'autosave-actions-'));
  local = await startLocal({ ...(await exampleApp()), port: 0, dataDir, log: () => undefined });
  sfn = new SFNClient({ endpoint: local.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});
afterAll(async () => {
  await local?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const ONBOARDING = `arn:aws:states:${LOCAL_REGION}:123456789012:stateMachine:clinical-trial-onboarding:live`;

async function waitingRun(name: string): Promise<{ arn: string; url: string }> {
  const input = {
    ...clinicalTrialOnboarding.exampleInput,
    siteId: `site-${name}`,
    coordinatorEmail: `c@${name}.example.org`,
  };
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({ stateMachineArn: ONBOARDING, name, input: JSON.stringify(input) }),
  );
  const url = await vi.waitFor(
    async () => {
      const approval = (await loadRunDetails(sfn, executionArn!)).approvals[0];
      if (!approval?.url) throw new Error('not waiting yet');
      return approval.url;
    },
    { timeout: 45_000, interval: 100 },
  );
  return { arn: executionArn!, url };
}

const status = async (arn: string) => (await sfn.send(new DescribeExecutionCommand({ executionArn: arn }))).status;
const post = (path: string, body: string, origin = local.url) =>
  fetch(new URL(path, local.url), {
    method: 'POST',
    redirect: 'manual',
    headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });

describe('actions in the console', () => {
  it('Stop on a running run page stops it; a post from another site is refused', async () => {
    const { arn } = await waitingRun('actions-stop');
    const page = await (await fetch(`${local.url}/runs/${encodeURIComponent(arn)}`)).text();
    const action =
      /<form method="post" action="([^"]+\/stop)" class="inline"><button type="submit" class="stop">Stop<\/button>/.exec(
        page,
      )?.[1];
    expect(action).toBe(`/runs/${encodeURIComponent(arn)}/stop`);
    expect((await post(action!, '', 'http://evil.example')).status).toBe(403);
    expect(await status(arn)).toBe('RUNNING');
    const stopped = await post(action!, '');
    expect(stopped.status).toBe(303);
    expect(await status(arn)).toBe('ABORTED');
    // A stopped run offers Redrive, no longer Stop; stopping it again is the service's refusal, not a 500.
    const after = await (await fetch(`${local.url}/runs/${encodeURIComponent(arn)}`)).text();
    expect(after).not.toContain('class="stop"');
    expect(after).toContain('class="redrive"');
    expect((await post(action!, '')).status).toBeLessThan(500);
  });

  it('Approve on the approvals page and on the run page decides the approval through its link', async () => {
    const { arn, url } = await waitingRun('actions-approve');
    for (const path of ['/approvals', `/runs/${encodeURIComponent(arn)}`]) {
      const page = await (await fetch(`${local.url}${path}`)).text();
      expect(page).toContain(
        `<form method="post" action="${url.replace(/&/g, '&amp;')}" class="inline"><input type="hidden" name="decision" value="approve">`,
      );
      expect(page).toContain('<input type="hidden" name="decision" value="reject">');
    }
    const approved = await post(url, 'decision=approve&by=the+local+console');
    expect(approved.status).toBeLessThan(400);
    await vi.waitFor(async () => expect(await status(arn)).toBe('SUCCEEDED'), { timeout: 45_000, interval: 100 });
  });
});
