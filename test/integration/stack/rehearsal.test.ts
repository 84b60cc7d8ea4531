/**
 * The deploy rehearsal (`npm run rehearse` plays it with 1,000 runs; the engine is `autosave local`, a
 * process of its own, the rehearsal its client): runs wait on approvals across a
 * deploy --local that changes a tool's code and a workflow's definition; every run started before the
 * deploy finishes on state machine version 1 and the first Lambda versions — the welcome email has the
 * old subject and no v2 footer — and every run started after on the new ones.
 */
import { describe, expect, it } from 'vitest';
import { rehearse } from '../../../scripts/rehearsal/rehearsal';
import { appAssemblies, SYNTH_TIMEOUT_MILLIS } from './support/assemblies';

describe('the deploy rehearsal', () => {
  it(
    'keeps 30 runs in flight on the versions they started on, and sends later runs to the new ones',
    async () => {
      await appAssemblies();
      const report = await rehearse({ runsBefore: 30, runsAfter: 5, concurrency: 10 });
      expect(report.problems).toEqual([]);
      expect(report.runsInFlightAtDeploy).toBe(30);
      expect(report.finishedPerStateMachineVersion).toEqual({
        'arn:aws:states:us-east-1:123456789012:stateMachine:clinical-trial-onboarding:1': 30,
        'arn:aws:states:us-east-1:123456789012:stateMachine:clinical-trial-onboarding:2': 5,
      });
      const toolStep = Object.entries(report.invocationsPerLambdaVersion).filter(([k]) => k.includes('ToolStep'));
      // Six tool steps per run: v1 for the 30 runs in flight, v2 (the new bundle) for the 5 later ones.
      expect(Object.fromEntries(toolStep.map(([k, n]) => [k.split(':')[1], n]))).toEqual({ '1': 180, '2': 30 });
      expect(report.assemblies.before).not.toBe(report.assemblies.after);
      // The engine (autosave local, with its sandboxes) runs in a process of its own, as a user's does, and
      // this process only drives it through its API: each process's peak RSS is measured apart.
      expect(report.enginePid).toEqual(expect.any(Number));
      expect(report.enginePid).not.toBe(process.pid);
      if (process.platform === 'linux') expect(report.peakRssMiB.engine).toBeGreaterThan(0);
      expect(report.peakRssMiB.driver).toBeGreaterThan(0);
    },
    SYNTH_TIMEOUT_MILLIS + 180_000,
  );

  it(
    "with --enforce-iam, the app's own roles still let every run in flight finish on its old versions",
    async () => {
      await appAssemblies();
      const report = await rehearse({
        runsBefore: 8,
        runsAfter: 3,
        concurrency: 8,
        enforceIam: true,
        virtualClock: true,
      });
      expect(report.iamEnforced).toBe(true);
      expect(report.problems).toEqual([]);
      expect(Object.values(report.finishedPerStateMachineVersion)).toEqual([8, 3]);
    },
    SYNTH_TIMEOUT_MILLIS + 180_000,
  );

  it(
    'with --enforce-iam, a v2 whose roles drop old versions fails every run in flight with AccessDenied, and only those',
    async () => {
      await appAssemblies();
      const report = await rehearse({
        runsBefore: 5,
        runsAfter: 3,
        concurrency: 8,
        enforceIam: true,
        dropOldVersionGrants: true,
        virtualClock: true,
      });
      expect(report.oldVersionGrantsDropped).toBe(true);
      expect(report.failedPerError).toEqual({ 'Lambda.AWSLambdaException': 5 });
      expect(report.problems).toHaveLength(5);
      for (const p of report.problems) {
        expect(p).toMatch(
          /^before-\d \(started before the deploy\) FAILED: Lambda\.AWSLambdaException User: arn:aws:sts::123456789012:assumed-role\/.+ is not authorized to perform: lambda:InvokeFunction on resource: arn:aws:lambda:us-east-1:123456789012:function:[^ ]*ToolStep[^ ]*:1 because no identity-based policy allows the lambda:InvokeFunction action/,
        );
      }
      // The runs started after the deploy are on v2's versions, which the new role grants.
      expect(Object.values(report.finishedPerStateMachineVersion)).toEqual([3]);
    },
    SYNTH_TIMEOUT_MILLIS + 180_000,
  );
});
