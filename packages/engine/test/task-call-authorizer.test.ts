/**
 * The IAM seam: an authorizer the engine asks before every Task integration call (each attempt, the
 * Lambda, SQS, DynamoDB and StartExecution integrations alike). A denial fails the attempt with the
 * error and cause it returns, before the service is called; Retry and Catch see it like any Task error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskCall } from '../src';
import { EngineHarness, invokeTask, jsonata } from './support/engine-harness';

const ROLE = 'arn:aws:iam::123456789012:role/test';

describe('the Task call authorizer', () => {
  let h: EngineHarness;
  afterEach(() => h.close());

  it('is asked before each Lambda call with the role, the run and the call; a denial fails the Task without calling the function', async () => {
    const calls: TaskCall[] = [];
    h = new EngineHarness(
      { allowed: () => ({ ok: 1 }), denied: () => ({ ok: 2 }) },
      {
        authorizeTaskCall: async (call) => {
          calls.push(call);
          const fn = (call.args as { FunctionName?: string }).FunctionName ?? '';
          return fn.endsWith(':denied') ? { error: 'Lambda.AWSLambdaException', cause: 'not authorized' } : undefined;
        },
      },
    );
    await h.start();
    const m = await h.machine(
      jsonata({
        First: invokeTask('allowed', { Next: 'Second' }),
        Second: invokeTask('denied', { End: true }),
      }),
    );
    const arn = await h.run(m, { n: 1 });
    expect(await h.describe(arn)).toMatchObject({
      status: 'FAILED',
      error: 'Lambda.AWSLambdaException',
      cause: 'not authorized',
    });
    expect(h.count('allowed')).toBe(1);
    expect(h.count('denied')).toBe(0);
    expect(calls.map((c) => c.state)).toEqual(['First', 'Second']);
    expect(calls[0]).toMatchObject({
      roleArn: ROLE,
      executionArn: arn,
      stateMachineArn: m,
      resource: 'arn:aws:states:::lambda:invoke',
      args: { FunctionName: 'arn:aws:lambda:us-east-1:123456789012:function:allowed', Payload: { n: 1 } },
    });
    expect(await h.eventTypes(arn)).toContain('TaskFailed');
  });

  it('is asked again on every retry, and a Catch sees the denial', async () => {
    let asked = 0;
    h = new EngineHarness(
      { f: () => 1 },
      { authorizeTaskCall: async () => (++asked, { error: 'Lambda.AWSLambdaException', cause: 'denied' }) },
    );
    await h.start();
    const m = await h.machine(
      jsonata({
        Call: invokeTask('f', {
          Retry: [{ ErrorEquals: ['Lambda.AWSLambdaException'], MaxAttempts: 2, IntervalSeconds: 1 }],
          Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Caught', Output: '{% $states.errorOutput %}' }],
          End: true,
        }),
        Caught: { Type: 'Pass', End: true },
      }),
    );
    const arn = await h.run(m);
    await h.clock.advance(10_000);
    expect(await h.output(arn)).toEqual({ Error: 'Lambda.AWSLambdaException', Cause: 'denied' });
    expect(asked).toBe(3);
    expect(h.count('f')).toBe(0);
  });

  it('is asked for the direct function-ARN form and child StartExecution calls, with the Resource as written', async () => {
    const resources: string[] = [];
    h = new EngineHarness({ f: () => 1 }, { authorizeTaskCall: async (call) => void resources.push(call.resource) });
    await h.start();
    const child = await h.machine(jsonata({ Done: { Type: 'Succeed' } }));
    const m = await h.machine(
      jsonata({
        Direct: { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:123456789012:function:f', Next: 'Child' },
        Child: {
          Type: 'Task',
          Resource: 'arn:aws:states:::states:startExecution',
          Arguments: { StateMachineArn: child, Input: {} },
          End: true,
        },
      }),
    );
    const arn = await h.run(m);
    expect((await h.describe(arn)).status).toBe('SUCCEEDED');
    expect(resources).toEqual([
      'arn:aws:lambda:us-east-1:123456789012:function:f',
      'arn:aws:states:::states:startExecution',
    ]);
  });
});
