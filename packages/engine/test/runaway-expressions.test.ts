/**
 * A runaway JSONata expression in a run or in TestState (issue 29): the API keeps answering while it
 * evaluates, and the state fails with States.QueryEvaluationError naming the budget, the engine's
 * `expressionLimits` option. Before the budget, the first of these froze the engine for good.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineHarness, jsonata } from './support/engine-harness';

const RUNAWAY = '{% ($f := function($n){ $f($n+1) }; $f(0)) %}';

describe('a runaway expression', () => {
  let h: EngineHarness;
  let runaway: string;
  let echo: string;
  beforeAll(async () => {
    // The time budget is wall-clock time (it bounds the thread, whatever the engine clock says).
    h = await new EngineHarness({}, { expressionLimits: { timeoutMillis: 1500 } }).start();
    runaway = await h.machine(jsonata({ Spin: { Type: 'Pass', Output: RUNAWAY, End: true } }), 'runaway');
    echo = await h.machine(jsonata({ Echo: { Type: 'Pass', End: true } }), 'echo');
  });
  afterAll(() => h.close());

  it('fails its run with States.QueryEvaluationError naming the budget, and the API answers meanwhile', async () => {
    const other = await h.run(echo, { ok: true });
    const { executionArn } = (await h.call('StartExecution', { stateMachineArn: runaway, input: '{}' })) as {
      executionArn: string;
    };
    // StartExecution answers before the run's runaway first state is done (AWS answers before a run evaluates anything).
    expect(await h.describe(executionArn)).toMatchObject({ status: 'RUNNING' });
    expect(await h.describe(other)).toMatchObject({ status: 'SUCCEEDED' });
    expect((await h.call('ListExecutions', { stateMachineArn: echo })).executions).toHaveLength(1);
    expect(await h.call('ListStateMachines', {})).toHaveProperty('stateMachines');

    await h.idle();
    const run = await h.describe(executionArn);
    expect(run).toMatchObject({ status: 'FAILED', error: 'States.QueryEvaluationError' });
    expect(run.cause).toContain('it ran for more than 1500 ms');
    expect(run.cause).toContain('expressionLimits.timeoutMillis');
  });

  it('records the same history as a run whose first state fails at once', async () => {
    const failsAtOnce = await h.machine(
      jsonata({ Spin: { Type: 'Pass', Output: '{% $notAFunction() %}', End: true } }),
      'fails-at-once',
    );
    const shape = async (stateMachineArn: string) => {
      const { executionArn } = (await h.call('StartExecution', { stateMachineArn, input: '{"a":1}' })) as {
        executionArn: string;
      };
      await h.idle();
      const { events } = (await h.call('GetExecutionHistory', { executionArn })) as {
        events: { type: string; id: number; previousEventId: number }[];
      };
      return events.map(({ type, id, previousEventId }) => ({ type, id, previousEventId }));
    };
    expect(await shape(runaway)).toEqual(await shape(failsAtOnce));
  });

  it('fails in TestState the same way, and TestState answers', async () => {
    const out = await h.call('TestState', {
      definition: JSON.stringify({ Type: 'Pass', QueryLanguage: 'JSONata', Output: RUNAWAY, End: true }),
      input: '{}',
    });
    expect(out).toMatchObject({ status: 'FAILED', error: 'States.QueryEvaluationError' });
    expect(out.cause).toContain('expressionLimits.timeoutMillis');
  });
});
