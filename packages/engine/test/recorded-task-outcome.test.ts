/**
 * The timeout path asks for a recorded outcome first: a decision recorded outside the engine (an approval
 * whose SendTaskSuccess a crash cut off) was made in time, so the task takes it instead of timing out.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { days, seconds } from '../../workflow/src/config/duration';
import { EngineHarness, jsonata } from './support/engine-harness';

const machine = jsonata({
  Approve: {
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
    Arguments: { FunctionName: 'approval-request', Payload: { token: '{% $states.context.Task.Token %}' } },
    TimeoutSeconds: 5 * 86_400,
    Catch: [{ ErrorEquals: ['States.Timeout'], Next: 'Expired' }],
    Next: 'Decided',
  },
  Decided: { Type: 'Pass', Output: '{% {"branch": "decided", "decision": $states.input} %}', End: true },
  Expired: { Type: 'Pass', Output: { branch: 'timeout' }, End: true },
});

describe('a callback task timing out with an outcome recorded for its token', () => {
  let h: EngineHarness;
  afterEach(() => h.close());

  function harness(recorded: (token: string) => Promise<unknown>) {
    const tokens: string[] = [];
    h = new EngineHarness(
      { 'approval-request': (p) => void tokens.push(p.token) },
      {
        recordedTaskOutcome: async (token) => {
          const value = await recorded(token);
          return value === undefined ? undefined : { ok: true, value };
        },
      },
    );
    return tokens;
  }

  it('takes the recorded outcome instead of the timeout branch', async () => {
    const decisions = new Map<string, unknown>();
    const tokens = harness(async (token) => decisions.get(token));
    await h.start();
    const m = await h.machine(machine);
    const decided = await h.run(m, {}, 'decided');
    const undecided = await h.run(m, {}, 'undecided');
    decisions.set(tokens[0], { approved: true, by: 'dr.lee' });
    await h.clock.advance(days(6));
    expect(await h.output(decided)).toEqual({ branch: 'decided', decision: { approved: true, by: 'dr.lee' } });
    expect(await h.eventTypes(decided)).toContain('TaskSucceeded');
    expect(await h.eventTypes(decided)).not.toContain('TaskTimedOut');
    expect(await h.output(undecided)).toEqual({ branch: 'timeout' });
    await expect(h.call('SendTaskSuccess', { taskToken: tokens[0], output: '{}' })).rejects.toMatchObject({
      name: 'TaskTimedOut',
    });
  });

  it('postpones the timeout while the record cannot be read, and never times out without asking', async () => {
    let reachable = false;
    const tokens = harness(async (token) => {
      if (!reachable) throw new Error('table unreachable');
      return token === tokens[0] ? { approved: false } : undefined;
    });
    await h.start();
    const arn = await h.run(await h.machine(machine), {}, 'r');
    await h.clock.advance(days(5));
    expect((await h.describe(arn)).status).toBe('RUNNING');
    await h.clock.advance(seconds(5));
    expect((await h.describe(arn)).status).toBe('RUNNING');
    reachable = true;
    await h.clock.advance(seconds(1));
    expect(await h.output(arn)).toEqual({ branch: 'decided', decision: { approved: false } });
  });
});
