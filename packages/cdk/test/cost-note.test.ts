import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CostWalkError, pricePer1000Runs, transitionsPerTurn, walk } from '../src/cost-model';
import { computeCostNote, renderCostNote } from '../../../infra/cost-note';
import type { AslDefinition } from '@autosave/workflow';

const task = (next?: string) => ({
  Type: 'Task' as const,
  Resource: 'arn:aws:states:::lambda:invoke',
  Arguments: {},
  Retry: [],
  ...(next ? { Next: next } : { End: true as const }),
});

/** A loop: model -> route (Choice) -> tools -> model ..., route's default continues, "Done" ends. */
const loop: AslDefinition = {
  Comment: 'loop',
  QueryLanguage: 'JSONata',
  StartAt: 'Start',
  States: {
    Start: { Type: 'Pass', Next: 'model' },
    model: task('route'),
    route: { Type: 'Choice', Choices: [{ Condition: '{% $states.input.final %}', Next: 'Done' }], Default: 'tools' },
    tools: task('model'),
    Done: { Type: 'Succeed' },
  },
};

describe('cost model', () => {
  it('counts every state a run enters, following the route at each Choice', () => {
    expect(walk(loop, (s, visit) => (s === 'route' && visit === 3 ? 'Done' : ''))).toEqual([
      'Start',
      'model',
      'route',
      'tools',
      'model',
      'route',
      'tools',
      'model',
      'route',
      'Done',
    ]);
  });

  it('prices one loop turn as the cycle from the model Task back to itself', () => {
    expect(transitionsPerTurn(loop, 'model', () => 'tools')).toBe(3);
  });

  it('refuses a route to a state the Choice cannot reach, and a loop that never ends', () => {
    expect(() => walk(loop, () => 'nowhere')).toThrow(CostWalkError);
    expect(() => walk(loop, () => '')).toThrow(/did not end/);
  });

  it('prices at $0.025 per 1,000 transitions', () => {
    expect(pricePer1000Runs(9)).toBeCloseTo(0.225, 10);
  });
});

describe('cost note', () => {
  it('prices the approved onboarding run at the seven steps plus Start and the decision Choice', () => {
    const onboarding = computeCostNote().lines.find(
      (l) => l.workflow === 'clinical-trial-onboarding' && l.path.startsWith('approved'),
    )!;
    expect(onboarding.transitions).toBe(9);
    expect(computeCostNote().transitionsPerAgentTurn).toBe(3);
  });

  it('is what docs/deploying.md says (regenerate with `npx tsx infra/cost-note.ts`)', () => {
    const doc = readFileSync(new URL('../../../docs/deploying.md', import.meta.url), 'utf8');
    const block = /<!-- cost-note:start -->\n([\s\S]*?)\n<!-- cost-note:end -->/.exec(doc);
    expect(block, 'cost-note markers in docs/deploying.md').not.toBeNull();
    expect(block![1]).toBe(renderCostNote());
  });
});
