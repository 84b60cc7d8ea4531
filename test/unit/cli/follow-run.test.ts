import { describe, expect, it } from 'vitest';
import { statesLeftFrom, successorsOf, type AslGraphDefinition, formatDuration } from '../../../lib/operations';
import { progressLine } from '../../../cli/follow-run';

const onboardingLike: AslGraphDefinition = {
  StartAt: 'Start',
  States: {
    Start: { Type: 'Pass', Next: 'verify' },
    verify: { Type: 'Task', Next: 'approve' },
    approve: { Type: 'Task', Next: 'decision', Catch: [{ Next: 'notify-expired' }] },
    decision: { Type: 'Choice', Choices: [{ Next: 'notify-rejected' }], Default: 'email' },
    email: { Type: 'Task', Next: 'kickoff' },
    kickoff: { Type: 'Task', End: true },
    'notify-rejected': { Type: 'Task', End: true },
    'notify-expired': { Type: 'Task', End: true },
  },
};

describe('start --wait progress', () => {
  it('counts the fewest states left to an end, the current one included, error paths aside', () => {
    expect(statesLeftFrom(onboardingLike, 'Start')).toBe(5); // Start, verify, approve, decision, notify-rejected
    expect(statesLeftFrom(onboardingLike, 'decision')).toBe(2);
    expect(statesLeftFrom(onboardingLike, 'kickoff')).toBe(1);
    expect(successorsOf(onboardingLike, 'decision')).toEqual(['notify-rejected', 'email']);
  });

  it('draws a bar, the step and the elapsed time', () => {
    expect(progressLine(3, 6, 'coordinator-approval', 1250)).toBe('[##########----------] 3/6  coordinator-approval  1.3s');
    expect(progressLine(0, 0, 'RUNNING', 0)).toBe('[--------------------] 0/0  RUNNING  0ms');
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
