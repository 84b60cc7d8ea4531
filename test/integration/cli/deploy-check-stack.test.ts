/**
 * `autosave deploy-check` against a running local engine that boots from the synthesized stack
 * (`autosave local --stack`), with runs in flight: the versions they are on are read from the engine and
 * judged, by the IAM simulator, under the roles of the template a deploy would apply. The fixed next
 * template strands nothing (exit 0); one whose roles allow only the current Lambda versions strands the
 * runs in flight (exit 1, the calls named).
 */
import { rm } from 'node:fs/promises';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropOldVersionGrants } from '../../../scripts/rehearsal/assembly-edits';
import { run } from '../../../packages/local/src/cli/commands/deploy-check';
import { captureTerminal } from '../../../packages/local/src/cli/output';
import { loadRunDetails } from '../../../packages/local/src/operations';
import type { LocalEngine } from '../../../packages/local/src/server';
import { clinicalTrialOnboarding } from '../../../statemachines';
import { eventually } from '../../fixtures/wait';
import { appAssemblies, editedAssembly, SYNTH_TIMEOUT_MILLIS } from '../stack/support/assemblies';
import { startStackEngine, type StackEngine } from '../stack/support/stack-engine';

let engine: StackEngine;
let local: LocalEngine;
let sfn: SFNClient;
let next: string;
let stranding: string;
let onboarding: string;

beforeAll(async () => {
  const { v1, v2 } = await appAssemblies();
  next = v2;
  stranding = editedAssembly(v2, dropOldVersionGrants);
  engine = await startStackEngine(v1);
  ({ local, sfn } = engine);
  const alias = local.deployments.find((d) => d.workflow === clinicalTrialOnboarding.name)!.aliasArn;
  onboarding = local.deployments.find((d) => d.workflow === clinicalTrialOnboarding.name)!.stateMachineArn;
  // Two runs in flight on version 1: they wait for an approver.
  for (const name of ['in-flight-1', 'in-flight-2']) {
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: alias,
        name,
        input: JSON.stringify(clinicalTrialOnboarding.exampleInput),
      }),
    );
    // Waiting for the approver: its link is issued, so no Lambda is in flight when the engine stops.
    await eventually(
      `${name} waiting for its approver`,
      async () => (await loadRunDetails(sfn, executionArn!)).approvals[0]?.url,
    );
  }
}, SYNTH_TIMEOUT_MILLIS);
afterAll(async () => {
  await engine?.stop();
  if (stranding) await rm(stranding, { recursive: true, force: true });
});

/** Runs the command with its output captured. */
async function deployCheck(...args: string[]): Promise<{ code: number; stdout: string }> {
  const out = captureTerminal();
  try {
    const code = await run(['--endpoint', local.url, ...args]);
    return { code, stdout: out.stdout };
  } finally {
    out.release();
  }
}

interface Report {
  readonly workflows: { workflow: string; runsInFlight: number; runsInFlightByVersion: Record<string, number> }[];
  readonly impacts: {
    stateMachine: string;
    versions: { versionArn: string; runs: number }[];
    stranded: { request: { action: string; resource: string } }[];
  }[];
  readonly rolesChecked: boolean;
}

describe('autosave deploy-check against the local engine running the stack', () => {
  it("judges the runs in flight under the next template's roles: nothing stranded, exit 0", async () => {
    const { code, stdout } = await deployCheck('--to', next, '--json');
    const report = JSON.parse(stdout) as Report;
    expect(report.rolesChecked).toBe(true);
    const check = report.workflows.find((w) => w.workflow === clinicalTrialOnboarding.name)!;
    expect(check.runsInFlightByVersion).toEqual({ [`${onboarding}:1`]: 2 });
    const impact = report.impacts.find((i) => i.stateMachine.endsWith(clinicalTrialOnboarding.name))!;
    expect(impact.versions).toEqual([expect.objectContaining({ versionArn: `${onboarding}:1`, runs: 2 })]);
    expect(report.impacts.flatMap((i) => i.stranded)).toEqual([]);
    expect(code).toBe(0);
  });

  it('refuses a template whose roles allow only the current Lambda versions: names the stranded calls, exit 1', async () => {
    const { code, stdout } = await deployCheck('--to', stranding, '--json');
    const report = JSON.parse(stdout) as Report;
    const stranded = report.impacts.find((i) => i.stateMachine.endsWith(clinicalTrialOnboarding.name))!.stranded;
    expect(stranded.length).toBeGreaterThan(0);
    expect(stranded.every((s) => s.request.action === 'lambda:InvokeFunction' && /:1$/.test(s.request.resource))).toBe(
      true,
    );
    expect(code).toBe(1);
    const table = await deployCheck('--to', stranding);
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(
      /^STRANDED .*clinical-trial-onboarding 1: .* lambda:InvokeFunction on .*:1 -> ImplicitlyDenied$/m,
    );
    expect(table.stdout).toContain('A deploy now would strand runs of');
  });
});
