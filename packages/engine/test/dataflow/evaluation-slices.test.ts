/**
 * How evaluations share the engine's thread (issue 29, Deliver 1): when the slice is spent, every running
 * evaluation waits for the same turn of the event loop, so that ten of them hold a request up for one slice,
 * not ten (DescribeExecution's p99 beside ten runaway runs was 102 ms with a turn each, 13 ms with one shared).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_EXPRESSION_LIMITS,
  EVALUATION_SLICE_MILLIS,
  EvaluationBudget,
} from '../../src/dataflow/jsonata/evaluation-budget';

/** Enters steps until the budget reads the clock and answers a turn to wait for (or 1,000 steps pass). */
function enterUntilTurn(budget: EvaluationBudget): Promise<void> | undefined {
  for (let step = 0; step < 1_000; step++) {
    const turn = budget.enter(1);
    if (turn) return turn;
  }
  return undefined;
}

describe('evaluation slices', () => {
  afterEach(() => vi.restoreAllMocks());

  it('every evaluation whose slice is spent waits for the same turn of the event loop', async () => {
    const start = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(start);
    const first = new EvaluationBudget(DEFAULT_EXPRESSION_LIMITS);
    const second = new EvaluationBudget(DEFAULT_EXPRESSION_LIMITS);
    clock.mockReturnValue(start + EVALUATION_SLICE_MILLIS + 1);
    const firstTurn = enterUntilTurn(first);
    const secondTurn = enterUntilTurn(second);
    expect(firstTurn).toBeInstanceOf(Promise);
    expect(secondTurn).toBe(firstTurn);
    await firstTurn;
    // After the turn both have a fresh slice: no wait until the clock passes it again.
    expect(enterUntilTurn(first)).toBeUndefined();
  });
});
