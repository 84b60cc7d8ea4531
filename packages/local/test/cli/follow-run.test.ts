import { describe, expect, it } from 'vitest';
import {
  progressPlanOf,
  runProgress,
  successorsOf,
  type AslGraphDefinition,
  formatDuration,
} from '../../src/operations';
import { compileWorkflow } from '@autosave/workflow';
import { clinicalTrialOnboarding, contractRenewal, researchAgent } from '../../../../statemachines/index';
import { progressLine, runElapsedMillis } from '../../src/cli/follow-run';

const onboarding = compileWorkflow(clinicalTrialOnboarding) as unknown as AslGraphDefinition;
const research = compileWorkflow(researchAgent) as unknown as AslGraphDefinition;

describe('start --wait progress', () => {
  it('takes the total from the definition: the steps on the longest path, routing states and error paths aside', () => {
    expect(progressPlanOf(onboarding)).toEqual({ kind: 'steps', totalSteps: 7 });
    expect(progressPlanOf(compileWorkflow(contractRenewal) as unknown as AslGraphDefinition)).toEqual({
      kind: 'steps',
      totalSteps: 2,
    });
    expect(successorsOf(onboarding, 'coordinator-approval-decision')).toEqual([
      'provision-edc-access',
      'notify-site-rejected',
    ]);
  });

  it('keeps the same total from the first step to a failure (a failed run reads x/7, not 1/1)', () => {
    const plan = progressPlanOf(onboarding);
    expect(runProgress(onboarding, plan, ['Start'], [])).toEqual({ kind: 'steps', done: 0, total: 7 });
    expect(runProgress(onboarding, plan, ['Start', 'verify-site'], ['Start'])).toEqual({
      kind: 'steps',
      done: 0,
      total: 7,
    });
    // verify-site failed: one step was never done, the total stays.
    expect(
      runProgress(onboarding, plan, ['Start', 'verify-site', 'create-accounts'], ['Start', 'verify-site']),
    ).toEqual({ kind: 'steps', done: 1, total: 7 });
  });

  it('counts a branch off the longest path (the expiry notice) without passing the total', () => {
    const entered = [
      'Start',
      'verify-site',
      'create-accounts',
      'request-irb-document',
      'coordinator-approval',
      'notify-approval-expired',
    ];
    expect(runProgress(onboarding, progressPlanOf(onboarding), entered, entered)).toEqual({
      kind: 'steps',
      done: 5,
      total: 7,
    });
  });

  it('shows an agent loop by its turn rather than a total the run cannot know', () => {
    const plan = progressPlanOf(research);
    expect(plan.kind).toBe('loop');
    const entered = [
      'Start',
      'Resume',
      'research',
      'research-route',
      'research-tools',
      'research',
      'research-route',
      'research-tools',
      'research',
    ];
    expect(runProgress(research, plan, entered, entered.slice(0, -1))).toEqual({ kind: 'loop', turn: 3 });
    expect(runProgress(research, plan, ['Start'], [])).toEqual({ kind: 'loop', turn: 0 });
  });

  it('draws a bar, the step and the elapsed time; a turn for a loop; no time when it is unknown', () => {
    expect(progressLine({ kind: 'steps', done: 3, total: 6 }, 'coordinator-approval', 1250)).toBe(
      '[##########----------] 3/6  coordinator-approval  1.3s',
    );
    expect(progressLine({ kind: 'steps', done: 0, total: 0 }, 'RUNNING', 0)).toBe(
      '[--------------------] 0/0  RUNNING  0ms',
    );
    expect(progressLine({ kind: 'loop', turn: 2 }, 'research', 4200)).toBe('turn 2  research  4.2s');
    expect(progressLine({ kind: 'steps', done: 1, total: 7 }, 'create-accounts')).toBe(
      '[###-----------------] 1/7  create-accounts',
    );
  });
});

describe('elapsed time of a followed run', () => {
  const startDate = new Date('2026-01-01T00:00:00Z');
  it('is stop minus start once closed, whatever the wall clock says', () => {
    expect(runElapsedMillis({ startDate, stopDate: new Date('2026-01-01T00:00:04.200Z') }, undefined)).toBe(4200);
  });
  it("is the engine's now minus start while open, and unknown without the engine's now", () => {
    expect(runElapsedMillis({ startDate }, Date.parse('2026-01-01T00:01:00Z'))).toBe(60_000);
    expect(runElapsedMillis({ startDate }, undefined)).toBeUndefined();
  });
});

describe('formatDuration', () => {
  it.each([
    [850, '850ms'],
    [4_200, '4.2s'],
    [42_000, '42s'],
    [185_000, '3m 05s'],
    [7_260_000, '2h 01m'],
    [5 * 86_400_000 + 7_200_000, '5d 02h'],
  ])('%i ms -> %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});
